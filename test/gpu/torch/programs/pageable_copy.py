# Host-to-device copies from pageable memory between GEMMs, then a device-to-host copy read by the
# host. With --fix the host buffers are pinned and the uploads are asynchronous.
import sys

import torch

fix = "--fix" in sys.argv
a = torch.randn(4096, 4096, device="cuda")
host = [torch.randn(4096, 4096) for _ in range(4)]
if fix:
    host = [h.pin_memory() for h in host]
torch.cuda.synchronize()
for step in range(4):
    x = host[step].to("cuda", non_blocking=fix)
    y = (a @ x) @ a
out = y[:256].cpu()
print("sum", float(out.sum()))
