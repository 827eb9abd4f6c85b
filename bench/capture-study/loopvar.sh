#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
export PATH=/tmp:$PATH
mkdir -p /tmp/exp
nvcc -O2 -arch=native -o /tmp/exp/A bench/capture-study/loopvar.cu && nvcc -O2 -arch=native -DINIT_FIRST -o /tmp/exp/B bench/capture-study/loopvar.cu && nvcc -O2 -arch=native -DPRE16 -o /tmp/exp/C bench/capture-study/loopvar.cu && nvcc -O2 -arch=native -DINIT_FIRST -DPRE16 -o /tmp/exp/D bench/capture-study/loopvar.cu || exit 1
LIB=$PWD/build/Release/libsyncscope_capture.so; CUPTI=$(ls -d /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 2>/dev/null | head -1)
cap() { env CUDA_MODULE_LOADING=EAGER CUDA_INJECTION64_PATH=$LIB SYNCSCOPE_CAPTURE_OUT=/tmp/exp/c-%p.raw LD_LIBRARY_PATH=$CUPTI "$@"; }
declare -A R
CFGS="plainA plainD A B C D"
for r in $(seq ${REPS:-12}); do
  for c in $CFGS; do
    case $c in
      plain*) v=$(env CUDA_MODULE_LOADING=EAGER taskset -c 2-5 /tmp/exp/${c#plain} 20000);;
      *) v=$(cap taskset -c 2-5 /tmp/exp/$c 20000);;
    esac
    R[$c]="${R[$c]:-} $(echo $v | awk '{printf "%.2f", $2/1000}')"
  done
  rm -f /tmp/exp/c-*.raw
done
for c in $CFGS; do echo "$c:${R[$c]}"; done
