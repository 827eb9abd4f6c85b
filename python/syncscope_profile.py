"""Runs a Python script unchanged under torch.profiler and writes a gzipped Chrome trace for Syncscope.

    python syncscope_profile.py --out TRACE.json.gz [--steps N] [--warmup W] [--plain-steps P] [--seconds S] [--step-on WHAT] -- SCRIPT [ARGS...]
    python syncscope_profile.py --plain-only --plain-steps P [--step-on WHAT] -- SCRIPT [ARGS...]

- Steps: with --plain-steps P, 2 + P plain steps first; W warm-up steps, then N recorded ones; the
  script is stopped once they are written. The plain steps run before the profiler starts, with every hook
  of this launcher paused (a --step-on step is still seen there, through events on its own code
  objects alone: sys.monitoring from Python 3.12, a trace function that follows only those code
  objects before it); the mean duration of the last P, between two torch.cuda.synchronize()
  calls, is the script's own speed, written into the trace as a zero-length record_function
  "syncscope.site:" + {"plain": {"stepNs": n, "steps": P}} at the start of the recorded steps (a
  what-if scales the recorded host time to it). Where the steps run autograd's backward pass, the
  mean time per step the script spent in it (Tensor.backward and torch.autograd.backward, timed by
  thin wrappers during the plain steps alone) is "backwardNs": the engine's threads launch that
  work with no Python frames, which a recorder slows by other costs than the script's own thread.
  Where the sync clock is preloaded (SYNCSCOPE_SYNC_CLOCK names it), the mean time per step in the
  CUDA runtime's synchronizing calls is "syncNs" (the process's first thread) and "otherSyncNs"
  (the other threads): how long the program without a recorder waited for the GPU. Where the
  script's own thread receives a DataLoader's batches from its worker processes unpinned, the mean
  CPU time per step it spent doing so is "batchReceiveNs" (DataLoader(pin_memory=True) moves that
  work to the loader's pin thread).
  With --plain-only, nothing is recorded: the script is stopped after its plain steps, and the
  line "plain step measured " + the same JSON on stderr gives their speed (for a recorder that
  cannot pause, a capture, to be scaled to). A step
  ends at each optimizer step (the global optimizer step post hook), or with --step-on at each
  return from the user's function WHAT (its name, or Class.method) or each start of the user's line
  WHAT (FILE:LINE, FILE a path or a file name). Without plain steps, the profiler starts with the
  script and, until the first step ends, the whole run is recorded, up to S seconds (then the script
  is stopped). With them, it starts only once they are timed: a process that was ever profiled
  keeps CUPTI attached, and its launches stay slower.
- Call sites: a zero-length record_function named "syncscope.site:" + {"stack": [[file, line,
  function], ...]} (innermost first, at most 32 frames, this file's and runpy's frames dropped) on
  the calling thread just before each synchronizing call it can foresee:
  - torch.cuda.synchronize, Stream.synchronize and Event.synchronize, through thin wrappers;
  - synchronizing ATen ops (.item(), .cpu(), ...): torch.cuda.set_sync_debug_mode("warn") (set as
    the script's first CUDA call starts CUDA: the launcher starts none) names them, but torch hands
    its warnings to Python only when the op has returned, after the wait.
    So a warning teaches the line (the innermost Python frame at the warning) and the marker is
    placed before that line from its next execution on (line events on that code object alone).
    The first wait at each such line has no marker; none is ever placed after its wait.
- Line markers: the same record_function with {"line": 1, "stack": [...]} (the user's frames only),
  on the calling thread each time a line of the user's code starts, and where a frame of the user's
  code goes on after a call into it returned: every call on that thread until its next line marker
  was made by that line (a kernel launched inside nn.Module code called from line 20 is line 20's).
  The user's code is every file outside site-packages, dist-packages, Python's standard library and
  this launcher. A trace function (sys.settrace, and threading.settrace for threads started later)
  follows the user's frames alone; a line marker is emitted only where the line differs from the
  thread's last one.
- Lines on stderr that start with "syncscope-profile: " are progress for Syncscope to show;
  "syncscope-profile: error <kind>: <text>" is a failure of the launcher itself.
- Exit status: the script's own (0, its sys.exit code, 1 when it raised, 130 on SIGINT, 143 on
  SIGTERM); the trace still holds what was recorded. The launcher's own failures: 64 usage,
  65 torch missing, 66 script not found, 67 CUDA unavailable, 70 the trace could not be written.
Standard library and torch only.
"""

import argparse
import contextlib
import ctypes
import importlib
import gzip
import json
import os
import runpy
import shutil
import signal
import sys
import threading
import time
import traceback
import warnings
from urllib.parse import quote

