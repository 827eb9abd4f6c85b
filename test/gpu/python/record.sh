#!/usr/bin/env bash
# Records every program in test/gpu/python/programs on the GPU machine, twice: captured with CUPTI
# (the raw stream kept, the trace and its report) and profiled with torch.profiler (the trace and
# its report). PROGRAMS names which, in order (default: all); KEEP_RAW=0 keeps no raw stream
# (they are large: tar what comes back without them); ONLY=capture or ONLY=profile records one way
# alone. Expects dist/ built. Writes to
# $OUT/python (default ./gpu-out/python); the pinned copies live in test/fixtures/python/.
set -u
out=${OUT:-./gpu-out}/python
mkdir -p "$out"
python3 -c 'import sys, torch; print(sys.version.split()[0], torch.__version__, torch.version.cuda, torch.cuda.get_device_name())' > "$out/RECORDED-WITH.txt" 2>&1
# PROGRAMS: names to record, in order (default: every program, by name).
for name in ${PROGRAMS:-$(cd test/gpu/python/programs && ls *.py | sed 's/\.py$//')}; do
  program=test/gpu/python/programs/$name.py
  start=$(date +%s)
  raw=(); [ "${KEEP_RAW:-1}" = 1 ] && raw=(--keep-raw "$out/$name.raw")
  crc=skipped prc=skipped
  if [ "${ONLY:-capture}" = capture ]; then
    CUDA_MODULE_LOADING=EAGER timeout 300 node dist/cli.js capture "${raw[@]}" -o "$out/$name.capture.syncscope.json" --json \
      -- python3 "$program" > "$out/$name.capture.out" 2> "$out/$name.capture.log"
    crc=$?
    # The program's own output comes first on stdout: the report is made from the trace alone.
    node dist/cli.js report "$out/$name.capture.syncscope.json" --json > "$out/$name.capture.report.json" 2>> "$out/$name.capture.log"
    gzip -f "$out/$name.capture.syncscope.json"
  fi
  mid=$(date +%s)
  if [ "${ONLY:-profile}" = profile ]; then
    timeout 300 node dist/cli.js profile -o "$out/$name.profile.json.gz" -- python3 "$program" \
      > "$out/$name.profile.out" 2> "$out/$name.profile.log"
    prc=$?
    node dist/cli.js report "$out/$name.profile.json.gz" --json > "$out/$name.profile.report.json" 2>> "$out/$name.profile.log"
  fi
  echo "$name capture rc=$crc $((mid - start))s profile rc=$prc $(($(date +%s) - mid))s"
done
