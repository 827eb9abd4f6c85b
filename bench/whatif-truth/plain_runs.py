"""Times the programs with no recorder: buggy and fixed alternating, RUNS times each.

Usage: plain_runs.py OUT_TSV RUNS NAME... -- PROGRAM_ARGS...
Each run is a process of its own, `python3 <program>.py [--fixed] PROGRAM_ARGS...`, started afresh
as a user runs the program and as the traced processes start (the program times its own steps, so
the start costs nothing of what is measured). Its output goes to
<OUT_TSV's folder>/<name>.<variant>.<run>.log. A row `name variant run rc iter_ns` is appended to
OUT_TSV as each run ends.
"""

import os
import subprocess
import sys
import time

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")
out_tsv, runs = sys.argv[1], int(sys.argv[2])
split = sys.argv.index("--")
names, program_args = sys.argv[3:split], sys.argv[split + 1 :]


def run(name, variant, log):
    """The run's exit status; a run that hangs ends as a failed run, not the recording's end."""
    program = os.path.join(here, name + ".py")
    argv = [sys.executable, program] + (["--fixed"] if variant == "fixed" else []) + program_args
    with open(log, "w") as out:
        try:
            return subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, cwd=here, timeout=90).returncode
        except subprocess.TimeoutExpired:
            out.write("timed out after 90 s\n")
            return 124


for name in names:
    began = time.time()
    for k in range(1, runs + 1):
        for variant in ("buggy", "fixed"):
            log = os.path.join(os.path.dirname(out_tsv), f"{name}.{variant}.{k}.log")
            rc = run(name, variant, log)
            ns = ""
            for line in open(log, errors="replace"):
                if line.startswith("iter_ns "):
                    ns = line.split()[1]
            with open(out_tsv, "a") as f:
                f.write(f"{name}\t{variant}\t{k}\t{rc}\t{ns}\n")
    print(f"timed {name}: {runs} x 2 runs in {time.time() - began:.0f} s", flush=True)
