// The capture benchmark's paired loop: one process runs batches of 256 launches with the capture
// switched between parts (syncscope_capture_switch: 0 off, 1 activity records, 2 API callbacks,
// 3 both), every part once per round, forward then backward, so that drift cancels. For each part
// it prints "parts <p> added_ns <median over rounds of its difference from part 0 in the same
// round> per_launch_ns <median>". Without the capture library it runs part 0 only; the switch is in
// the benchmark's build of the library only (libsyncscope_capture_measure.so).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void empty() {}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 100;
  const int batch = 256;
  cudaFree(0);  // CUDA loads the library when it initialises
  using Switch = void (*)(int);
  const char* lib = std::getenv("CUDA_INJECTION64_PATH");
  void* handle = lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  Switch turn = handle ? reinterpret_cast<Switch>(dlsym(handle, "syncscope_capture_switch")) : nullptr;
  if (lib && !turn) {
    std::fprintf(stderr, "the capture library has no syncscope_capture_switch: load libsyncscope_capture_measure.so\n");
    return 2;
  }
  std::vector<int> parts = turn ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{0};
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int i = 0; i < batch; i++) empty<<<1, 32, 0, s>>>();
  cudaStreamSynchronize(s);
  const size_t n = parts.size();
  std::vector<std::vector<double>> level(n), added(n);
  std::vector<double> t(n);
  for (int r = 0; r < rounds; r++) {
    for (size_t k = 0; k < n; k++) {
      const size_t j = r % 2 ? n - 1 - k : k;
      if (turn) turn(parts[j]);
      // Untimed launches first: the first launches after a switch pay for the switch.
      for (int i = 0; i < 16; i++) empty<<<1, 32, 0, s>>>();
      cudaStreamSynchronize(s);
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < batch; i++) empty<<<1, 32, 0, s>>>();
      auto t1 = std::chrono::steady_clock::now();
      cudaStreamSynchronize(s);
      t[j] = std::chrono::duration<double, std::nano>(t1 - t0).count() / batch;
    }
    for (size_t j = 0; j < n; j++) {
      level[j].push_back(t[j]);
      added[j].push_back(t[j] - t[0]);
    }
  }
  if (turn) turn(3);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e));
    return 1;
  }
  for (size_t j = 0; j < n; j++)
    std::printf("parts %d added_ns %.1f per_launch_ns %.1f\n", parts[j], median(added[j]), median(level[j]));
  return 0;
}
