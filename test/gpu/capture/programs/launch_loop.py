# The capture benchmark's PyTorch launch loop: host time per op launch (x.add_(1) on one element),
# plain, under the capture, or under torch.profiler ("profiler" as the first argument). Prints
# "per_launch_ns <value>".
import sys
import time
import torch

launches = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
batch = 256
x = torch.zeros(1, device="cuda")
for _ in range(batch):
    x.add_(1)
torch.cuda.synchronize()


def loop():
    ns = 0.0
    for _ in range(0, launches, batch):
        t0 = time.perf_counter_ns()
        for _ in range(batch):
            x.add_(1)
        ns += time.perf_counter_ns() - t0
        torch.cuda.synchronize()
    return ns / ((launches + batch - 1) // batch * batch)


if len(sys.argv) > 1 and sys.argv[1] == "profiler":
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        per = loop()
else:
    per = loop()
print(f"per_launch_ns {per:.1f}")
