// Where in a batch the launch time goes: each launch timed on its own, batches of 256 after a
// stream synchronize and an optional sleep.
#include <cuda_runtime.h>
#include <unistd.h>
#include <dirent.h>
#include <string>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void empty() {}

int main(int argc, char** argv) {
  const int batches = argc > 1 ? std::atoi(argv[1]) : 80;
  const int gapUs = argc > 2 ? std::atoi(argv[2]) : 0;
  const int batch = 256;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int i = 0; i < batch; i++) empty<<<1, 32, 0, s>>>();
  cudaStreamSynchronize(s);
  static double pos[256];
  double total = 0;
  for (int b = 0; b < batches; b++) {
    if (gapUs) usleep(gapUs);
    auto t0 = std::chrono::steady_clock::now();
    auto prev = t0;
    for (int i = 0; i < batch; i++) {
      empty<<<1, 32, 0, s>>>();
      auto t = std::chrono::steady_clock::now();
      pos[i] += std::chrono::duration<double, std::nano>(t - prev).count();
      prev = t;
    }
    total += std::chrono::duration<double, std::nano>(prev - t0).count();
    cudaStreamSynchronize(s);
  }
  auto range = [&](int a, int b) { double x = 0; for (int i = a; i < b; i++) x += pos[i]; return x / (b - a) / batches; };
  std::printf("per_launch %.0f | 0-4 %.0f 4-16 %.0f 16-64 %.0f 64-128 %.0f 128-256 %.0f\n", total / batches / batch, range(0, 4), range(4, 16), range(16, 64), range(64, 128), range(128, 256));
  DIR* d = opendir("/proc/self/task");
  while (dirent* e = d ? readdir(d) : nullptr) {
    if (e->d_name[0] == '.') continue;
    std::string p = std::string("/proc/self/task/") + e->d_name + "/stat";
    FILE* f = std::fopen(p.c_str(), "r");
    if (!f) continue;
    char buf[1024] = {0};
    size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    char* close = std::strrchr(buf, ')');
    char* open = std::strchr(buf, '(');
    unsigned long ut = 0, st = 0; int cpu = -1; long nvcsw = 0;
    // fields after ')': state(3) ... utime(14) stime(15) ... processor(39)
    char* q = close + 2; int field = 3;
    char* tok = std::strtok(q, " ");
    while (tok) { if (field == 14) ut = std::strtoul(tok, nullptr, 10); if (field == 15) st = std::strtoul(tok, nullptr, 10); if (field == 39) cpu = std::atoi(tok); field++; tok = std::strtok(nullptr, " "); }
    *close = 0;
    std::printf("  thread %s %s utime %lu stime %lu cpu %d\n", e->d_name, open + 1, ut, st, cpu);
    (void)nvcsw;
  }
  if (d) closedir(d);
  return 0;
}
