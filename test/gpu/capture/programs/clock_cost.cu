// What one read of each host clock costs, for the capture benchmark: CUPTI's timestamp (the
// calls' begin and end) against the clocks it could use instead. Prints "clock <name> <ns>" lines
// and the kernel's clock source.
#include <cupti.h>
#include <time.h>
#include <x86intrin.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

template <class F>
double nsPerRead(F read) {
  const int n = 200000;
  volatile uint64_t sink = 0;
  for (int i = 0; i < n / 10; i++) sink += read();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; i++) sink += read();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
}

uint64_t posix(clockid_t id) {
  timespec t;
  clock_gettime(id, &t);
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}

int main() {
  std::string source;
  std::ifstream("/sys/devices/system/clocksource/clocksource0/current_clocksource") >> source;
  std::printf("clocksource %s\n", source.empty() ? "unknown" : source.c_str());
  std::printf("clock cuptiGetTimestamp %.1f\n", nsPerRead([] { uint64_t t = 0; cuptiGetTimestamp(&t); return t; }));
  std::printf("clock CLOCK_REALTIME %.1f\n", nsPerRead([] { return posix(CLOCK_REALTIME); }));
  std::printf("clock CLOCK_MONOTONIC %.1f\n", nsPerRead([] { return posix(CLOCK_MONOTONIC); }));
  std::printf("clock CLOCK_MONOTONIC_RAW %.1f\n", nsPerRead([] { return posix(CLOCK_MONOTONIC_RAW); }));
  std::printf("clock rdtsc %.1f\n", nsPerRead([] { return uint64_t(__rdtsc()); }));
  return 0;
}
