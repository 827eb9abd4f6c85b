// One process, several capture states: each round runs every state once (forward, then reversed
// in the next round), a batch of 256 launches each; per state, the median over rounds of its
// difference from state 0 in the same round.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void empty() {}

static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v.empty() ? 0 : v[v.size() / 2]; }

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 150;
  std::vector<int> states;
  for (char* t = std::strtok(std::getenv("STATES"), ","); t; t = std::strtok(nullptr, ",")) states.push_back(std::atoi(t));
  const int batch = 256;
  cudaFree(0);
  using EnableFn = void (*)(int);
  void* h = dlopen(std::getenv("CUDA_INJECTION64_PATH"), RTLD_NOW | RTLD_NOLOAD);
  EnableFn en = h ? reinterpret_cast<EnableFn>(dlsym(h, "syncscope_capture_enable")) : nullptr;
  if (!en || states.empty()) { std::fprintf(stderr, "no toggle or no STATES\n"); return 2; }
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int i = 0; i < batch; i++) empty<<<1, 32, 0, s>>>();
  cudaStreamSynchronize(s);
  const size_t n = states.size();
  std::vector<std::vector<double>> abs(n), diff(n);
  std::vector<double> t(n);
  for (int r = 0; r < rounds; r++) {
    for (size_t k = 0; k < n; k++) {
      const size_t j = r % 2 ? n - 1 - k : k;
      en(states[j]);
      for (int i = 0; i < 16; i++) empty<<<1, 32, 0, s>>>();
      cudaStreamSynchronize(s);
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < batch; i++) empty<<<1, 32, 0, s>>>();
      auto t1 = std::chrono::steady_clock::now();
      cudaStreamSynchronize(s);
      t[j] = std::chrono::duration<double, std::nano>(t1 - t0).count() / batch;
    }
    for (size_t j = 0; j < n; j++) { abs[j].push_back(t[j]); diff[j].push_back(t[j] - t[0]); }
  }
  en(3);
  for (size_t j = 0; j < n; j++) std::printf("%d:%.0f/%.0f ", states[j], med(diff[j]), med(abs[j]));
  std::printf("\n");
  return 0;
}
