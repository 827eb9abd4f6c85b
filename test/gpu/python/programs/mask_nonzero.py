# Post-processing of detections: keep the confident boxes with a boolean mask, then look up the
# classes that fired with nonzero, every batch.
import torch

device = "cuda"
torch.manual_seed(0)
weights = torch.randn(256, 256, device=device)


def detect(images):
    feats = images @ weights
    for _ in range(4):
        feats = torch.tanh(feats @ weights)
    return feats


kept_total = 0
for batch in range(10):
    images = torch.randn(4096, 256, device=device)
    scores = detect(images)
    confident = scores[scores.abs() > 0.9]
    fired = torch.nonzero(scores.amax(dim=0) > 0.99)
    kept_total += confident.numel() + fired.numel()
print("kept", kept_total)
