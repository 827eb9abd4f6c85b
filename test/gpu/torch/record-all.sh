#!/usr/bin/env bash
# Records every program in programs/ under torch.profiler (three modes) and under the capture
# (plain and --fix variants), into $1 (default ./torch-out). Run from the repository root on a
# machine with an NVIDIA GPU and torch, after node scripts/build.mjs and scripts/build-capture.mjs.
set -u
dir=test/gpu/torch
out=${1:-./torch-out}
mkdir -p "$out"
python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name())' > "$out/torch.txt" 2>&1
for prog in "$dir"/programs/*.py; do
  name=$(basename "$prog" .py)
  for mode in default stack sync; do
    timeout 120 python3 "$dir/record.py" "$mode" "$out/$name.$mode.json" "$prog" > "$out/$name.$mode.log" 2>&1
    echo "$name $mode rc=$?"
    [ -f "$out/$name.$mode.json" ] && gzip -f "$out/$name.$mode.json"
  done
  for variant in plain fix; do
    extra=(); [ "$variant" = fix ] && extra=(--fix)
    timeout 120 node dist/cli.js capture --keep-raw "$out/$name.$variant.raw" -o "$out/$name.$variant.syncscope.json" \
      -- python3 "$prog" "${extra[@]}" > "$out/$name.$variant.capture.log" 2>&1
    echo "$name capture $variant rc=$?"
    [ -f "$out/$name.$variant.syncscope.json" ] && gzip -f "$out/$name.$variant.syncscope.json"
    rm -f "$out/$name.$variant.raw"
  done
  timeout 120 python3 "$dir/probe_sync_debug.py" "$prog" > "$out/$name.syncdebug.txt" 2>&1
  echo "$name sync debug rc=$?"
done
