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
#include "raw_format.h"
#include "thread_log.h"

namespace capture {
namespace {

void put(std::vector<uint8_t>& out, RecordType type, const void* body, uint32_t bytes, const char* tail = nullptr, uint32_t tailBytes = 0) {
  RecordHeader h{type, 0, bytes + tailBytes};
  auto* p = reinterpret_cast<const uint8_t*>(&h);
  out.insert(out.end(), p, p + sizeof h);
  p = static_cast<const uint8_t*>(body);
  out.insert(out.end(), p, p + bytes);
  if (tailBytes) out.insert(out.end(), tail, tail + tailBytes);
}

}  // namespace

std::string writeRaw(const std::string& path, const WriteInfo& info) {
  std::vector<uint8_t> out;
  FileHeader fh{};
  std::memcpy(fh.magic, kMagic, sizeof fh.magic);
  fh.version = kVersion;
  fh.headerBytes = sizeof fh;
  fh.pid = static_cast<uint32_t>(getpid());
  fh.cuptiApiVersion = info.cuptiApiVersion;
  fh.startTimestamp = info.startTimestamp;
  fh.cudaDriverVersion = info.cudaDriverVersion;
  auto* hp = reinterpret_cast<const uint8_t*>(&fh);
  out.insert(out.end(), hp, hp + sizeof fh);

  // Activities first: flushing them waits for CUPTI, and calls made meanwhile still get in below.
  std::vector<uint8_t> activities;
  uint64_t activityCount = takeActivities(activities);

  EndBody end{};
  std::set<std::pair<uint8_t, uint16_t>> apis;
  std::vector<ThreadLog*> threads = allThreadLogs();
  for (ThreadLog* t : threads) {
    ThreadBody b{t->index, t->osTid};
    put(out, kThread, &b, sizeof b, t->name, static_cast<uint32_t>(strnlen(t->name, sizeof t->name)));
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
        put(out, kCall, &call, sizeof call);
        apis.emplace(call.domain, call.cbid);
        end.calls++;
      }
      std::lock_guard<std::mutex> g(chainLock());
      c = c->next;
    }
  }
  for (const auto& [domain, cbid] : apis) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(static_cast<CUpti_CallbackDomain>(domain), cbid, &name) != CUPTI_SUCCESS || !name) continue;
    uint8_t body[4] = {domain, 0, static_cast<uint8_t>(cbid & 0xff), static_cast<uint8_t>(cbid >> 8)};
    put(out, kApiName, body, sizeof body, name, static_cast<uint32_t>(std::strlen(name)));
  }
  out.insert(out.end(), activities.begin(), activities.end());
  end.activities = activityCount;
  end.threads = static_cast<uint32_t>(threads.size());
  cuptiGetTimestamp(&end.endTimestamp);
  put(out, kEnd, &end, sizeof end);

  std::string tmp = path + ".part";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return "cannot create " + tmp + ": " + std::strerror(errno);
  size_t wrote = std::fwrite(out.data(), 1, out.size(), f);
  int closed = std::fclose(f);
  if (wrote != out.size() || closed != 0) return "cannot write " + tmp + ": " + std::strerror(errno);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
  return "";
}

}  // namespace capture
