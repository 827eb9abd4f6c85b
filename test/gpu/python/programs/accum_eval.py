# Image classifier trained with gradient accumulation under bf16 autocast, gradient clipping, a
# skipped step on a non-finite loss, and an accuracy pass each epoch, the way training scripts do it.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cuda")
torch.manual_seed(0)

images = torch.randn(2048, 3, 32, 32, device=device)
labels = torch.randint(0, 10, (2048,), device=device)
model = nn.Sequential(
    nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
    nn.Flatten(), nn.Linear(128, 10),
).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
ACCUM, BATCH = 4, 128


def evaluate():
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(images), 512):
            pred = model(images[i : i + 512]).argmax(dim=1)
            correct += (pred == labels[i : i + 512]).sum().item()
    model.train()
    return correct / len(images)


for epoch in range(2):
    for step, i in enumerate(range(0, len(images), BATCH)):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(images[i : i + BATCH]), labels[i : i + BATCH]) / ACCUM
        if not torch.isfinite(loss):
            continue
        loss.backward()
        if (step + 1) % ACCUM == 0:
            norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            if step % 8 == 7:
                print(f"epoch {epoch} step {step} loss {loss.item() * ACCUM:.3f} grad norm {norm:.2f}")
    print(f"epoch {epoch} accuracy {evaluate():.3f}")
