#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
export PATH=/tmp:$PATH
mkdir -p /tmp/exp
nvcc -O2 -arch=native -o /tmp/exp/launch_states bench/capture-study/launch_states.cu || exit 1
nvcc -O2 -arch=native -o /tmp/exp/launch_toggle bench/capture-study/launch_toggle.cu || exit 1
LIB=$PWD/build/Release/libsyncscope_capture.so; CUPTI=$(ls -d /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 2>/dev/null | head -1)
cap() { env CUDA_MODULE_LOADING=EAGER CUDA_INJECTION64_PATH=$LIB SYNCSCOPE_CAPTURE_OUT=/tmp/exp/c-%p.raw LD_LIBRARY_PATH=$CUPTI SYNCSCOPE_CAPTURE_PROBE="$1" "${@:2}"; }
export STATES=0,1,2,3
for r in $(seq ${REPS:-6}); do
  echo "plain      $(env CUDA_MODULE_LOADING=EAGER taskset -c 2-5 /tmp/exp/launch_toggle 150 | awk '{print $2}')"
  echo "start-full $(cap "" taskset -c 2-5 /tmp/exp/launch_states 100 2>&1 | tail -1)"
  echo "start-off  $(cap start-off taskset -c 2-5 /tmp/exp/launch_states 100 2>&1 | tail -1)"
  echo "start-cb   $(cap start-cb taskset -c 2-5 /tmp/exp/launch_states 100 2>&1 | tail -1)"
  echo "start-act  $(cap start-act taskset -c 2-5 /tmp/exp/launch_states 100 2>&1 | tail -1)"
  echo "lazy-off   $(cap start-off env CUDA_MODULE_LOADING=LAZY taskset -c 2-5 /tmp/exp/launch_states 100 2>&1 | tail -1)"
  rm -f /tmp/exp/c-*.raw
done