PREFIX = "syncscope-profile: "
MARKER = "syncscope.site:"
# Emitted just after a call whose line was learned from its warning, once the op had returned: the
# importer gives it to the wait just before it, so the first wait at that line has its line too.
MARKER_AFTER = "syncscope.after:"
MARKER_SAFE = "/:,[]{}<>()' "
MAX_FRAMES = 32
# Plain steps run untimed before the timed ones: the first steps after the recording of the run's
# start still warm up (allocator, autotuning), and the profiler has just stopped.
PLAIN_SETTLE = 2
SYNC_WARNING = "called a synchronizing CUDA operation"
EXIT_USAGE, EXIT_NO_TORCH, EXIT_NO_SCRIPT, EXIT_NO_CUDA, EXIT_WRITE = 64, 65, 66, 67, 70
_LAUNCHER_FILES = {os.path.abspath(__file__), os.path.abspath(runpy.__file__), os.path.abspath("<frozen runpy>")}
_WARNINGS_FILES = {"warnings.py", "_py_warnings.py"}
_launcher_by_name = {}


def progress(text):
    sys.stderr.write(PREFIX + text + "\n")
    sys.stderr.flush()


def fail(kind, text, code):
    progress(f"error {kind}: {text}")
    sys.exit(code)


class _Stop(BaseException):
    """Ends the script early: the recording is complete, its time is up, or it was cancelled."""

    def __init__(self, status, why):
        super().__init__(why)
        self.status = status
        self.why = why


def _is_launcher(frame):
    name = frame.f_code.co_filename
    known = _launcher_by_name.get(name)
    if known is None:
        known = _launcher_by_name[name] = os.path.abspath(name) in _LAUNCHER_FILES
    return known


_DYNAMO_EVAL_FRAME = os.path.join("torch", "_dynamo", "eval_frame.py")


def _compiled_prologue(frame):
    """Whether `frame` runs torch.compile's code for a function: TorchDynamo's frame evaluation
    called it, and it is at its code's first line (the decorator or the def) while the compiled
    graph runs. That line is where the function begins, not one that ran: the frame is left out of
    the stacks, so that the call sits at the line that called the compiled function."""
    back = frame.f_back
    return (
        back is not None
        and frame.f_lineno == frame.f_code.co_firstlineno
        and back.f_code.co_filename.endswith(_DYNAMO_EVAL_FRAME)
    )


def stack_of(frame):
    """[[file, line, function], ...] from `frame` outwards, the launcher's and runpy's frames and
    torch.compile's prologues dropped."""
    out = []
    while frame is not None and len(out) < MAX_FRAMES:
        if not _is_launcher(frame) and not _compiled_prologue(frame):
            out.append([frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name])
        frame = frame.f_back
    return out


_user_by_name = {}
_STDLIB = os.path.dirname(os.__file__)


def is_user_code(code):
    """Whether a code object is the user's: not site-packages, dist-packages, torch.compile's generated code, the standard library or the launcher."""
    name = code.co_filename
    known = _user_by_name.get(name)
    if known is None:
        path = os.path.abspath(name)
        parts = path.replace(os.sep, "/").split("/")
        known = _user_by_name[name] = not (
            name.startswith("<")
            or "site-packages" in parts
            or "dist-packages" in parts
            or any(part.startswith("torchinductor_") for part in parts)  # torch.compile's generated code
            or path.startswith(_STDLIB + os.sep)
            or path in _LAUNCHER_FILES
        )
    return known


def user_stack_of(frame):
    """[[file, line, function], ...] of the user's frames from `frame` outwards, torch.compile's
    prologues dropped."""
    out = []
    while frame is not None and len(out) < MAX_FRAMES:
        if is_user_code(frame.f_code) and not _compiled_prologue(frame):
            out.append([frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name])
        frame = frame.f_back
    return out


class Sites:
    """Emits the call-site markers: before explicit synchronize calls, and before lines known to sync."""

    def __init__(self, torch):
        self.record_function = torch.profiler.record_function
        self.known = {}  # code object -> set of line numbers whose ATen op synchronized
        self.local = threading.local()
        self.lines = LineEvents(self)
        self.paused = False  # the plain steps: no marker, no line event

    def mark(self, frame, prefix=MARKER, line=False):
        """A marker for `frame`'s stack; a line marker for no frame ends the thread's user code: no line from here."""
        stack = [] if frame is None else user_stack_of(frame) if line else stack_of(frame)
        if stack or line:
            fields = {"line": 1, "stack": stack} if line else {"stack": stack}
            # Kineto writes event names into its JSON without escaping them: the marker's JSON is
            # percent-encoded, so that no quote or backslash of a path or name reaches the trace.
            name = prefix + quote(json.dumps(fields, separators=(",", ":")), safe=MARKER_SAFE)
            with self.record_function(name):
                pass

    @contextlib.contextmanager
    def launcher_work(self):
        """The launcher's own calls (the profiler's step and stop): torch.cuda.synchronize() inside
        them is the profiler's, so no call-site marker names the user's line it was called under."""
        self.local.explicit = getattr(self.local, "explicit", 0) + 1
        try:
            yield
        finally:
            self.local.explicit -= 1

    def wrap(self, owner, attribute, when=None):
        """Marks each call of owner.attribute before it runs; `when(*args)` says which calls wait."""
        original = getattr(owner, attribute, None)
        if original is None:
            return
        sites = self

        def wrapper(*args, **kwargs):
            if sites.paused:
                return original(*args, **kwargs)
            depth = getattr(sites.local, "explicit", 0)
            # The outermost wrapped call is the site; calls it makes inside torch are not.
            if depth == 0 and (when is None or when(*args)):
                sites.mark(sys._getframe(1))
            sites.local.explicit = depth + 1
            try:
                return original(*args, **kwargs)
            finally:
                sites.local.explicit = depth

        wrapper.__name__ = getattr(original, "__name__", attribute)
        wrapper.__doc__ = getattr(original, "__doc__", None)
        setattr(owner, attribute, wrapper)

    def learn(self, filename, lineno):
        """Called from the warnings hook: the frame the warning names (its innermost, for torch's own) synchronized."""
        if getattr(self.local, "explicit", 0):
            return  # an explicit synchronize, already marked by its wrapper
        frame = innermost = sys._getframe(2)
        while frame is not None and (frame.f_code.co_filename != filename or frame.f_lineno != lineno):
            frame = frame.f_back
        if frame is None:  # no frame matches: the innermost one outside the warnings machinery
            frame = innermost
            while frame is not None and (
                _is_launcher(frame) or os.path.basename(frame.f_code.co_filename) in _WARNINGS_FILES
            ):
                frame = frame.f_back
        if frame is None:
            return
        lines = self.known.setdefault(frame.f_code, set())
        if frame.f_lineno not in lines:
            lines.add(frame.f_lineno)
            self.mark(frame, MARKER_AFTER)  # this first wait: its line, after the fact
            self.lines.watch(frame)


