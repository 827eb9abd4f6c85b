"""The options and the timed loop every program here shares.

Each program runs its step `--warmup` times, then `--iters` times on the clock: host wall time from
before the first timed step to after a final torch.cuda.synchronize(), divided by the steps, printed
last as `iter_ns <value>`. `--fixed` runs the same program with its fix applied.

With SWITCH=ROUNDS,BLOCK in the environment, one process times both: after the warm-up of each, ROUNDS
rounds each run the program as written and with its fix for BLOCK steps apiece, in an order that turns
every round, so that the machine's drift falls on both alike. This holds only for a program that reads
`args.fixed` in its step, not one that sets up its data by it.
"""

import argparse
import os
import statistics
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
    CHOSEN.append(args)
    return args


CHOSEN = []


def timed(step, warmup, iters, finish=None):
    """Runs step(i) warmup + iters times; prints the mean host time of a timed step in ns."""
    if os.environ.get("SWITCH"):
        rounds, block = (int(x) for x in os.environ["SWITCH"].split(","))
        return switched(step, warmup, rounds, block, CHOSEN[-1])
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


def switched(step, warmup, rounds, block, args):
    """Both variants in one process, in alternating blocks; prints each one's median step and the saving."""
    i = 0
    for fixed in (False, True):
        args.fixed = fixed
        for _ in range(warmup):
            step(i)
            i += 1
    per = {False: [], True: []}
    for r in range(rounds):
        for fixed in (False, True) if r % 2 == 0 else (True, False):
            args.fixed = fixed
            step(i)  # the first step after a switch settles what the other variant left queued
            i += 1
            torch.cuda.synchronize()
            start = time.perf_counter_ns()
            for _ in range(block):
                step(i)
                i += 1
            torch.cuda.synchronize()
            per[fixed].append((time.perf_counter_ns() - start) / block)
    savings = sorted(b - f for b, f in zip(per[False], per[True]))
    print(
        f"switched {rounds} rounds of {block} steps: buggy {statistics.median(per[False]):.0f} "
        f"fixed {statistics.median(per[True]):.0f} saving {statistics.median(savings):.0f} "
        f"(rounds {savings[0]:.0f} to {savings[-1]:.0f}) ns per step",
        flush=True,
    )
