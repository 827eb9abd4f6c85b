#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
export PATH=/tmp:$PATH
mkdir -p /tmp/exp
nvcc -O2 -arch=native -o /tmp/exp/launch_states bench/capture-study/launch_states.cu || exit 1
nvcc -O2 -arch=native -o /tmp/exp/launch_toggle bench/capture-study/launch_toggle.cu || exit 1
grep -m1 "model\s*:" /proc/cpuinfo; grep -m1 "cpu family" /proc/cpuinfo; grep -m1 -o "avx512[a-z_]*" /proc/cpuinfo | head -3; ldd --version | head -1
LIB=$PWD/build/Release/libsyncscope_capture.so; CUPTI=$(ls -d /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/lib64 2>/dev/null | head -1)
cap() { env CUDA_MODULE_LOADING=EAGER CUDA_INJECTION64_PATH=$LIB SYNCSCOPE_CAPTURE_OUT=/tmp/exp/c-%p.raw LD_LIBRARY_PATH=$CUPTI SYNCSCOPE_CAPTURE_PROBE="$1" "${@:2}"; }
export STATES=0,3
T=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX2,-AVX,-ERMS,-FSRM
for r in $(seq ${REPS:-8}); do
  echo "plain       $(env CUDA_MODULE_LOADING=EAGER taskset -c 2-5 /tmp/exp/launch_toggle 150 | awk '{print $2}')  noavx $(env GLIBC_TUNABLES=$T CUDA_MODULE_LOADING=EAGER taskset -c 2-5 /tmp/exp/launch_toggle 150 | awk '{print $2}')"
  echo "full        $(cap "" taskset -c 2-5 /tmp/exp/launch_states 100 2>&1 | tail -1)"
  echo "full-noavx  $(GLIBC_TUNABLES=$T cap "" taskset -c 2-5 /tmp/exp/launch_states 100 2>&1 | tail -1)"
  echo "nothing     $(cap no-activity,no-callbacks taskset -c 2-5 /tmp/exp/launch_toggle 150 2>&1 | tail -1 | awk '{print $2}')"
  rm -f /tmp/exp/c-*.raw
done
