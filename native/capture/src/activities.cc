#include "activities.h"

#include <cupti.h>
#include <cxxabi.h>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "probe.h"
#include "raw_format.h"

namespace capture {
namespace {

constexpr size_t kBufferBytes = 8u << 20;

std::mutex lock;
std::vector<uint8_t>* converted = nullptr;  // raw-stream records, in the order CUPTI delivered them
std::unordered_map<std::string, uint32_t>* names = nullptr;
uint64_t count = 0;
uint64_t dropped = 0;
std::vector<CUpti_ActivityKind>* enabledKinds = nullptr;  // what switchActivities turns off and on

void append(RecordType type, const void* body, uint32_t bytes, const char* tail = nullptr, uint32_t tailBytes = 0) {
  RecordHeader h{type, 0, bytes + tailBytes};
  auto* p = reinterpret_cast<const uint8_t*>(&h);
  converted->insert(converted->end(), p, p + sizeof h);
  p = static_cast<const uint8_t*>(body);
  converted->insert(converted->end(), p, p + bytes);
  if (tailBytes) converted->insert(converted->end(), tail, tail + tailBytes);
  count++;
}

/** Kernel names are written once each; records refer to them by id. Demangled here, off the hot path. */
uint32_t nameId(const char* mangled) {
  std::string key = mangled ? mangled : "";
  auto it = names->find(key);
  if (it != names->end()) return it->second;
  uint32_t id = static_cast<uint32_t>(names->size()) + 1;
  names->emplace(key, id);
  int status = 0;
  char* plain = abi::__cxa_demangle(key.c_str(), nullptr, nullptr, &status);
  std::string shown = status == 0 && plain ? plain : key;
  std::free(plain);
  append(kString, &id, sizeof id, shown.data(), static_cast<uint32_t>(shown.size()));
  return id;
}

void convert(const CUpti_Activity* r) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      KernelBody b{k->correlationId,
                   k->deviceId,
                   k->streamId,
                   nameId(k->name),
                   k->start,
                   k->end,
                   {k->gridX, k->gridY, k->gridZ},
                   {k->blockX, k->blockY, k->blockZ}};
      append(kKernel, &b, sizeof b);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      MemcpyBody b{m->correlationId, m->deviceId, m->streamId, m->copyKind, m->srcKind,
                   m->dstKind,       0,           m->bytes,    m->start,    m->end};
      append(kMemcpy, &b, sizeof b);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      MemsetBody b{m->correlationId, m->deviceId, m->streamId, m->memoryKind, m->bytes, m->start, m->end};
      append(kMemset, &b, sizeof b);
      break;
    }
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
      auto* e = reinterpret_cast<const CUpti_ActivityCudaEvent2*>(r);
      CudaEventBody b{e->correlationId, e->deviceId, e->streamId, e->eventId, e->deviceTimestamp, e->cudaEventSyncId};
      append(kCudaEvent, &b, sizeof b);
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(r);
      SyncBody b{s->correlationId,
                 static_cast<uint32_t>(s->type),
                 s->streamId,
                 s->cudaEventId,
                 s->start,
                 s->end,
                 s->cudaEventSyncId,
                 s->returnValue,
                 0};
      append(kSync, &b, sizeof b);
      break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(r);
      DeviceBody b{d->id, d->numMultiprocessors, d->computeCapabilityMajor, d->computeCapabilityMinor};
      const char* n = d->name ? d->name : "";
      append(kDevice, &b, sizeof b, n, static_cast<uint32_t>(std::strlen(n)));
      break;
    }
    default:
      break;
  }
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  // Zeroed here, on CUPTI's request (ZEROED_OUT_ACTIVITY_BUFFER), so CUPTI does not clear it on the program's thread.
  *buffer = static_cast<uint8_t*>(std::calloc(1, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t* buffer, size_t, size_t valid) {
  {
    std::lock_guard<std::mutex> g(lock);
    CUpti_Activity* r = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) convert(r);
    size_t lost = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, streamId, &lost) == CUPTI_SUCCESS) dropped += lost;
  }
  std::free(buffer);
}

}  // namespace

bool startActivities(const char** why) {
  converted = new std::vector<uint8_t>();
  converted->reserve(1u << 20);
  names = new std::unordered_map<std::string, uint32_t>();
  enabledKinds = new std::vector<CUpti_ActivityKind>();
  if (cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted) != CUPTI_SUCCESS) {
    *why = "cuptiActivityRegisterCallbacks";
    return false;
  }
  uint8_t zeroed = 1;
  size_t size = sizeof zeroed;
  cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &zeroed);
  // Device timestamps on event records say when the GPU passed the record.
  cuptiActivityEnableCudaEventDeviceTimestamps(1);
  const CUpti_ActivityKind kinds[] = {
      CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
      CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_CUDA_EVENT,
  };
  auto probedOut = [](CUpti_ActivityKind k) {
    if (k == CUPTI_ACTIVITY_KIND_DEVICE) return false;
    if (probe("no-activity")) return true;
    if (k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) return probe("no-kernel-activity");
    if (k == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) return probe("no-sync-activity");
    if (k == CUPTI_ACTIVITY_KIND_CUDA_EVENT) return probe("no-event-activity");
    return probe("no-memory-activity");
  };
  for (CUpti_ActivityKind k : kinds) {
    if (probedOut(k)) continue;
    if (cuptiActivityEnable(k) == CUPTI_SUCCESS) {
      if (k != CUPTI_ACTIVITY_KIND_DEVICE) enabledKinds->push_back(k);
    } else if (k != CUPTI_ACTIVITY_KIND_CUDA_EVENT && k != CUPTI_ACTIVITY_KIND_DEVICE) {
      *why = "cuptiActivityEnable";
      return false;
    }
  }
  return true;
}

#ifdef SYNCSCOPE_CAPTURE_MEASURE
void switchActivities(bool on) {
  if (!enabledKinds) return;
  for (CUpti_ActivityKind k : *enabledKinds) on ? cuptiActivityEnable(k) : cuptiActivityDisable(k);
}
#endif

uint64_t takeActivities(std::vector<uint8_t>& out) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> g(lock);
  if (!converted) return 0;
  out.insert(out.end(), converted->begin(), converted->end());
  if (dropped) {
    RecordHeader h{kDropped, 0, 8};
    auto* p = reinterpret_cast<const uint8_t*>(&h);
    out.insert(out.end(), p, p + sizeof h);
    p = reinterpret_cast<const uint8_t*>(&dropped);
    out.insert(out.end(), p, p + 8);
  }
  return count;
}

}  // namespace capture
