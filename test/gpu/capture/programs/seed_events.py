# What the seed documents do, for the capture GPU test: torch.cuda.synchronize(), and an event
# recorded on a side stream, waited for, queried and synchronized. Its twin scenario is in
# test/gpu/capture.test.ts; everything after the first synchronize is compared with it.
import torch

x = torch.ones(1, device="cuda")
torch.cuda.synchronize()

side = torch.cuda.Stream()
ev = torch.cuda.Event()
with torch.cuda.stream(side):
    torch.cuda._sleep(10_000_000)  # about 5 ms: still running when the host queries
    ev.record(side)
torch.cuda.current_stream().wait_event(ev)
torch.cuda._sleep(1_000_000)  # about 500 us: still running when torch.cuda.synchronize() begins
before = ev.query()
ev.synchronize()
after = ev.query()
torch.cuda.synchronize()
print(f"query before: {before}, after: {after}")
