# Training from a DataLoader with worker processes and pinned memory, the usual way.
import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    device = "cuda"
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(4096, 1024), torch.randint(0, 10, (4096,)))
    loader = DataLoader(data, batch_size=256, shuffle=True, num_workers=2, pin_memory=True)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 10)).to(device)
    opt = torch.optim.Adam(model.parameters())
    for epoch in range(2):
        for i, (x, y) in enumerate(loader):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if i % 4 == 0:
                print(f"epoch {epoch} batch {i} loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
