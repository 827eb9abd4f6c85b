// A stand-in for the CUDA runtime's synchronizing calls, for test/node/sync-clock.test.ts: each waits
// FAKE_RUNTIME_WAIT_US microseconds (default 1000), as a wait for the GPU would. A sleep can last
// longer than asked on a busy machine; the longest overshoot of the process is appended, in ns, to
// the file FAKE_RUNTIME_OVERSHOOT_FILE names when the process exits, so that the test bounds what the
// clock may time by what the waits really took.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {
std::atomic<long long> longestOvershootNs{0};

struct OvershootReport {
  ~OvershootReport() {
    const char *path = std::getenv("FAKE_RUNTIME_OVERSHOOT_FILE");
    if (!path) return;
    if (std::FILE *f = std::fopen(path, "a")) {
      std::fprintf(f, "%lld\n", longestOvershootNs.load());
      std::fclose(f);
    }
  }
} report;

int waitForTheGpu() {
  const char *us = std::getenv("FAKE_RUNTIME_WAIT_US");
  const auto asked = std::chrono::microseconds(us ? std::atol(us) : 1000);
  const auto begin = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(asked);
  const long long over =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - begin - asked).count();
  long long seen = longestOvershootNs.load();
  while (over > seen && !longestOvershootNs.compare_exchange_weak(seen, over)) {
  }
  return 0;
}
}  // namespace

extern "C" int cudaDeviceSynchronize() { return waitForTheGpu(); }
extern "C" int cudaStreamSynchronize(void *) { return waitForTheGpu(); }
