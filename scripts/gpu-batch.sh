#!/usr/bin/env bash
# Runs every GPU check in one go on a machine with an NVIDIA GPU: the GPU and runner tests, the
# recorder and capture benchmarks, the event record's cost (build/event_record_cost, when built) and a
# calibration. Expects the bundles already built (npm run build and
# node scripts/build.mjs --tests) and build/Release/syncscope.node. Logs go to $OUT (default
# ./gpu-out), and all of it to $OUT.tgz for copying off the machine; the last lines printed are a
# short summary. With SYNCSCOPE_DUMP=1 the recorder benchmark's layout traces and
# out/bench/recorder-dump.bench.js's traces go to $OUT/traces too, for the offline evaluators.
set -u
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
nvidia-smi -L
node dist/cli.js devices | tee "$OUT/devices.txt"
# Where the GPU sits among the host's cores and memory nodes: runs that differ with where the
# runner landed (pageable copies do) are read against it, and against transparent huge pages.
{ nvidia-smi topo -m; echo; lscpu; echo; grep -H . /sys/kernel/mm/transparent_hugepage/enabled; } > "$OUT/host.txt" 2>&1
summary=()
for f in out/test/gpu/*.test.js out/test/runner/*.test.js; do
  name=$(basename "$(dirname "$f")")-$(basename "$f" .test.js)
  start=$(date +%s)
  SYNCSCOPE_CAPTURE_DUMP="$OUT/captures" timeout "${TEST_TIMEOUT:-240}" node --test --test-reporter=spec "$f" > "$OUT/test-$name.log" 2>&1
  rc=$?
  summary+=("$(printf '%-14s rc=%d %3ds  %s' "$name" "$rc" "$(( $(date +%s) - start ))" "$(grep -E '^ℹ (pass|fail|skipped)' "$OUT/test-$name.log" | tr '\n' ' ')")")
done
dump=()
if [ "${SYNCSCOPE_DUMP:-}" = 1 ]; then
  mkdir -p "$OUT/traces"
  dump=(SYNCSCOPE_DUMP="$OUT/traces")
fi
env ${dump[@]+"${dump[@]}"} SYNCSCOPE_BENCH_OUT="$OUT/recorder.md" timeout 300 node out/bench/recorder.bench.js > "$OUT/bench.log" 2>&1; summary+=("bench rc=$?")
if [ ${#dump[@]} -gt 0 ] && [ -f out/bench/recorder-dump.bench.js ]; then
  env ${dump[@]+"${dump[@]}"} timeout 300 node out/bench/recorder-dump.bench.js > "$OUT/dump.log" 2>&1; summary+=("trace dump rc=$?")
fi
if [ -f out/bench/capture.bench.js ]; then
  # The benchmark's own build of the capture library, with the measurement switches.
  node scripts/build-capture.mjs --measure > "$OUT/capture-measure-build.log" 2>&1 || summary+=("capture measure build rc=$?")
  SYNCSCOPE_BENCH_OUT="$OUT/capture.md" timeout 300 node out/bench/capture.bench.js > "$OUT/capture-bench.log" 2>&1; summary+=("capture bench rc=$?")
fi
if [ -x build/event_record_cost ]; then
  (rc=0; for n in 1 4 8; do build/event_record_cost "$n" 30 || rc=$?; echo; done; exit $rc) > "$OUT/event-record-cost.md" 2>&1
  summary+=("event record cost rc=$?")
fi
node dist/cli.js calibrate --out "$OUT/profile.json" > "$OUT/calibrate.log" 2>&1; summary+=("calibrate rc=$?")
tar czf "$OUT.tgz" -C "$(dirname "$OUT")" "$(basename "$OUT")"
echo "==== summary"
printf '%s\n' "${summary[@]}"
cat "$OUT/recorder.md" 2>/dev/null
cat "$OUT/capture.md" 2>/dev/null
cat "$OUT/event-record-cost.md" 2>/dev/null
