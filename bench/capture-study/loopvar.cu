// launch_loop.cu with two changes switchable at compile time: INIT_FIRST (cudaFree(0) before the
// stream is created) and PRE16 (16 untimed launches and a synchronize before each timed batch).
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void empty() {}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int batch = 256;
#ifdef INIT_FIRST
  cudaFree(0);
#endif
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int i = 0; i < batch; i++) empty<<<1, 32, 0, s>>>();
  cudaStreamSynchronize(s);
  double ns = 0;
  for (int done = 0; done < launches; done += batch) {
#ifdef PRE16
    for (int i = 0; i < 16; i++) empty<<<1, 32, 0, s>>>();
    cudaStreamSynchronize(s);
#endif
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; i++) empty<<<1, 32, 0, s>>>();
    auto t1 = std::chrono::steady_clock::now();
    ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
    cudaStreamSynchronize(s);
  }
  int n = (launches + batch - 1) / batch * batch;
  std::printf("per_launch_ns %.1f\n", ns / n);
  return 0;
}
