// Drives the capture library's writer (raw_writer.cc, thread_log.cc) without CUDA: threads record
// calls through the same per-thread logs the callbacks use, a stand-in for activities.cc hands over
// kernel records, and writeRaw writes the raw stream. test/runner/capture-writer.test.ts decodes
// the file with core/import/capture-raw.ts; bench/capture-writer.bench.ts times it on a large log.
//
//   write_raw_check <out> <calls on the second thread> <kernels>
//
// Prints one JSON line: the write's time, the process's peak resident memory, and what the log
// itself holds (its call chunks and the activity records), which any writer must keep.
#include <pthread.h>
#include <sys/resource.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "activities.h"
#include "raw_format.h"
#include "python_stack.h"
#include "raw_writer.h"
#include "thread_log.h"

namespace capture {

static uint64_t kernelCount = 0;
static size_t activityBytes = 0;

// What activities.cc would have converted from CUPTI's buffers: a kernel name, then its kernels.
uint64_t takeActivities(std::vector<uint8_t>& out) {
  auto append = [&out](const void* p, size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  };
  const char name[] = "spin";
  uint32_t id = 1;
  RecordHeader s{kString, 0, static_cast<uint32_t>(sizeof id + sizeof name - 1)};
  append(&s, sizeof s);
  append(&id, sizeof id);
  append(name, sizeof name - 1);
  for (uint64_t i = 0; i < kernelCount; i++) {
    RecordHeader h{kKernel, 0, sizeof(KernelBody)};
    KernelBody k{};
    k.correlationId = static_cast<uint32_t>(i + 1);
    k.streamId = 7;
    k.nameId = id;
    k.start = 1000 * i;
    k.end = 1000 * i + 500;
    append(&h, sizeof h);
    append(&k, sizeof k);
  }
  activityBytes = out.size();
  return kernelCount + 1;
}

}  // namespace capture

using namespace capture;

// Calls numbered from `first`; the last one left in progress when `leaveOpen`, as during a blocking call.
static void record(const char* name, uint64_t n, uint32_t first, bool leaveOpen) {
  pthread_setname_np(pthread_self(), name);
  ThreadLog& log = threadLog();
  for (uint64_t i = 0; i < n; i++) {
    CallBody* c = beginCall(log);
    if (!c) std::abort();
    c->api = kLaunch;
    c->domain = 2;  // CUPTI_CB_DOMAIN_RUNTIME_API
    c->cbid = 211;  // cudaLaunchKernel
    c->correlationId = first + static_cast<uint32_t>(i);
    c->begin = 10 * i;
    c->end = 10 * i + 5;
    c->stream = kLegacyStream;
    if (!(leaveOpen && i + 1 == n)) endCall(c);
  }
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: write_raw_check <out> <calls on the second thread> <kernels>\n");
    return 2;
  }
  kernelCount = std::strtoull(argv[3], nullptr, 10);
  py::init();  // as at injection: this program runs no Python, which the stream then says
  record("first", 5, 1, false);
  std::thread second(record, "second", std::strtoull(argv[2], nullptr, 10), 100, true);
  second.join();
  std::thread third(record, "third", 3, 50, false);
  third.join();
  auto t0 = std::chrono::steady_clock::now();
  std::string error = writeRaw(argv[1], WriteInfo{42, 7, 13000});
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!error.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  size_t chunks = 0;
  for (ThreadLog* t : allThreadLogs())
    for (CallChunk* c = t->first; c; c = c->next) chunks++;
  std::printf("{\"writeMs\":%.3f,\"peakRssKiB\":%ld,\"logKiB\":%zu}\n", ms, u.ru_maxrss,
              (chunks * sizeof(CallChunk) + activityBytes) / 1024);
  return 0;
}