class LineEvents:
    """Line events on the code objects that hold a known synchronizing line, and nowhere else."""

    def __init__(self, sites):
        self.sites = sites
        self.monitoring = getattr(sys, "monitoring", None)
        self.tool = None
        if self.monitoring is not None:
            for tool in (5, 4, 3, 1):
                try:
                    self.monitoring.use_tool_id(tool, "syncscope")
                except ValueError:
                    continue
                self.tool = tool
                self.monitoring.register_callback(tool, self.monitoring.events.LINE, self.on_line)
                self.monitoring.register_callback(tool, self.monitoring.events.PY_RETURN, self.on_return)
                break
        self.steps = None  # while the hooks are paused: {step code: its events before}, the step and its hook

    def count_steps(self, codes, step_on, on_step):
        """A --step-on step seen while the hooks are paused, through events on the step's own code
        objects alone; False where there is no sys.monitoring (before Python 3.12)."""
        if self.tool is None:
            return False
        event = self.monitoring.events.LINE if step_on.line else self.monitoring.events.PY_RETURN
        before = {code: self.monitoring.get_local_events(self.tool, code) for code in codes}
        self.steps = (before, step_on, on_step)
        for code, events in before.items():
            self.monitoring.set_local_events(self.tool, code, events | event)
        self.monitoring.restart_events()
        return True

    def stop_counting_steps(self):
        if self.steps is None:
            return
        for code, events in self.steps[0].items():
            self.monitoring.set_local_events(self.tool, code, events)
        self.steps = None

    def on_return(self, code, _offset, _value):
        if self.steps is None or code not in self.steps[0]:
            return self.monitoring.DISABLE
        _before, step_on, on_step = self.steps
        if step_on.ends_at_return(code):
            on_step()
        return None

    def on_line(self, code, line):
        if self.steps is not None and code in self.steps[0]:
            _before, step_on, on_step = self.steps
            if step_on.ends_at_line(code, line):
                on_step()
            return None  # the step's code keeps its line events while the hooks are paused
        if self.sites.paused:
            return None
        lines = self.sites.known.get(code)
        if lines is None or line not in lines:
            return self.monitoring.DISABLE
        self.sites.mark(sys._getframe(1))
        return None

    def watch(self, frame):
        if self.tool is not None:
            self.monitoring.set_local_events(self.tool, frame.f_code, self.monitoring.events.LINE)
            self.monitoring.restart_events()  # lines disabled before may sync now
        # Before Python 3.12, the user's lines reach on_traced_line through UserLines' trace function.

    def on_traced_line(self, frame):
        if self.tool is None and frame.f_lineno in self.sites.known.get(frame.f_code, ()):
            self.sites.mark(frame)


_GENERATOR_FLAGS = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR


class StepOn:
    """--step-on WHAT: the user's function whose every return ends a step, or the line whose every start does."""

    def __init__(self, what):
        self.what = what
        head, sep, tail = what.rpartition(":")
        self.file, self.line = (head, int(tail)) if sep and head and tail.isdigit() else (None, None)
        self.function = None if self.line else what
        self._codes = {}

    def codes(self):
        """The code objects seen so far that hold the step."""
        return [code for code, known in self._codes.items() if known]

    def describe(self):
        return f"line {self.what}" if self.line else f"function {self.what}"

    def ends_at_return(self, code):
        if self.function is None:
            return False
        known = self._codes.get(code)
        if known is None:
            qualname = getattr(code, "co_qualname", code.co_name)  # Python 3.11 on
            known = self._codes[code] = self.function in (code.co_name, qualname) or qualname.endswith("." + self.function)
        return known

    def ends_at_line(self, code, line):
        if line != self.line:
            return False
        known = self._codes.get(code)
        if known is None:
            path = os.path.abspath(code.co_filename)
            known = self._codes[code] = path == os.path.abspath(self.file) or path.endswith(os.sep + self.file)
        return known


