#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
export PATH=/tmp:$PATH
mkdir -p /tmp/exp
nvcc -O2 -arch=native -o /tmp/exp/launch_loop test/gpu/capture/programs/launch_loop.cu || exit 1
LIB=$PWD/build/Release/libsyncscope_capture.so; CUPTI=$(ls -d /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 2>/dev/null | head -1)
cap() { env CUDA_MODULE_LOADING=EAGER CUDA_INJECTION64_PATH=$LIB SYNCSCOPE_CAPTURE_OUT=/tmp/exp/c-%p.raw LD_LIBRARY_PATH=$CUPTI SYNCSCOPE_CAPTURE_PROBE="$1" "${@:2}"; }
P="taskset -c 2-5"
K=no-callbacks,no-sync-activity,no-event-activity,no-memory-activity
declare -A R
CFGS="plain K K+pinned-records K+devbuf-small K+devbuf-big K+shared-buffer full full+pinned-records"
for r in $(seq ${REPS:-10}); do
  for c in $CFGS; do
    case $c in
      plain) v=$(env CUDA_MODULE_LOADING=EAGER $P /tmp/exp/launch_loop 20000);;
      full) v=$(cap "" $P /tmp/exp/launch_loop 20000);;
      K) v=$(cap "$K" $P /tmp/exp/launch_loop 20000);;
      K+*) v=$(cap "$K,${c#K+}" $P /tmp/exp/launch_loop 20000);;
      full+*) v=$(cap "${c#full+}" $P /tmp/exp/launch_loop 20000);;
    esac
    R[$c]="${R[$c]:-} $(echo $v | awk '{printf "%.2f", $2/1000}')"
  done
  rm -f /tmp/exp/c-*.raw
done
for c in $CFGS; do echo "$c:${R[$c]}"; done
