// What the recorder's one timing event per launch costs the host, by kind of event: the driver's
// cuEventRecord is the whole of the recorder's overhead (bench/recorder.bench.ts), so this measures
// the choices that cost could depend on. Launches round-robin over N non-blocking streams as in
// the recorder benchmark, in blocks of 64 rounds; the kinds of block alternate, in a rotating
// order, so the host's drift stays out of the differences. Prints a Markdown table.
//   event_record_cost [streams=4] [blocks per kind=30]
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../src/cuda_driver.h"
#include "kernels_ptx.h"

namespace {

double nowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

const Driver *d = nullptr;

void check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS) return;
  std::fprintf(stderr, "%s failed with %s\n", what, errorName(*d, r).c_str());
  std::exit(1);
}

enum Kind { Bare, Fresh, Rerecorded, Reused, NoTiming, Kinds };
const char *kLabel[Kinds] = {
    "bare launch",
    "timing event, a new one per launch (the recorder's)",
    "timing event, a new one per launch, each recorded once before the run",
    "timing event, reused (16 per stream)",
    "disable-timing event, reused (16 per stream)",
};

}  // namespace

int main(int argc, char **argv) {
  const int streams = argc > 1 ? std::atoi(argv[1]) : 4;
  const int blocks = argc > 2 ? std::atoi(argv[2]) : 30;
  const int warmBlocks = 2;
  const int perBlock = 64 * streams;
  std::string why;
  d = loadDriver(why);
  if (!d) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 2;
  }
  CUdevice dev;
  CUcontext ctx;
  check(d->deviceGet(&dev, 0), "cuDeviceGet");
  check(d->primaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(d->ctxSetCurrent(ctx), "cuCtxSetCurrent");
  CUmodule module;
  CUfunction spin;
  check(d->moduleLoadDataEx(&module, kKernelsPtx, 0, nullptr, nullptr), "cuModuleLoadDataEx");
  check(d->moduleGetFunction(&spin, module, "syncscope_spin"), "cuModuleGetFunction");
  std::vector<CUstream> s(streams);
  for (auto &h : s) check(d->streamCreateWithPriority(&h, CU_STREAM_NON_BLOCKING, 0), "cuStreamCreateWithPriority");

  const size_t uses = size_t(perBlock) * (blocks + warmBlocks);
  auto events = [&](unsigned flags, size_t n, bool recordOnce) {
    std::vector<CUevent> v(n);
    for (auto &e : v) check(d->eventCreate(&e, flags), "cuEventCreate");
    if (recordOnce) {
      for (auto &e : v) check(d->eventRecord(e, s[0]), "cuEventRecord");
      check(d->ctxSynchronize(), "cuCtxSynchronize");
    }
    return v;
  };
  std::vector<CUevent> pool[Kinds] = {
      {},
      events(CU_EVENT_DEFAULT, uses, false),
      events(CU_EVENT_DEFAULT, uses, true),
      events(CU_EVENT_DEFAULT, 16 * size_t(streams), true),
      events(CU_EVENT_DISABLE_TIMING, 16 * size_t(streams), true),
  };
  size_t next[Kinds] = {};

  // Each kernel lasts about as long as the host takes to come back to its stream, so the streams
  // stay busy and the queue never fills: the recorder benchmark's steady state. No stamps.
  uint32_t noSlot = 0xffffffffu;
  unsigned long long ns = (6ull * streams + 1) * 1000;
  CUdeviceptr none = 0;
  void *args[] = {&none, &none, &noSlot, &ns};
  std::vector<double> perLaunch[Kinds], recordCall[Kinds];
  for (int b = 0; b < blocks + warmBlocks; b++) {
    for (int k0 = 0; k0 < Kinds; k0++) {
      const int k = (k0 + b) % Kinds;
      const bool kept = b >= warmBlocks;
      double previous = 0;
      for (int i = 0; i < perBlock; i++) {
        const double t0 = nowNs();
        if (kept && i) perLaunch[k].push_back(t0 - previous);
        previous = t0;
        CUstream h = s[i % streams];
        check(d->launchKernel(spin, 1, 1, 1, 32, 1, 1, 0, h, args, nullptr), "cuLaunchKernel");
        // Bare blocks read the clock here too, so that only the record differs between kinds.
        const double t1 = nowNs();
        if (k != Bare) check(d->eventRecord(pool[k][next[k]++ % pool[k].size()], h), "cuEventRecord");
        const double t2 = nowNs();
        if (kept && k != Bare) recordCall[k].push_back(t2 - t1);
      }
      check(d->ctxSynchronize(), "cuCtxSynchronize");
    }
  }

  auto us = [](double ns) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", ns / 1000);
    return std::string(b);
  };
  const double bare = median(perLaunch[Bare]);
  std::printf("| %d streams, %d blocks of %d launches per kind | us per launch | added | the record call |\n", streams,
              blocks, perBlock);
  std::printf("| --- | --- | --- | --- |\n");
  for (int k = 0; k < Kinds; k++) {
    const double t = median(perLaunch[k]);
    std::printf("| %s | %s | %s | %s |\n", kLabel[k], us(t).c_str(), k == Bare ? "" : us(t - bare).c_str(),
                k == Bare ? "" : us(median(recordCall[k])).c_str());
  }
  return 0;
}
