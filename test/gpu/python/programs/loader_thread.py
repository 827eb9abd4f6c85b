# A background thread prepares each batch on its own stream and hands it over when the copy is done;
# the main thread trains on what it gets.
import queue
import threading

import torch

device = "cuda"
torch.manual_seed(0)
batches = queue.Queue(maxsize=2)


def loader(n):
    stream = torch.cuda.Stream()
    for _ in range(n):
        host = torch.randn(2048, 2048).pin_memory()
        with torch.cuda.stream(stream):
            batch = host.to(device, non_blocking=True)
            batch = batch * 2 - 1
            ready = torch.cuda.Event()
            ready.record(stream)
        ready.synchronize()
        batches.put(batch)
    batches.put(None)


model = torch.nn.Linear(2048, 2048).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
thread = threading.Thread(target=loader, args=(6,), daemon=True)
thread.start()
while (batch := batches.get()) is not None:
    loss = model(batch).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
print("last loss", loss.item())
thread.join()