class UserLines:
    """The line markers, and the --step-on steps: a trace function that follows the user's frames and nothing else."""

    def __init__(self, sites, step_on=None, on_step=None):
        self.sites = sites
        self.step_on = step_on
        self.on_step = on_step
        self.last = threading.local()
        self.paused = False
        self.step_codes = ()

    def install(self):
        self.paused = False
        self.sites.lines.stop_counting_steps()
        self._set_trace(self.on_call)

    def pause(self):
        """No line is followed: the plain steps run as the script would alone. A --step-on step is
        still seen, through events on the step's own code objects alone."""
        self.paused = True
        self._set_trace(None)
        self.last = threading.local()
        if self.step_on is None:
            return
        self.step_codes = frozenset(self.step_on.codes())
        if not self.sites.lines.count_steps(self.step_codes, self.step_on, self.on_step):
            self._set_trace(self.on_step_call)

    def on_step_call(self, frame, _event, _arg):
        return self.on_event if frame.f_code in self.step_codes else None

    def _set_trace(self, function):
        # Python 3.12 sets every running thread's trace function at once; before it, the threads the
        # script already started keep theirs.
        every = getattr(threading, "settrace_all_threads", None)
        if every is not None:
            every(function)
        else:
            sys.settrace(function)
            threading.settrace(function)

    def on_call(self, frame, event, arg):
        if not is_user_code(frame.f_code):
            return None  # no line events in library code
        if frame.f_code.co_flags & _GENERATOR_FLAGS:
            self.emit(frame)  # a resumed generator goes on at its line, which starts no new line event
        return self.on_event

    def on_event(self, frame, event, arg):
        if self.paused:
            # A frame that kept this function from before the pause, or the step's own code: the
            # step alone is looked for.
            if event == "line" and self.step_on is not None and self.step_on.ends_at_line(frame.f_code, frame.f_lineno):
                self.on_step()
            elif event == "return" and self.step_on is not None and self.step_on.ends_at_return(frame.f_code):
                self.on_step()
            return self.on_event
        if event == "line":
            self.sites.lines.on_traced_line(frame)
            if self.step_on is not None and self.step_on.ends_at_line(frame.f_code, frame.f_lineno):
                self.on_step()
            self.emit(frame)
        elif event == "return":
            if self.step_on is not None and self.step_on.ends_at_return(frame.f_code):
                self.on_step()
            # Back in the caller: the nearest frame of the user's code above goes on with its line.
            # With none, the thread's user code is done (the script's end, or a thread's target
            # returned): what the thread calls next, the profiler's own stop included, is no line's.
            caller = frame.f_back
            while caller is not None and not is_user_code(caller.f_code):
                caller = caller.f_back
            self.emit(caller)
        return self.on_event

    def emit(self, frame):
        key = None if frame is None else (frame.f_code, frame.f_lineno)
        if getattr(self.last, "key", 0) == key:
            return
        self.last.key = key
        self.sites.mark(frame, line=True)


def _on_gpu(tensor, *_args):
    return getattr(tensor, "is_cuda", False) is True


class SyncDebug:
    """torch's sync-debug mode, set without starting CUDA: torch.cuda.set_sync_debug_mode starts it,
    and a script that has not used CUDA yet may still choose its devices (CUDA_VISIBLE_DEVICES) or
    fork, and allocates its host memory before CUDA starts. Until CUDA starts, the mode asked for
    last is set as it starts, by a call torch queues for then."""

    def __init__(self, torch):
        self.cuda = torch.cuda
        self.mode = 0
        self.queued = False

    def set(self, mode):
        self.mode = mode
        is_initialized = getattr(self.cuda, "is_initialized", None)
        lazy_call = getattr(self.cuda, "_lazy_call", None)
        if is_initialized is None or lazy_call is None or is_initialized():
            self.cuda.set_sync_debug_mode(mode)
        elif not self.queued:
            self.queued = True
            lazy_call(self.on_cuda_start)

    def on_cuda_start(self):
        try:
            self.cuda.set_sync_debug_mode(self.mode)
        except Exception as e:  # noqa: BLE001 - a failure here would fail the script's first CUDA call
            progress(f"synchronizing ATen ops keep no call site: set_sync_debug_mode failed ({e})")


