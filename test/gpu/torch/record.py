# Records one program under torch.profiler for the test fixtures.
#   python3 record.py MODE OUT.json PROGRAM [ARGS...]
# MODE: default (CPU and CUDA activities only), stack (with_stack), sync (with_stack and the
# profiler's cuda_sync events where this torch has them).
import runpy
import sys

import torch
from torch.profiler import ProfilerActivity, profile

mode, out, program, *args = sys.argv[1:]
options = {"activities": [ProfilerActivity.CPU, ProfilerActivity.CUDA]}
if mode in ("stack", "sync"):
    options["with_stack"] = True
if mode == "sync":
    options["experimental_config"] = torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
sys.argv = [program, *args]
with profile(**options) as prof:
    runpy.run_path(program, run_name="__main__")
prof.export_chrome_trace(out)
