"""The options and the timed loop every program here shares.

Each program runs its step `--warmup` times, then `--iters` times on the clock: host wall time from
before the first timed step to after a final torch.cuda.synchronize(), divided by the steps, printed
last as `iter_ns <value>`. `--fixed` runs the same program with its fix applied.
"""

import argparse
import time

import torch


def options(description, iters=200):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--fixed", action="store_true", help="run the program with its fix applied")
    parser.add_argument("--warmup", type=int, default=20, help="steps run before the clock starts")
    parser.add_argument("--iters", type=int, default=iters, help="steps on the clock")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("this program needs a CUDA GPU")
    return args


def timed(step, warmup, iters, finish=None):
    """Runs step(i) warmup + iters times; prints the mean host time of a timed step in ns."""
    for i in range(warmup):
        step(i)
    torch.cuda.synchronize()
    start = time.perf_counter_ns()
    for i in range(warmup, warmup + iters):
        step(i)
    if finish is not None:
        finish()
    torch.cuda.synchronize()
    elapsed = time.perf_counter_ns() - start
    print(f"iter_ns {elapsed / iters:.0f}", flush=True)
