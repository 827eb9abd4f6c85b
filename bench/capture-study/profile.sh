#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
export PATH=/tmp:$PATH
mkdir -p /tmp/exp
nvcc -O2 -arch=native -o /tmp/exp/launch_profile bench/capture-study/launch_profile.cu || exit 1
LIB=$PWD/build/Release/libsyncscope_capture.so; CUPTI=$(ls -d /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 2>/dev/null | head -1)
cap() { env CUDA_MODULE_LOADING=EAGER CUDA_INJECTION64_PATH=$LIB SYNCSCOPE_CAPTURE_OUT=/tmp/exp/c-%p.raw LD_LIBRARY_PATH=$CUPTI SYNCSCOPE_CAPTURE_PROBE="$1" "${@:2}"; }
lscpu | grep -i "thread\|core\|socket"; cat /sys/devices/system/cpu/cpu2/topology/thread_siblings_list /sys/devices/system/cpu/cpu3/topology/thread_siblings_list
for r in 1 2 3; do for P in "taskset -c 2-5" "taskset -c 2"; do
  echo "[$P] plain     $(env CUDA_MODULE_LOADING=EAGER $P /tmp/exp/launch_profile 300 0)"
  echo "[$P] full      $(cap "" $P /tmp/exp/launch_profile 300 0)"
  echo "[$P] kernel    $(cap no-callbacks,no-sync-activity,no-event-activity,no-memory-activity $P /tmp/exp/launch_profile 300 0)"
done; done
rm -f /tmp/exp/c-*.raw
