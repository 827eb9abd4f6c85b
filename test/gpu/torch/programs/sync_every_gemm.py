# A loop that calls torch.cuda.synchronize() after every GEMM, and whose host never uses the
# result before the next launch. With --fix the synchronize runs once, after the loop.
import sys

import torch

fix = "--fix" in sys.argv
a = torch.randn(4096, 4096, device="cuda")
b = torch.randn(4096, 4096, device="cuda")
torch.cuda.synchronize()
for i in range(40):
    c = a @ b
    if not fix:
        torch.cuda.synchronize()
torch.cuda.synchronize()
print("done", tuple(c.shape))
