# What the capture's Python stacks cost: host time per launch (x.add_(1) on one element) and per
# synchronize of an idle stream, with stacks switched on and off for alternate batches within one
# process (the benchmark's build of the library: syncscope_capture_switch). The calls are made
# DEPTH Python frames deep, as a model's nested modules make them. Prints one line:
# "stacks depth D launch_added_ns A sync_added_ns S launch_on_ns L sync_on_ns Y".
import ctypes
import os
import statistics
import sys
import time

import torch

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
DEPTH = 24
BATCH = 256
ALL, STACKS_OFF = 7, 3  # activities 1, callbacks 2, stacks 4

x = torch.zeros(1, device="cuda")
stream = torch.cuda.current_stream()
switch = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"], mode=os.RTLD_NOLOAD | os.RTLD_NOW).syncscope_capture_switch


def nested(n, work):
    return work() if n == 0 else nested(n - 1, work)


def launches():
    t0 = time.perf_counter_ns()
    for _ in range(BATCH):
        x.add_(1)
    dt = time.perf_counter_ns() - t0
    torch.cuda.synchronize()
    return dt / BATCH


def syncs():
    torch.cuda.synchronize()
    t0 = time.perf_counter_ns()
    for _ in range(BATCH):
        stream.synchronize()
    return (time.perf_counter_ns() - t0) / BATCH


def measure(parts, work):
    switch(parts)
    return nested(DEPTH, work)


for work in (launches, syncs):  # warm-up: every stack met once
    measure(ALL, work)
added = {launches: [], syncs: []}
level = {launches: [], syncs: []}
for r in range(ROUNDS):
    for work in (launches, syncs):
        first, second = (ALL, STACKS_OFF) if r % 2 == 0 else (STACKS_OFF, ALL)
        a = measure(first, work)
        b = measure(second, work)
        on, off = (a, b) if first == ALL else (b, a)
        added[work].append(on - off)
        level[work].append(on)
switch(ALL)
med = statistics.median
print(
    f"stacks depth {DEPTH} launch_added_ns {med(added[launches]):.1f} sync_added_ns {med(added[syncs]):.1f} "
    f"launch_on_ns {med(level[launches]):.1f} sync_on_ns {med(level[syncs]):.1f}"
)
