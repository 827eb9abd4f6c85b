# A small training loop: a pageable host batch copied in each step, an SGD step, and the loss read
# back with .item() every step. With --fix the batch is pinned and copied asynchronously, and the
# loss is read once at the end.
import sys

import torch

fix = "--fix" in sys.argv
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(2048, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 10)
).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [torch.randn(2048, 2048) for _ in range(10)]
if fix:
    batches = [b.pin_memory() for b in batches]
target = torch.randint(0, 10, (2048,), device="cuda")
losses = []
for step, batch in enumerate(batches):
    x = batch.to("cuda", non_blocking=fix)
    loss = torch.nn.functional.cross_entropy(model(x), target)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    losses.append(loss.detach() if fix else loss.item())
torch.cuda.synchronize()
print("last loss", float(losses[-1]))
