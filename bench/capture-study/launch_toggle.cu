// Paired in-process measurement: batches of 256 launches, the capture turned off and on between
// batches (ABBA), via the library's syncscope_capture_enable.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void empty() {}

static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v.empty() ? 0 : v[v.size() / 2]; }
static double mean(const std::vector<double>& v) { double s = 0; for (double x : v) s += x; return v.empty() ? 0 : s / v.size(); }

int main(int argc, char** argv) {
  const int batches = argc > 1 ? std::atoi(argv[1]) : 400;
  const bool toggle = std::getenv("TOGGLE") != nullptr;
  const int batch = 256;
  cudaFree(0);
  using EnableFn = void (*)(int);
  EnableFn en = nullptr;
  const char* lib = std::getenv("CUDA_INJECTION64_PATH");
  if (lib && toggle) {
    void* h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    if (h) en = reinterpret_cast<EnableFn>(dlsym(h, "syncscope_capture_enable"));
    if (!en) { std::fprintf(stderr, "no toggle\n"); return 2; }
  }
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int i = 0; i < batch; i++) empty<<<1, 32, 0, s>>>();
  cudaStreamSynchronize(s);
  bool cur = true;
  std::vector<double> on, off, diffs;
  double quad[4];
  for (int b = 0; b < batches; b++) {
    const int q = b % 4;
    const bool want = en ? (q == 1 || q == 2) : true;
    if (en && want != cur) { en(want ? 1 : 0); cur = want; }
    for (int i = 0; i < 16; i++) empty<<<1, 32, 0, s>>>();
    cudaStreamSynchronize(s);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; i++) empty<<<1, 32, 0, s>>>();
    auto t1 = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / batch;
    (want ? on : off).push_back(ns);
    quad[q] = ns;
    if (en && q == 3) diffs.push_back((quad[1] + quad[2] - quad[0] - quad[3]) / 2);
  }
  if (en) en(1);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
  std::printf("on_med %.1f off_med %.1f on_mean %.1f off_mean %.1f diff_med %.1f diff_mean %.1f n %zu\n", med(on), med(off), mean(on), mean(off), med(diffs), mean(diffs), diffs.size());
  return 0;
}
