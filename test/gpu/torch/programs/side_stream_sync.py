# A loop whose host waits are an event synchronize on a side stream's GEMM, a .item() and a .cpu():
# three iterations, each joined by the host three times.
import torch

a = torch.randn(4096, 4096, device="cuda")
b = torch.randn(4096, 4096, device="cuda")
side = torch.cuda.Stream()
done = torch.cuda.Event()
torch.cuda.synchronize()

for step in range(3):
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        c = a @ b
        c = c @ b
        done.record(side)
    d = a + b
    done.synchronize()
    total = d.sum().item()
    host = c[:64, :64].cpu()
torch.cuda.synchronize()
print(f"total {total:.1f} host {tuple(host.shape)}")
