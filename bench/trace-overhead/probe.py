# What a recorder adds to a PyTorch program's host time: host time per call of three loops, each
# timed in batches with the GPU drained between batches, plain or under one torch.profiler setting.
#   launch: x.add_(1), one framework op (a record_function range) and one kernel launch;
#   op:     x.view(-1), one framework op and no CUDA call;
#   record: an event's record(), one CUDA call and no framework op;
#   python: a call of a Python function that does nothing, one Python call (the tracer's, with stacks).
# And what it adds to the GPU's time per kernel: two kernels (x.add_(1) on one element, a
# 1024x1024 matmul) queued behind a sleeping kernel, so that the host is far ahead and the GPU runs
# them back to back, timed between CUDA events; and the add as the nodes of a CUDA graph, replayed
# (torch.compile's mode="reduce-overhead" runs its steps so).
# Usage: probe.py MODE [CALLS], MODE one of plain, profiler-default, profiler-stacks,
# profiler-cuda-sync (stacks and cuda_sync events, as `syncscope profile` records). Under
# `syncscope capture`, run it plain. Prints "launch_ns L op_ns O record_ns R python_ns P" and the GPU
# times (gpu_add_ns, gpu_mm_ns, gpu_graph_ns).
import statistics
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

MODE = sys.argv[1]
CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 20480
BATCH = 256

x = torch.zeros(1, device="cuda")
event = torch.cuda.Event()


def launch_batch():
    t0 = time.perf_counter_ns()
    for _ in range(BATCH):
        x.add_(1)
    return time.perf_counter_ns() - t0


def op_batch():
    t0 = time.perf_counter_ns()
    for _ in range(BATCH):
        x.view(-1)
    return time.perf_counter_ns() - t0


def record_batch():
    t0 = time.perf_counter_ns()
    for _ in range(BATCH):
        event.record()
    return time.perf_counter_ns() - t0


def nothing():
    return None


def python_batch():
    t0 = time.perf_counter_ns()
    for _ in range(BATCH):
        nothing()
    return time.perf_counter_ns() - t0


def per_call(batch):
    times = []
    for _ in range(CALLS // BATCH):
        times.append(batch() / BATCH)
        torch.cuda.synchronize()
    return statistics.median(times)


a = torch.randn(1024, 1024, device="cuda")
b = torch.randn(1024, 1024, device="cuda")
c = torch.empty(1024, 1024, device="cuda")
KERNELS = 400
# Long enough for the host to queue KERNELS launches under the slowest recorder (tens of ms).
SLEEP_CYCLES = 200_000_000


def gpu_per_kernel(queue):
    """GPU time per kernel, the KERNELS kernels `queue` queues while the GPU sleeps: the median of 5 batches."""
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        torch.cuda._sleep(SLEEP_CYCLES)
        start.record()
        queue()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e6 / KERNELS)
    return statistics.median(times)


def each_of(kernel):
    """KERNELS launches of `kernel`."""

    def queue():
        for _ in range(KERNELS):
            kernel()

    return queue


def graph_of_adds():
    """KERNELS one-element adds captured as one CUDA graph, made before any recorder starts."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        x.add_(1)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(KERNELS):
            x.add_(1)
    return graph


def measure():
    loops = (("launch", launch_batch), ("op", op_batch), ("record", record_batch), ("python", python_batch))
    result = {name: per_call(batch) for name, batch in loops}
    result["gpu_add"] = gpu_per_kernel(each_of(lambda: x.add_(1)))
    result["gpu_mm"] = gpu_per_kernel(each_of(lambda: torch.mm(a, b, out=c)))
    result["gpu_graph"] = gpu_per_kernel(graph.replay)  # one replay runs the graph's KERNELS nodes
    return result


def profiler_options():
    options = {"activities": [ProfilerActivity.CPU, ProfilerActivity.CUDA]}
    if MODE in ("profiler-stacks", "profiler-cuda-sync"):
        options["with_stack"] = True
    if MODE == "profiler-cuda-sync":
        options["experimental_config"] = torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
    return options


for batch in (launch_batch, op_batch, record_batch, python_batch):  # warm-up, outside any recorder
    batch()
torch.mm(a, b, out=c)
graph = graph_of_adds()
graph.replay()
torch.cuda.synchronize()
if MODE == "plain":
    result = measure()
elif MODE in ("profiler-default", "profiler-stacks", "profiler-cuda-sync"):
    with profile(**profiler_options()):
        for batch in (launch_batch, op_batch, record_batch, python_batch):  # the recorder's first calls, untimed
            batch()
        torch.mm(a, b, out=c)
        graph.replay()
        torch.cuda.synchronize()
        result = measure()
else:
    sys.exit(f"probe.py: unknown mode {MODE!r}; modes are plain, profiler-default, profiler-stacks, profiler-cuda-sync")
print(
    f"launch_ns {result['launch']:.1f} op_ns {result['op']:.1f} record_ns {result['record']:.1f}"
    f" python_ns {result['python']:.1f}"
    f" gpu_add_ns {result['gpu_add']:.1f} gpu_mm_ns {result['gpu_mm']:.1f} gpu_graph_ns {result['gpu_graph']:.1f}"
)
