"""Times the programs with no recorder: buggy and fixed alternating, RUNS times each.

Usage: plain_runs.py OUT_TSV RUNS NAME... -- PROGRAM_ARGS...
Each run is a child forked from this process after `import torch` and before CUDA starts, so that a
run costs the program's own time and not the import's; the child runs the program as `__main__`
with its own argv and writes its output to <OUT_TSV's folder>/<name>.<variant>.<run>.log. A row
`name variant run rc iter_ns` is appended to OUT_TSV as each run ends.
"""

import os
import runpy
import signal
import sys
import time

import torch  # noqa: F401  imported once here; every child inherits it

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")
out_tsv, runs = sys.argv[1], int(sys.argv[2])
split = sys.argv.index("--")
names, program_args = sys.argv[3:split], sys.argv[split + 1 :]


def run_child(name, variant, run, log):
    pid = os.fork()
    if pid == 0:
        code = 1
        signal.alarm(90)  # a run that hangs ends as a failed run, not the recording's end
        try:
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            sys.path.insert(0, here)
            program = os.path.join(here, name + ".py")
            sys.argv = [program] + (["--fixed"] if variant == "fixed" else []) + program_args
            runpy.run_path(program, run_name="__main__")
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException as e:  # the run failed: say why in its log
            print(f"{type(e).__name__}: {e}", file=sys.stderr)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


for name in names:
    began = time.time()
    for run in range(1, runs + 1):
        for variant in ("buggy", "fixed"):
            log = os.path.join(os.path.dirname(out_tsv), f"{name}.{variant}.{run}.log")
            rc = run_child(name, variant, run, log)
            ns = ""
            for line in open(log, errors="replace"):
                if line.startswith("iter_ns "):
                    ns = line.split()[1]
            with open(out_tsv, "a") as f:
                f.write(f"{name}\t{variant}\t{run}\t{rc}\t{ns}\n")
    print(f"timed {name}: {runs} x 2 runs in {time.time() - began:.0f} s", flush=True)