class SyncClock:
    """The time the script's threads spend in the CUDA runtime's synchronizing calls, from the sync
    clock that `syncscope profile` preloads (native/sync-clock, named by SYNCSCOPE_SYNC_CLOCK):
    the first thread's (the script's own) and all the others' (autograd's engine, loader threads).
    Live only once a synchronize of the launcher's own was counted: a program whose CUDA runtime is
    linked in statically never calls the preloaded one, and its waits are then unknown, not none."""

    def __init__(self, path):
        self.read_into = None
        self.live = False
        self.since = None
        if not path:
            return
        try:
            self.read_into = ctypes.CDLL(path).syncscope_sync_clock
        except (OSError, AttributeError) as e:
            progress(f"the plain steps' waits are not timed: the sync clock does not load ({e})")

    def read(self):
        sums = (ctypes.c_uint64 * 4)()
        self.read_into(sums)
        return tuple(sums)

    def start(self, synchronize):
        """Runs `synchronize` (the launcher's own, on an idle GPU) and starts the clock after it."""
        if self.read_into is None:
            return synchronize()
        before = self.read()
        synchronize()
        self.since = self.read()
        # On whichever thread the step hook ran: the calls of all threads together.
        self.live = self.since[1] + self.since[3] > before[1] + before[3]
        if not self.live:
            progress("the plain steps' waits are not timed: this program's CUDA runtime does not call the sync clock")

    def stop(self, steps):
        """The first thread's and the other threads' time in synchronizing calls per step since start, or None."""
        if not self.live or self.since is None:
            return None
        now = self.read()
        return (now[0] - self.since[0]) / steps, (now[2] - self.since[2]) / steps


class CallClock:
    """The time spent in some functions while started: thin wrappers around `targets` ((owner, name)
    pairs), put in place by start and taken away by stop. A call made inside a counted one is not
    counted again; `counts(args)` says whether a call counts at all; `clock` is the clock read."""

    def __init__(self, targets, clock=time.perf_counter_ns, counts=lambda args: True):
        self.targets = [(owner, name) for owner, name in targets if callable(getattr(owner, name, None))]
        self.clock = clock
        self.counts = counts
        self.replaced = []
        self.ns = 0
        self.inside = threading.local()

    def start(self):
        self.ns = 0
        for owner, name in self.targets:
            original = getattr(owner, name)
            self.replaced.append((owner, name, original))
            setattr(owner, name, self._timed(original))

    def stop(self):
        """Puts the originals back; the time spent in the functions since start, in ns."""
        for owner, name, original in reversed(self.replaced):
            setattr(owner, name, original)
        self.replaced = []
        return self.ns

    def _timed(self, original):
        clock = self

        def timed(*args, **kwargs):
            if getattr(clock.inside, "yes", False) or not clock.counts(args):
                return original(*args, **kwargs)
            clock.inside.yes = True
            begin = clock.clock()
            try:
                return original(*args, **kwargs)
            finally:
                clock.ns += clock.clock() - begin
                clock.inside.yes = False

        timed.__wrapped__ = original
        return timed


def backward_clock(torch):
    """The time the script spends in autograd's backward pass: Tensor.backward and
    torch.autograd.backward (the first calls the second)."""
    owners = (getattr(torch, "Tensor", None), getattr(torch, "autograd", None))
    return CallClock([(owner, "backward") for owner in owners if owner is not None])


def batch_receive_clock():
    """The CPU time the script's own thread spends receiving a DataLoader's batches from its worker
    processes: _MultiProcessingDataLoaderIter._try_get_data reads the workers' result queue (it
    unpickles each batch and maps its shared memory) where the loader does not pin the batches; with
    pin_memory=True the loader's pin thread reads that queue, and this reads the pin thread's. The
    thread's CPU time leaves out the time it waited for a worker, which a pin thread does not save."""
    # A script that uses no DataLoader has not imported it by its first steps: nothing to time.
    owner = getattr(sys.modules.get("torch.utils.data.dataloader"), "_MultiProcessingDataLoaderIter", None)
    if owner is None:
        return CallClock([])

    def unpinned_on_main_thread(args):
        pinned = getattr(args[0], "_pin_memory", True) if args else True
        return not pinned and threading.current_thread() is threading.main_thread()

    return CallClock([(owner, "_try_get_data")], time.thread_time_ns, unpinned_on_main_thread)


