#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/../.."
export PATH=/tmp:$PATH
mkdir -p /tmp/exp
nvcc -O2 -arch=native -o /tmp/exp/launch_toggle bench/capture-study/launch_toggle.cu || exit 1
CUPTI=$(ls -d /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 2>/dev/null | head -1)
cap() { env CUDA_MODULE_LOADING=EAGER CUDA_INJECTION64_PATH=$PWD/build/Release/$1 SYNCSCOPE_CAPTURE_OUT=/tmp/exp/c-%p.raw LD_LIBRARY_PATH=$CUPTI SYNCSCOPE_CAPTURE_PROBE="$2" "${@:3}"; }
P="taskset -c 2-5"
CFGS=("gd:full:" "gd:empty:empty-callbacks" "gd:early:early-return" "gd:no-record:no-record" "gd:no-ts:no-timestamps" "gd:prefault:prefault"
  "gd:api-act:api-activity-launches" "ie:full:" "ie:prefault:prefault" "ie:no-ts-prefault:no-timestamps,prefault" "gd:nothing:no-activity,no-callbacks")
declare -A R
for r in $(seq ${REPS:-4}); do
  for c in "${CFGS[@]}"; do
    lib=${c%%:*}; rest=${c#*:}; name=${rest%%:*}; probe=${rest#*:}
    v=$(TOGGLE=1 cap lib_$lib.so "$probe" $P /tmp/exp/launch_toggle ${BATCHES:-400} 2>&1 | tail -1)
    R[$lib-$name]="${R[$lib-$name]:-} $(echo $v | awk '{printf "%.0f/%.0f/%.0f", $10, $4, $2}')"
  done
  rm -f /tmp/exp/c-*.raw
done
echo "diff_mean/off_med/on_med"
for c in "${CFGS[@]}"; do lib=${c%%:*}; rest=${c#*:}; name=${rest%%:*}; echo "$lib-$name:${R[$lib-$name]:-}"; done
