# Regression training with a validation pass, early stopping on the best validation loss, a
# learning-rate scheduler, and predictions pulled to numpy for a metric.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
dev = "cuda"
X = torch.randn(8192, 64, device=dev)
w_true = torch.randn(64, 1, device=dev)
Y = X @ w_true + 0.1 * torch.randn(8192, 1, device=dev)
train_x, val_x = X[:6144], X[6144:]
train_y, val_y = Y[:6144], Y[6144:]

net = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1)).to(dev)
opt = torch.optim.Adam(net.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
loss_fn = nn.MSELoss()

best, patience = float("inf"), 0
for epoch in range(8):
    net.train()
    for i in range(0, 6144, 256):
        pred = net(train_x[i : i + 256])
        loss = loss_fn(pred, train_y[i : i + 256])
        opt.zero_grad()
        loss.backward()
        opt.step()
    sched.step()

    net.eval()
    with torch.no_grad():
        val_pred = net(val_x)
        val_loss = loss_fn(val_pred, val_y)
    if val_loss < best:
        best, patience = val_loss, 0
    else:
        patience += 1
    r2 = 1 - np.var(val_pred.cpu().numpy() - val_y.cpu().numpy()) / np.var(val_y.cpu().numpy())
    print(f"epoch {epoch}: val {float(val_loss):.4f} r2 {r2:.3f}")
    if patience >= 2:
        break
