#!/usr/bin/env bash
# Records the what-if truth benchmark on a GPU machine, from the repository root, with dist/ and
# build/Release/ built and node and a CUDA PyTorch (python3) on PATH. For each program of
# bench/whatif-truth/manifest.json: RUNS (default 5) alternating plain runs of the buggy and the
# fixed program (iter_ns of each), then `syncscope profile` and `syncscope capture` of the buggy one,
# all with the manifest's recordArgs (the same warm-up and timed steps); both time the manifest's
# plainSteps first (the capture in a run of its own), to which the what-if scales the trace. A
# program whose loop has no optimizer step names its step function (the manifest's stepOn), passed
# to both as --step-on.
# Writes to $OUT/whatif-truth (default ./gpu-out/whatif-truth): measured.json, the traces
# (<name>.profile.json.gz, <name>.capture.syncscope.json.gz), their reports and logs. Profiles and
# captures of programs not begun once DEADLINE seconds (default 380) have passed are skipped, and said so.
# TIME_ITERS, where set, times that many steps in each plain run instead of the manifest's --iters
# (the same warm-up): a longer run averages out a busy machine's bursts, and the step is the same.
# TIMED and RECORDED name the programs to time and to profile and capture (default: all of them);
# timings.tsv is written as each run ends, so a run cut short keeps what it measured. ONLY=profile or
# ONLY=capture records the buggy programs one way alone. The traces name the scripts as if the
# repository were at AS_ROOT (default /home/dev/syncscope), wherever it is.
set -u
here=bench/whatif-truth
out=${OUT:-./gpu-out}/whatif-truth
runs=${RUNS:-5}
deadline=${DEADLINE:-380}
mkdir -p "$out"
t0=$(date +%s)
# Every process on the CPUs nearest the GPU, and the memory it touches first on their node: where
# a process runs decides how fast its pinned and pageable copies go (a far node's pinned buffers
# copy at about half the speed), and a trace must be compared with runs of the same placement.
bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i 0 2>/dev/null | tr 'A-F' 'a-f' | sed 's/^0000\(....:\)/\1/')
near=$(cat "/sys/bus/pci/devices/$bus/local_cpulist" 2>/dev/null || true)
if [ -n "$near" ] && command -v taskset > /dev/null; then
  pin=(taskset -c "$near")
else
  pin=()
fi
elapsed() { echo $(($(date +%s) - t0)); }
mapfile -t names < <(node -e 'for (const p of require("./'$here'/manifest.json").programs) console.log(p.name)')
read -r -a record_args < <(node -e 'console.log(require("./'$here'/manifest.json").recordArgs.join(" "))')
time_args=("${record_args[@]}")
if [ -n "${TIME_ITERS:-}" ]; then
  for k in "${!time_args[@]}"; do [ "${time_args[$k]}" = --iters ] && time_args[$((k + 1))]=$TIME_ITERS; done
fi
steps=$(node -e 'console.log(require("./'$here'/manifest.json").profileSteps)')
# A host-bound loop's steps move by a tenth from one to the next: the plain step is timed over many.
plain_steps=$(node -e 'console.log(require("./'$here'/manifest.json").plainSteps)')
python3 -c 'import sys, torch; print(sys.version.split()[0], torch.__version__, torch.version.cuda, torch.cuda.get_device_name())' \
  > "$out/RECORDED-WITH.txt" 2>&1
nvidia-smi -L >> "$out/RECORDED-WITH.txt" 2>&1
echo "CPUs: ${near:-all, none found nearest the GPU}" >> "$out/RECORDED-WITH.txt"
cat "$out/RECORDED-WITH.txt"

# 1. Plain runs, buggy and fixed alternating, so that drift of the machine hits both alike.
# TIMED=" " times none. The rows of programs not timed now are kept from an earlier run into the
# same $OUT, so that a recording split over several runs on one machine adds up to one measured.json.
timed=${TIMED:-${names[*]}}
if [ -n "${timed// /}" ]; then
  timings="$out/timings.tsv"
  touch "$timings"
  # grep exits 1 where it keeps no row, 2 where it fails: only the latter loses the earlier rows.
  grep -v -E "^($(echo $timed | tr ' ' '|'))"$'\t' "$timings" > "$timings.kept"
  [ $? -le 1 ] && mv "$timings.kept" "$timings"
  # Each run a process started afresh, as the user runs the program.
  ${pin[@]+"${pin[@]}"} python3 "$here/plain_runs.py" "$timings" "$runs" $timed -- "${time_args[@]}"
  echo "timed at $(elapsed) s"
  python3 - "$timings" "$out/measured.json" "$out/RECORDED-WITH.txt" "${time_args[*]}" <<'PY'
