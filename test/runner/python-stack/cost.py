# The Python stack reader's own cost per call, without CUDA: reads through python_stack_check
# (ctypes, the GIL released as torch releases it) made DEPTH frames deep, with stacks switched on
# and off for alternate batches in one process. Prints one line:
# "reader depth D on_ns A off_ns B added_ns C first_ns F" (F: a stack met for the first time).
import ctypes
import statistics
import sys
import time

lib = ctypes.CDLL(sys.argv[1])
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 300
DEPTH = int(sys.argv[3]) if len(sys.argv) > 3 else 24
BATCH = 1000
read, switch = lib.syncscope_stack_read, lib.syncscope_stack_switch
lib.syncscope_stack_init()


def nested(n, work):
    return work() if n == 0 else nested(n - 1, work)


def batch():
    t0 = time.perf_counter_ns()
    for _ in range(BATCH):
        read()
    return (time.perf_counter_ns() - t0) / BATCH


def first():
    # A new stack each time: one code object per round, made before the clock starts.
    scope = {"read": read}
    exec(compile("def fresh():\n    return read()\n", f"<fresh {len(firsts)}>", "exec"), scope)
    t0 = time.perf_counter_ns()
    scope["fresh"]()
    return time.perf_counter_ns() - t0


nested(DEPTH, batch)
on, off, added, firsts = [], [], [], []
for r in range(ROUNDS):
    order = (1, 0) if r % 2 == 0 else (0, 1)
    got = {}
    for state in order:
        switch(state)
        got[state] = nested(DEPTH, batch)
    switch(1)
    on.append(got[1])
    off.append(got[0])
    added.append(got[1] - got[0])
    firsts.append(nested(DEPTH, first))
med = statistics.median
print(f"reader depth {DEPTH} on_ns {med(on):.1f} off_ns {med(off):.1f} added_ns {med(added):.1f} first_ns {med(firsts):.0f}")
