#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
export PATH=/tmp:$PATH
mkdir -p /tmp/exp
nvcc -O2 -arch=native -o /tmp/exp/launch_states bench/capture-study/launch_states.cu || exit 1
LIB=$PWD/build/Release/libsyncscope_capture.so; CUPTI=$(ls -d /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 2>/dev/null | head -1)
# 0 off, 1 kernel records only... (activity kinds), 2 callbacks only, 3 full, variants: 259 empty callbacks, 515 no timestamps, 1027 prefault, 2051 no record, 1539 no-ts+prefault
export STATES=${STATES:-0,1,2,3,259,515,1027,2051,1539}
echo "state:median diff vs state 0 / median ns per launch"
for r in $(seq ${REPS:-6}); do
  env CUDA_MODULE_LOADING=EAGER CUDA_INJECTION64_PATH=$LIB SYNCSCOPE_CAPTURE_OUT=/tmp/exp/c-%p.raw LD_LIBRARY_PATH=$CUPTI taskset -c 2-5 /tmp/exp/launch_states ${ROUNDS:-150} 2>&1 | tail -1
  rm -f /tmp/exp/c-*.raw
done
