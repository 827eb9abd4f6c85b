# What torch.cuda.set_sync_debug_mode("warn") reports for a program, and what it costs: prints
# each warning's file, line and first message line, then the program's wall time with and without.
import runpy
import sys
import time
import warnings

import torch

program = sys.argv[1]
sys.argv = [program]
runpy.run_path(program, run_name="__main__")  # warm-up: cuBLAS and allocator
start = time.perf_counter()
runpy.run_path(program, run_name="__main__")
plain = time.perf_counter() - start
torch.cuda.set_sync_debug_mode("warn")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    start = time.perf_counter()
    runpy.run_path(program, run_name="__main__")
    warned = time.perf_counter() - start
torch.cuda.set_sync_debug_mode(0)
for w in caught:
    print(f"WARN {w.filename}:{w.lineno} {w.category.__name__} {str(w.message).splitlines()[0][:160]}")
print(f"TIME plain {plain * 1e3:.1f} ms, warn mode {warned * 1e3:.1f} ms, {len(caught)} warnings")