def install_sites(torch, recording):
    sites = Sites(torch)
    sync_debug = SyncDebug(torch)
    lines = UserLines(sites, recording.step_on, recording.on_step)
    lines.install()
    recording.mark_end = lambda: lines.emit(None)
    recording.launcher_work = sites.launcher_work

    def pause():
        sites.paused = True
        lines.pause()
        sync_debug.set(0)

    def resume():
        sync_debug.set(1)  # "warn"
        lines.install()
        sites.paused = False

    recording.pause_hooks, recording.resume_hooks = pause, resume
    sites.wrap(torch.cuda, "synchronize")
    sites.wrap(torch.cuda.Stream, "synchronize")
    sites.wrap(torch.cuda.Event, "synchronize")
    # Reading a CUDA tensor's value on the host always waits for it: marked on the first run too,
    # where a sync-debug warning would only teach the line after its wait.
    tensor = getattr(torch, "Tensor", None)
    if tensor is not None:
        for name in ("item", "tolist", "cpu", "__bool__", "__float__", "__int__"):
            sites.wrap(tensor, name, when=_on_gpu)
    original_show = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, UserWarning) and str(message).startswith(SYNC_WARNING):
            sites.learn(filename, lineno)
            return  # ours: never printed
        original_show(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning
    # Every sync must reach the hook, whatever the script's own filters say about UserWarning.
    warnings.filterwarnings("always", message=SYNC_WARNING, category=UserWarning)
    try:
        sync_debug.set(1)  # "warn"
    except (AttributeError, RuntimeError) as e:
        progress(f"synchronizing ATen ops keep no call site: set_sync_debug_mode failed ({e})")
    return sites


def profiler_options(torch):
    from torch.profiler import ProfilerActivity

    options = {"activities": [ProfilerActivity.CPU, ProfilerActivity.CUDA], "with_stack": True}
    config = getattr(getattr(torch._C, "_profiler", None), "_ExperimentalConfig", None)
    # Without profile_all_threads, torch records ops (and so the markers) on the thread that started
    # the profiler and the threads torch itself starts, not on the script's own threads.
    for fields in ({"enable_cuda_sync_events": True, "profile_all_threads": True}, {"enable_cuda_sync_events": True}):
        try:
            options["experimental_config"] = config(**fields)
        except (TypeError, RuntimeError):
            continue
        if "profile_all_threads" not in fields:
            progress("this torch profiles only the main thread's ops: waits on other threads have no line")
        return options
    progress("this torch records no cuda_sync events; waits are found from the CUDA calls alone")
    return options


class Recording:
    """The profiler, its schedule (the whole run, or warm-up then N steps) and the trace file."""

    def __init__(self, torch, out, steps, warmup, seconds, step_on=None, plain=0, plain_only=False):
        self.torch = torch
        # Only the plain steps are run and timed, for a recorder that cannot pause (a capture).
        self.plain_only = plain_only
        self.out = out
        self.steps = steps
        self.plain = max(0, plain)
        # The plain steps come first, with the profiler off; the first of them settle, untimed.
        self.settle = PLAIN_SETTLE if self.plain else 0
        self.warmup = self.settle + self.plain + max(1, warmup)
        self.seconds = seconds
        self.step_on = StepOn(step_on) if step_on else None
        self.steps_seen = 0
        self.mark_end = None  # ends the calling thread's user code in the trace (install_sites sets it)
        self.launcher_work = contextlib.nullcontext  # no call-site markers inside (install_sites sets it)
        self.pause_hooks = self.resume_hooks = lambda: None  # the plain steps' (install_sites sets them)
        self.plain_started = None
        self.plain_step_ns = None
        self.backward = backward_clock(torch)
        self.backward_ns = 0
        self.batch_receive = CallClock([])  # begin_plain makes it, once the script's imports are done
        self.batch_receive_ns = 0
        self.sync_clock = SyncClock(os.environ.get("SYNCSCOPE_SYNC_CLOCK"))
        self.waits_ns = None
        self.discard_next = False
        # The step whose end starts the profiler: 0, at launch; with plain steps, once they are timed.
        # Kineto leaves CUPTI attached to the process when it stops, and every launch after pays for
        # it: plain steps after any recording are not the script's own speed.
        self.profiler_from = self.settle + self.plain + 1 if self.plain else 0
        self.profiling = False
        self.written = False
        self.write_error = None
        self.stopped = False
        self.time_up = False
        self.prof_options = profiler_options(torch)
        self.prof = None

    def schedule(self, step):
        from torch.profiler import ProfilerAction

        step += self.profiler_from  # the profiler counts from its start
        if self.steps_seen == 0:
            # The whole run until the first step ends, handed to trace_ready when it does (and then
            # dropped): torch stops a plain RECORD left for WARMUP without preparing the next one,
            # and its next start then brings the process down.
            return ProfilerAction.RECORD_AND_SAVE
        if step <= self.settle + self.plain:
            return ProfilerAction.NONE
        if step <= self.warmup:
            return ProfilerAction.WARMUP
        if step < self.warmup + self.steps:
            return ProfilerAction.RECORD
        if step == self.warmup + self.steps:
            return ProfilerAction.RECORD_AND_SAVE
        return ProfilerAction.NONE

    def describe_plain(self):
        return f"{self.settle + self.plain} plain steps ({self.plain} timed), " if self.plain else ""

    def describe_steps(self):
        if self.plain_only:
            return f"{self.settle + self.plain} plain steps, the last {self.plain} timed"
        warmup = self.warmup - self.settle - self.plain
        return f"{self.describe_plain()}{warmup} warm-up steps, then {self.steps} recorded"

    def what_steps(self):
        return self.step_on.describe() if self.step_on else "optimizer"

    def start(self):
        if self.step_on is None:
            # torch/optim/__init__.py deletes its submodules' names: the module is found by import.
            try:
                hook = importlib.import_module("torch.optim.optimizer").register_optimizer_step_post_hook
            except (ImportError, AttributeError):
                progress("this torch has no global optimizer step hook: the run is recorded whole (--step-on names a step)")
            else:
                hook(self.on_step)
        if self.profiler_from == 0:
            self.start_profiler()
        timer = threading.Timer(self.seconds, self.on_time_up)
        timer.daemon = True
        timer.start()

    def on_step(self, *_hook_args):
        if self.stopped or self.time_up:
            return
        self.steps_seen += 1
        k = self.steps_seen
        if k == 1:
            # What ran before the first step is not one of the steps asked for.
            self.discard_next = self.profiling
            progress(f"{self.what_steps()} found: {self.describe_steps()}")
        if k <= self.settle + self.plain:
            progress(f"plain step {k}/{self.settle + self.plain}")
        elif self.plain_only:
            pass
        elif k <= self.warmup:
            progress(f"warm-up step {k - self.settle - self.plain}/{self.warmup - self.settle - self.plain}")
        elif k <= self.warmup + self.steps:
            progress(f"step {k - self.warmup}/{self.steps}")
        elif k == self.warmup + self.steps + 1 and self.mark_end is not None:
            # This step() stops the recording, and the profiler's device sync as it stops is made
            # inside the user's line that ended the step: it is no line's.
            self.mark_end()
        if k == self.settle + self.plain + 1 and self.plain_started is not None:
            self.end_plain()
            if self.plain_only:
                self.say_plain()
                raise _Stop(0, f"{self.plain} plain steps timed")
        if k == self.profiler_from:
            self.start_profiler()
        elif self.profiling:
            with self.launcher_work():
                self.prof.step()
        if k == 1 and self.plain:
            self.pause_hooks()
        if k == self.settle + 1 and self.plain:
            self.begin_plain()
        elif k == self.warmup + 1 and self.plain_step_ns is not None:
            self.mark_plain()
        if self.written:
            raise _Stop(0, f"{self.steps} steps recorded")

    def start_profiler(self):
        """Made when it starts: torch asks the schedule for the first action as it makes it."""
        from torch.profiler import profile

        self.prof = profile(schedule=self.schedule, on_trace_ready=self.trace_ready, **self.prof_options)
        with self.launcher_work():
            self.prof.start()
        self.profiling = True

    def begin_plain(self):
        """The profiler and the launcher's hooks are off: the clock starts on an idle GPU."""
        self.sync_clock.start(self.torch.cuda.synchronize)
        self.backward.start()
        self.batch_receive = batch_receive_clock()
        self.batch_receive.start()
        self.plain_started = time.perf_counter_ns()

    def end_plain(self):
        self.torch.cuda.synchronize()
        self.plain_step_ns = (time.perf_counter_ns() - self.plain_started) / self.plain
        self.backward_ns = self.backward.stop() / self.plain
        self.batch_receive_ns = self.batch_receive.stop() / self.plain
        self.waits_ns = self.sync_clock.stop(self.plain)
        self.plain_started = None
        self.resume_hooks()
        progress(f"plain steps: {self.plain_step_ns / 1e6:.3f} ms per step without the profiler")

    def plain_fields(self):
        plain = {"stepNs": round(self.plain_step_ns), "steps": self.plain}
        if self.step_on is not None:
            plain["stepOn"] = self.step_on.what  # the step is the user's, not the optimizer's
        if round(self.backward_ns) > 0:
            plain["backwardNs"] = round(self.backward_ns)
        if self.waits_ns is not None:
            plain["syncNs"], plain["otherSyncNs"] = (round(ns) for ns in self.waits_ns)
        if round(self.batch_receive_ns) > 0:
            plain["batchReceiveNs"] = round(self.batch_receive_ns)
        return {"plain": plain}

    def say_plain(self):
        """The plain speed, for the caller: the run records nothing else."""
        self.written = True
        progress("plain step measured " + json.dumps(self.plain_fields(), separators=(",", ":")))

    def mark_plain(self):
        """The plain speed, in the recording that has just begun."""
        fields = self.plain_fields()
        with self.launcher_work(), self.torch.profiler.record_function(
            MARKER + quote(json.dumps(fields, separators=(",", ":")), safe=MARKER_SAFE)
        ):
            pass

    def on_time_up(self):
        if self.steps_seen == 0 and not self.stopped:
            self.time_up = True
            import _thread

            _thread.interrupt_main()

    def trace_ready(self, prof):
        if self.discard_next:
            self.discard_next = False
            return
        try:
            self.write(prof)
        except Exception as e:  # noqa: BLE001 - reported once the script has stopped, never inside it
            self.write_error = e

    def write(self, prof):
        progress(f"writing trace {self.out}")
        directory = os.path.dirname(os.path.abspath(self.out))
        os.makedirs(directory, exist_ok=True)
        plain = os.path.join(directory, f".{os.path.basename(self.out)}.{os.getpid()}.json")
        packed = plain + ".gz"
        try:
            prof.export_chrome_trace(plain)
            with open(plain, "rb") as src, gzip.open(packed, "wb", compresslevel=6) as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            os.replace(packed, self.out)
        finally:
            for leftover in (plain, packed):
                if os.path.exists(leftover):
                    os.remove(leftover)
        self.written = True
        progress(f"trace written {self.out}")

    def stop(self):
        if self.stopped:
            return
        self.stopped = True
        if self.profiling:
            with self.launcher_work():
                self.prof.stop()


def _cancel(signum, _frame):
    raise _Stop(128 + signum, f"cancelled ({signal.Signals(signum).name})")


def run_script(script, args, recording):
    """Runs the script as `python script args` would; returns its exit status."""
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(script)
    try:
        runpy.run_path(script, run_name="__main__")
        return 0
    except _Stop as stop:
        progress(f"stopping the script: {stop.why}")
        return stop.status
    except KeyboardInterrupt:
        if recording.time_up:
            progress(f"stopping the script: time limit of {recording.seconds:g} s reached")
            return 0
        progress("stopping the script: cancelled (SIGINT)")
        return 130
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        sys.stderr.write(f"{e.code}\n")
        return 1
    except BaseException as e:  # the script's own failure: shown as Python would, minus our frames
        tb = e.__traceback__
        while tb is not None and _is_launcher(tb.tb_frame):
            tb = tb.tb_next
        traceback.print_exception(type(e), e, tb)
        progress(f"the script raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": "))
        return 1


def parse(argv):
    parser = argparse.ArgumentParser(prog="syncscope_profile.py", add_help=True)
    parser.add_argument("--out")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    # Off unless asked: a script with few steps would spend them unrecorded.
    parser.add_argument("--plain-steps", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--step-on", default=None)
    parser.add_argument("--plain-only", action="store_true")
    if "--" not in argv:
        fail("usage", "expected -- SCRIPT [ARGS...]", EXIT_USAGE)
    split = argv.index("--")
    options = parser.parse_args(argv[:split])
    rest = argv[split + 1 :]
    if not rest:
        fail("usage", "expected the script after --", EXIT_USAGE)
    if options.steps < 1 or options.seconds <= 0 or options.plain_steps < 0:
        fail("usage", "--steps must be at least 1, --plain-steps at least 0 and --seconds above 0", EXIT_USAGE)
    if not options.out and not options.plain_only:
        fail("usage", "--out names the trace to write", EXIT_USAGE)
    if options.plain_only and options.plain_steps < 1:
        fail("usage", "--plain-only times the plain steps: give --plain-steps 1 or more", EXIT_USAGE)
    return options, os.path.abspath(rest[0]), rest[1:]


def main(argv):
    options, script, args = parse(argv)
    if not os.path.isfile(script):
        fail("no-script", f"{script}: no such file", EXIT_NO_SCRIPT)
    try:
        import torch
        import torch.profiler  # noqa: F401
    except ImportError as e:
        fail("no-torch", f"{sys.executable} cannot import torch ({e}); install PyTorch for this interpreter", EXIT_NO_TORCH)
    if not torch.cuda.is_available():
        fail("no-cuda", f"torch {torch.__version__} sees no CUDA device; profiling needs an NVIDIA GPU", EXIT_NO_CUDA)
    recording = Recording(
        torch,
        options.out,
        options.steps,
        options.warmup,
        options.seconds,
        options.step_on,
        options.plain_steps,
        options.plain_only,
    )
    install_sites(torch, recording)
    if recording.plain and recording.step_on is None:
        # Nothing is recorded before the plain steps are timed, and the optimizer's hook needs no
        # tracer to see a step: the script starts as it would alone. A --step-on step's code
        # objects are found by the tracer, which runs until the first step ends.
        recording.pause_hooks()
    signal.signal(signal.SIGTERM, _cancel)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even where the parent started us ignoring it
    if options.plain_only:
        progress(f"timing {os.path.basename(script)} alone: {recording.describe_steps()} ({recording.what_steps()} steps)")
    else:
        # Without plain steps the run is recorded until the first step ends; with them, nothing is.
        whole = "" if recording.plain else f", or the first {options.seconds:g} s if no step ends"
        progress(
            f"profiling {os.path.basename(script)}: {options.steps} steps ({recording.what_steps()}) after"
            f" {recording.describe_plain()}{recording.warmup - recording.settle - recording.plain} warm-up steps{whole}"
        )
    recording.start()
    status = run_script(script, args, recording)
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the trace is being written: a second Ctrl-C must not lose it
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        recording.stop()
    except Exception as e:  # noqa: BLE001 - one line, not a stack
        recording.write_error = e
    if recording.write_error is not None:
        fail("write", f"{options.out}: the trace could not be written ({recording.write_error})", EXIT_WRITE)
    if not recording.written and recording.plain and recording.steps_seen == 0:
        nothing = "nothing was timed" if options.plain_only else "nothing is recorded before the plain steps; nothing was written"
        progress(
            f"error no-trace: no step ended ({recording.what_steps()} steps); {nothing}"
            " (--step-on names the step, --seconds gives the script longer to reach it)"
        )
    elif not recording.written:
        what = "its plain steps were timed" if options.plain_only else "a recorded step"
        progress(f"error no-trace: the script ended before {what}; nothing was written")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
