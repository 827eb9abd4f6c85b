"""What torch.profiler with stacks adds to a Python call against an op, within one process.

Usage: python3 bench/trace-overhead/python-share.py

probe.py measures each recorder in a process of its own against a plain one; the host's speed moves
between processes (a plain x.view(-1) takes 1.2 us in one and 2.5 us in the next), which an op's
cost of about a microsecond does not outlast. This times three loops plain, then under
torch.profiler(with_stack=True), then plain again, three times in one process, and prints per loop
the time added per call against the mean of the plain runs around it:
  py         a Python function that does nothing: one range of the profiler's Python tracer;
  view       x.view(-1): a built-in method's range and an op's (aten::view);
  aten_view  torch.ops.aten.view(x, [-1]): the op through its Python packet.
The what-if weighs a Python call's range against an op's by their ratio (core/whatif/overhead.ts).
"""

import statistics
import time

import torch
from torch.profiler import ProfilerActivity, profile

BATCH, CALLS = 256, 20480
x = torch.zeros(1, device="cuda")


def nothing():
    return None


def py_batch():
    t0 = time.perf_counter_ns()
    for _ in range(BATCH):
        nothing()
    return time.perf_counter_ns() - t0


def view_batch():
    t0 = time.perf_counter_ns()
    for _ in range(BATCH):
        x.view(-1)
    return time.perf_counter_ns() - t0


def aten_view_batch():
    t0 = time.perf_counter_ns()
    for _ in range(BATCH):
        torch.ops.aten.view(x, [-1])
    return time.perf_counter_ns() - t0


LOOPS = {"py": py_batch, "view": view_batch, "aten_view": aten_view_batch}


def measure():
    """Per loop, the median time per call over CALLS calls in batches of BATCH."""
    return {name: statistics.median(batch() / BATCH for _ in range(CALLS // BATCH)) for name, batch in LOOPS.items()}


for batch in LOOPS.values():  # warm-up
    batch()
for rep in range(3):
    before = measure()
    with profile(activities=[ProfilerActivity.CPU], with_stack=True):
        for batch in LOOPS.values():  # the recorder's first calls, untimed
            batch()
        under = measure()
    after = measure()
    added = {k: under[k] - (before[k] + after[k]) / 2 for k in LOOPS}
    print(f"rep {rep}: " + ", ".join(f"{k} {before[k]:.0f}/{after[k]:.0f} plain, {under[k]:.0f} with stacks, +{added[k]:.0f} ns" for k in LOOPS), flush=True)
