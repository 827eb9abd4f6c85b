# What takes a launch-queue entry (S19), and whose queue it is: behind one long kernel, issues a
# pattern of tiny kernels, event records and stream waits on one or more streams, times each call,
# and prints how many of each were issued, per stream, before the first call that blocked for room.
# A graph pattern ('g', 'h') replays a captured CUDA graph of one-element adds instead.
# Usage: python3 probe.py (about 10 s; run it again with CUDA_DEVICE_MAX_CONNECTIONS=32 to see the
# streams' sharing of hardware queues go).
import sys
import time

import torch

BLOCKED_NS = 5_000_000  # a call this long waited for the long kernel, not for the host


def sleep_cycles_for(ms):
    """Cycles of torch.cuda._sleep that last `ms` on this GPU, from a timed short sleep."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    torch.cuda._sleep(50_000_000)
    torch.cuda.synchronize()
    per_ms = 50_000_000 / ((time.perf_counter() - start) * 1e3)
    return int(per_ms * ms)


def graph_of(nodes, x):
    """A CUDA graph of `nodes` one-element adds to x, replayed once so that it is uploaded."""
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(nodes):
            x.add_(1)
    graph.replay()
    torch.cuda.synchronize()
    return graph


def probe(name, streams, pattern, cycles, timing=False, waiter=None, graphs=None):
    """`pattern`: (stream index, kind) items, kind 'k' a tiny kernel, 'r' an event record, 'w' a wait
    for a completed event, 'g' or 'h' a replay of graphs['g'] or graphs['h'] on the stream.
    `waiter`: a stream that waits for every record, as wait_stream makes one."""
    tensors = [torch.zeros(4, device="cuda") for _ in streams]
    for s, x in zip(streams, tensors):
        with torch.cuda.stream(s):
            x.add_(1)  # the kernel's module loads now, not behind the long kernel
    records = [torch.cuda.Event(enable_timing=timing) for _ in pattern]
    done = torch.cuda.Event()
    done.record()
    torch.cuda.synchronize()
    gate = torch.cuda.Event()
    with torch.cuda.stream(streams[0]):
        torch.cuda._sleep(cycles)
    gate.record(streams[0])
    for s in streams[1:]:
        s.wait_event(gate)
    issued = {}
    first = None
    for i, (si, kind) in enumerate(pattern):
        s = streams[si]
        begin = time.perf_counter_ns()
        if kind == "k":
            with torch.cuda.stream(s):
                tensors[si].add_(1)
        elif kind == "r":
            records[i].record(s)
            if waiter is not None:
                waiter.wait_event(records[i])
        elif kind in "gh":
            with torch.cuda.stream(s):
                graphs[kind].replay()
        else:
            s.wait_event(done)
        took = time.perf_counter_ns() - begin
        if took > BLOCKED_NS:
            first = (i, si, kind, took)
            break
        issued[(si, kind)] = issued.get((si, kind), 0) + 1
    torch.cuda.synchronize()
    counts = " ".join(f"s{si}:{kind}={n}" for (si, kind), n in sorted(issued.items()))
    if first is None:
        print(f"{name}: no call blocked in {len(pattern)} ({counts})", flush=True)
    else:
        i, si, kind, took = first
        print(f"{name}: call {i} ({kind} on s{si}) blocked {took / 1e6:.1f} ms after {counts}", flush=True)


def main():
    torch.zeros(1, device="cuda")
    cycles = sleep_cycles_for(400)
    legacy = torch.cuda.default_stream()
    side = [torch.cuda.Stream() for _ in range(16)]
    other = torch.cuda.Stream()
    alt = lambda n, kinds: [(0, kinds[j % len(kinds)]) for j in range(n)]
    probe("one stream, kernels", [side[0]], alt(1200, "k"), cycles)
    probe("one stream, kernel and record", [side[0]], alt(2400, "kr"), cycles)
    probe("one stream, kernel and timing record", [side[0]], alt(2400, "kr"), cycles, timing=True)
    probe("one stream, kernel and record another stream waits for", [side[0]], alt(2400, "kr"), cycles, waiter=other)
    probe("legacy stream, kernels", [legacy], alt(1200, "k"), cycles)
    probe("legacy stream, kernel and record", [legacy], alt(2400, "kr"), cycles)
    probe("legacy stream, kernel and record another stream waits for", [legacy], alt(2400, "kr"), cycles, waiter=other)
    probe("one stream, kernel and wait", [side[0]], alt(2400, "kw"), cycles)
    probe("two streams, kernels alternating", side[:2], [(j % 2, "k") for j in range(3000)], cycles)
    probe("legacy and a side stream, kernels alternating", [legacy, side[0]], [(j % 2, "k") for j in range(3000)], cycles)
    probe("16 streams x 700 kernels, round robin", side, [(j % 16, "k") for j in range(16 * 700)], cycles)
    probe("16 streams x 1100 kernels, round robin", side, [(j % 16, "k") for j in range(16 * 1100)], cycles)
    x = torch.zeros(4, device="cuda")
    for nodes in (1, 10, 100, 400):
        g = {"g": graph_of(nodes, x)}
        probe(f"one stream, graphs of {nodes} nodes", [side[0]], alt(3000, "g"), cycles, graphs=g)
    g = {"g": graph_of(100, x), "h": graph_of(10, x)}
    probe("one stream, graphs of 100 and of 10 nodes alternating", [side[0]], alt(2400, "gh"), cycles, graphs=g)
    probe("one stream, a graph of 100 nodes and a kernel alternating", [side[0]], alt(2400, "gk"), cycles, graphs=g)
    probe("one stream, a graph of 100 nodes and 10 kernels", [side[0]], alt(12000, "gkkkkkkkkkk"), cycles, graphs=g)
    probe("two streams, graphs of 100 nodes alternating", side[:2], [(j % 2, "g") for j in range(3000)], cycles, graphs=g)
    print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(), file=sys.stderr)


if __name__ == "__main__":
    main()