import json, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
programs = {}
for name, variant, run, rc, ns in rows:
    p = programs.setdefault(name, {"buggy": [], "fixed": [], "failedRuns": []})
    if rc == "0" and ns:
        p[variant].append(float(ns))
    else:
        p["failedRuns"].append(f"{variant} run {run}: rc {rc}")
recorded = open(sys.argv[3]).read().strip()
timed_with = sys.argv[4].split()
json.dump({"recordedWith": recorded, "unit": "ns per timed iteration", "timedWith": timed_with, "programs": programs}, open(sys.argv[2], "w"), indent=2)
PY
fi

# 2. The buggy program profiled and captured, with the recording's shorter run.
for name in ${RECORDED:-${names[@]}}; do
  prog="$here/programs/$name.py"
  if [ "$(elapsed)" -ge "$deadline" ]; then echo "skipped profile and capture of $name: past ${deadline} s"; continue; fi
  s=$(date +%s)
  # A loop with no optimizer step names its step function (the manifest's stepOn).
  step_on=$(node -e 'const p = require("./'$here'/manifest.json").programs.find((p) => p.name === process.argv[1]); console.log(p?.stepOn ?? "")' "$name")
  if [ "${ONLY:-profile}" = profile ]; then
    ${pin[@]+"${pin[@]}"} timeout 120 node dist/cli.js profile -o "$out/$name.profile.json.gz" --steps "$steps" --plain-steps "$plain_steps" ${step_on:+--step-on "$step_on"} --json \
      -- python3 "$prog" "${record_args[@]}" > "$out/$name.profile.report.json" 2> "$out/$name.profile.log"
    echo "profile $name rc=$? $(($(date +%s) - s)) s (at $(elapsed) s)"
  fi
  [ "${ONLY:-capture}" = capture ] || continue
  s=$(date +%s)
  CUDA_MODULE_LOADING=EAGER ${pin[@]+"${pin[@]}"} timeout 180 node dist/cli.js capture -o "$out/$name.capture.syncscope.json" --plain-steps "$plain_steps" ${step_on:+--step-on "$step_on"} --json \
    -- python3 "$prog" "${record_args[@]}" > "$out/$name.capture.report.json" 2> "$out/$name.capture.log"
  rc=$?
  [ -f "$out/$name.capture.syncscope.json" ] && gzip -f "$out/$name.capture.syncscope.json"
  echo "capture $name rc=$rc $(($(date +%s) - s)) s (at $(elapsed) s)"
done

# The traces name the scripts by their paths here; they are kept as if recorded at $AS_ROOT.
root=${AS_ROOT:-/home/dev/syncscope}
for f in "$out"/*.json.gz; do
  # Only a trace that still names this checkout is rewritten, and only if every stage of it worked.
  [ -f "$f" ] && [ "$PWD" != "$root" ] && gzip -dc "$f" | grep -q -F "$PWD/" || continue
  (set -o pipefail; gzip -dc "$f" | sed "s#$PWD/#$root/#g" | gzip -6 > "$f.tmp") && mv "$f.tmp" "$f"
done

echo "==== whatif-truth summary (median ns per iteration, $runs runs each; total $(elapsed) s)"
python3 - "$out/measured.json" <<'PY'
import json, statistics, sys
m = json.load(open(sys.argv[1]))
print(f"{'program':<18}{'buggy':>12}{'fixed':>12}{'saving':>12}  failed")
for name, p in m["programs"].items():
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    b, f = med(p["buggy"]), med(p["fixed"])
    print(f"{name:<18}{b:>12.0f}{f:>12.0f}{b - f:>12.0f}  {len(p['failedRuns'])}")
PY
