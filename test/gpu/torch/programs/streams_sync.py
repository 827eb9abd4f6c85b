# Two non-blocking side streams with unequal work, each joined by its own stream synchronize, then
# a device synchronize after work on both: every wait has one stream (or the last op) to release it.
import torch

a = torch.randn(4096, 4096, device="cuda")
b = torch.randn(4096, 4096, device="cuda")
s1 = torch.cuda.Stream()
s2 = torch.cuda.Stream()
torch.cuda.synchronize()
for step in range(3):
    with torch.cuda.stream(s1):
        x = a @ b
    with torch.cuda.stream(s2):
        y = (a @ b) @ b
    s1.synchronize()
    s2.synchronize()
    with torch.cuda.stream(s1):
        x = x @ b
    with torch.cuda.stream(s2):
        y = y + 1
    torch.cuda.synchronize()
print("done", tuple(x.shape), tuple(y.shape))
