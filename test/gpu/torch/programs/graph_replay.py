# A CUDA graph of two GEMMs on one stream, replayed three times, each replay joined by a
# synchronize of the current stream: the second GEMM ends last and is what releases the host.
import torch

a = torch.randn(4096, 4096, device="cuda")
b = torch.randn(4096, 4096, device="cuda")
warm = torch.cuda.Stream()
warm.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(warm):
    for _ in range(2):
        c = (a @ b) @ b
torch.cuda.current_stream().wait_stream(warm)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    c = (a @ b) @ b
torch.cuda.synchronize()
for _ in range(3):
    graph.replay()
    torch.cuda.current_stream().synchronize()
print("replayed", tuple(c.shape))
