#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
export PATH=/tmp:$PATH
mkdir -p /tmp/exp
nvcc -O2 -arch=native -o /tmp/exp/launch_switch test/gpu/capture/programs/launch_switch.cu || exit 1
LIB=$PWD/build/Release/libsyncscope_capture.so; CUPTI=$(ls -d /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 2>/dev/null | head -1)
cap() { env CUDA_MODULE_LOADING=EAGER CUDA_INJECTION64_PATH=$LIB SYNCSCOPE_CAPTURE_OUT=/tmp/exp/c-%p.raw LD_LIBRARY_PATH=$CUPTI SYNCSCOPE_CAPTURE_PROBE="$1" "${@:2}"; }
lv() { awk '/^parts 0 /{a=$6} /^parts 3 /{b=$6; d=$4} END{printf "%.2f/%.2f/%.2f", a/1000, b/1000, d/1000}'; }
declare -A R
CFGS=${CFGS:-"plain full kernel-only no-event-activity no-sync-activity no-memory-activity nothing"}
for r in $(seq ${REPS:-8}); do
  for c in $CFGS; do
    case $c in
      plain) v=$(env CUDA_MODULE_LOADING=EAGER taskset -c 2-5 /tmp/exp/launch_switch 60 | lv);;
      full) v=$(cap "" taskset -c 2-5 /tmp/exp/launch_switch 60 | lv);;
      kernel-only) v=$(cap no-sync-activity,no-event-activity,no-memory-activity taskset -c 2-5 /tmp/exp/launch_switch 60 | lv);;
      nothing) v=$(cap no-activity,no-callbacks taskset -c 2-5 /tmp/exp/launch_switch 60 | lv);;
      *) v=$(cap $c taskset -c 2-5 /tmp/exp/launch_switch 60 | lv);;
    esac
    R[$c]="${R[$c]:-} $v"
  done
  rm -f /tmp/exp/c-*.raw
done
echo "off level / on level / added in process (us)"
for c in $CFGS; do echo "$c:${R[$c]}"; done
