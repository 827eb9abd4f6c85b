// The capture benchmark's launch loop: host time per kernel launch, the launches only (batches
// of 256, each drained before the next so that the launch queue never fills). Prints
// "per_launch_ns <value>".
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void empty() {}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int batch = 256;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int i = 0; i < batch; i++) empty<<<1, 32, 0, s>>>();
  cudaStreamSynchronize(s);
  double ns = 0;
  for (int done = 0; done < launches; done += batch) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; i++) empty<<<1, 32, 0, s>>>();
    auto t1 = std::chrono::steady_clock::now();
    ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
    cudaStreamSynchronize(s);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e));
    return 1;
  }
  int n = (launches + batch - 1) / batch * batch;
  std::printf("per_launch_ns %.1f\n", ns / n);
  return 0;
}
