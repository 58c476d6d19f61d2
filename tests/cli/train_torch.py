"""A real (small) PyTorch training run on synthetic data, timed by gpumon.torch.timed, for test_steps.sh.

train_torch.py MODE SECONDS OUT.json
  slow    a heavy transform in __getitem__ (real tensor work, about 4 ms a sample), num_workers=0:
          the loop waits for every batch (input-bound)
  cached  the same transform applied once up front: the loop hardly waits
  workers the heavy transform in two DataLoader workers (num_workers=2)
The script measures its own share of loop time spent in next(loader) and writes it, with its step
count, to OUT.json, so the test compares gpumon's figure with the job's own.
"""
import json
import os
import sys
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpumon.torch  # noqa: E402

torch.set_num_threads(1)
torch.manual_seed(0)
FEATURES, CLASSES, BATCH = 512, 10, 16
TRANSFORM_S = float(os.environ.get("TRAIN_TRANSFORM_S", "0.004"))


def heavy(x):
    """Augmentation stand-in: real tensor work until TRANSFORM_S has passed."""
    end = time.perf_counter() + TRANSFORM_S
    w = torch.full((x.numel(), 8), 0.01)
    while time.perf_counter() < end:
        x = torch.tanh(x + (x @ w).sum() * 1e-6)
    return x


class Synthetic(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(1)
        self.x = torch.randn(n, FEATURES, generator=g)
        self.y = torch.randint(0, CLASSES, (n,), generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return heavy(self.x[i]), self.y[i]


def loader(mode):
    data = Synthetic(4096)
    if mode == "cached":
        xs = torch.stack([heavy(data.x[i]) for i in range(256)])
        return DataLoader(TensorDataset(xs, data.y[:256]), batch_size=BATCH, shuffle=True)
    return DataLoader(data, batch_size=BATCH, shuffle=True, num_workers=2 if mode == "workers" else 0,
                      persistent_workers=mode == "workers")


def main():
    mode, seconds, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    model = nn.Sequential(nn.Linear(FEATURES, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, CLASSES))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    lossf = nn.CrossEntropyLoss()
    dl = loader(mode)
    waited = computed = 0.0
    steps = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        it = iter(gpumon.torch.timed(dl))
        while time.monotonic() < end:
            t0 = time.perf_counter()
            try:
                x, y = next(it)
            except StopIteration:
                break
            t1 = time.perf_counter()
            opt.zero_grad()
            lossf(model(x), y).backward()
            opt.step()
            t2 = time.perf_counter()
            waited += t1 - t0
            computed += t2 - t1
            steps += 1
        it.close() if hasattr(it, "close") else None
    gpumon.done()
    with open(out, "w") as f:
        json.dump({"wait_share": 100 * waited / (waited + computed), "steps": steps}, f)


if __name__ == "__main__":
    main()
