#include "raw_writer.h"

#include <cupti.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "activities.h"
#include "python_stack.h"
#include "raw_format.h"
#include "thread_log.h"

namespace capture {
namespace {

// Records go straight to the file through stdio's buffer: a long program's calls can run to
// gigabytes, and building the file in memory first would hold them twice.
class Sink {
 public:
  explicit Sink(FILE* f) : f_(f) { std::setvbuf(f_, nullptr, _IOFBF, 1 << 20); }

  void bytes(const void* p, size_t n) {
    if (error_ || !n) return;
    errno = 0;
    if (std::fwrite(p, 1, n, f_) == n) return;
    error_ = errno ? errno : EIO;  // the first failure's reason: later calls may change errno
  }

  void put(RecordType type, const void* body, uint32_t n, const char* tail = nullptr, uint32_t tailBytes = 0) {
    RecordHeader h{type, 0, n + tailBytes};
    bytes(&h, sizeof h);
    bytes(body, n);
    bytes(tail, tailBytes);
  }

  /** 0, or the errno of the first write that failed. */
  int error() const { return error_; }

 private:
  FILE* f_;
  int error_ = 0;
};

}  // namespace

std::string writeRaw(const std::string& path, const WriteInfo& info) {
  // Activities first: flushing them waits for CUPTI, and calls made meanwhile still get in below.
  // They are copied out under CUPTI's buffer lock, which must not wait on the disk.
  std::vector<uint8_t> activities;
  uint64_t activityCount = takeActivities(activities);

  std::string tmp = path + ".part";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return "cannot create " + tmp + ": " + std::strerror(errno);
  Sink out(f);
  FileHeader fh{};
  std::memcpy(fh.magic, kMagic, sizeof fh.magic);
  fh.version = kVersion;
  fh.headerBytes = sizeof fh;
  fh.pid = static_cast<uint32_t>(getpid());
  fh.cuptiApiVersion = info.cuptiApiVersion;
  fh.startTimestamp = info.startTimestamp;
  fh.cudaDriverVersion = info.cudaDriverVersion;
  out.bytes(&fh, sizeof fh);

  EndBody end{};
  std::set<std::pair<uint8_t, uint16_t>> apis;
  std::vector<ThreadLog*> threads = allThreadLogs();
  for (ThreadLog* t : threads) {
    ThreadBody b{t->index, t->osTid};
    out.put(kThread, &b, sizeof b, t->name, static_cast<uint32_t>(strnlen(t->name, sizeof t->name)));
  }
  for (ThreadLog* t : threads) {
    for (CallChunk* c = t->first; c;) {
      uint32_t used = c->used.load(std::memory_order_acquire);
      for (uint32_t i = 0; i < used; i++) {
        const CallBody& call = c->calls[i];
        if (!reinterpret_cast<const std::atomic<uint8_t>*>(&call.complete)->load(std::memory_order_acquire)) {
          end.incompleteCalls++;
          continue;
        }
        out.put(kCall, &call, sizeof call);
        apis.emplace(call.domain, call.cbid);
        end.calls++;
      }
      std::lock_guard<std::mutex> g(chainLock());
      c = c->next;
    }
  }
  // After the calls: a stack met while they were written is interned by now.
  std::vector<uint8_t> python;
  py::appendRecords(python);
  out.bytes(python.data(), python.size());
  for (const auto& [domain, cbid] : apis) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(static_cast<CUpti_CallbackDomain>(domain), cbid, &name) != CUPTI_SUCCESS || !name)
      continue;
    uint8_t body[4] = {domain, 0, static_cast<uint8_t>(cbid & 0xff), static_cast<uint8_t>(cbid >> 8)};
    out.put(kApiName, body, sizeof body, name, static_cast<uint32_t>(std::strlen(name)));
  }
  out.bytes(activities.data(), activities.size());
  end.activities = activityCount;
  end.threads = static_cast<uint32_t>(threads.size());
  cuptiGetTimestamp(&end.endTimestamp);
  out.put(kEnd, &end, sizeof end);

  int failed = out.error();
  errno = 0;
  if (std::fclose(f) != 0 && !failed) failed = errno ? errno : EIO;
  if (failed) {
    std::remove(tmp.c_str());
    return "cannot write " + tmp + ": " + std::strerror(failed);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
  return "";
}

}  // namespace capture
