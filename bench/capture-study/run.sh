#!/usr/bin/env bash
# Experiment: in-process paired cost of capture configurations.
set -u
cd "$(dirname "$0")/../.."
LIB=$PWD/build/Release/libsyncscope_capture.so
mkdir -p /tmp/exp
nvcc -O2 -arch=native -o /tmp/exp/launch_toggle bench/capture-study/launch_toggle.cu || exit 1
nvcc -O2 -arch=native -o /tmp/exp/launch_loop test/gpu/capture/programs/launch_loop.cu || exit 1
CUPTI=$(ls -d /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 2>/dev/null | head -1)
cap() { env CUDA_MODULE_LOADING=EAGER CUDA_INJECTION64_PATH=$LIB SYNCSCOPE_CAPTURE_OUT=/tmp/exp/c-%p.raw LD_LIBRARY_PATH=$CUPTI SYNCSCOPE_CAPTURE_PROBE="$1" "${@:2}"; }
P="taskset -c 2-5"
echo "== counts"
cap count-callbacks $P /tmp/exp/launch_loop 2560 2>&1 | tail -2
CFGS=("full:" "kernel-only:no-callbacks,no-sync-activity,no-event-activity,no-memory-activity" "callbacks-only:no-activity"
  "empty-callbacks:empty-callbacks" "no-driver-cb:no-driver-callbacks" "driver-launches:driver-launches"
  "api-activity-launches:api-activity-launches" "no-launch-cb:no-launch-callbacks" "pinned-records:pinned-records" "nothing:no-activity,no-callbacks")
REPS=${REPS:-4}
for r in $(seq $REPS); do
  for c in "${CFGS[@]}"; do
    name=${c%%:*}; probe=${c#*:}
    echo "$name $(TOGGLE=1 cap "$probe" $P /tmp/exp/launch_toggle ${BATCHES:-400} 2>&1 | tail -1)"
  done
  echo "plain-toggle $(env CUDA_MODULE_LOADING=EAGER $P /tmp/exp/launch_toggle ${BATCHES:-400} | tail -1)"
  echo "full-noswitch $(cap "" $P /tmp/exp/launch_toggle ${BATCHES:-400} 2>&1 | tail -1)"
done
rm -f /tmp/exp/c-*.raw
