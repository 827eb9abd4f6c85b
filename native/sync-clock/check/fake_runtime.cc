// A stand-in for the CUDA runtime's synchronizing calls, for test/node/sync-clock.test.ts: each waits
// FAKE_RUNTIME_WAIT_US microseconds (default 1000), as a wait for the GPU would.
#include <cstdlib>
#include <thread>
#include <chrono>

namespace {
int waitForTheGpu() {
  const char *us = std::getenv("FAKE_RUNTIME_WAIT_US");
  std::this_thread::sleep_for(std::chrono::microseconds(us ? std::atol(us) : 1000));
  return 0;
}
}  // namespace

extern "C" int cudaDeviceSynchronize() { return waitForTheGpu(); }
extern "C" int cudaStreamSynchronize(void *) { return waitForTheGpu(); }
