#include "api_calls.h"

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <atomic>

#include "api_table.h"
#include "event_table.h"
#include "python_stack.h"
#include "raw_format.h"
#include "thread_log.h"

namespace capture {
namespace {

std::atomic<bool> stopped{false};

using DriverVersion = CUresult (*)(int*);
DriverVersion getDriverVersion = nullptr;

inline uint64_t now() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

inline uint64_t handle(const void* p) { return reinterpret_cast<uint64_t>(p); }

/** The device of `ctx` as CallBody::device stores it; asked of CUPTI once per change of context. */
uint8_t deviceOf(ThreadLog& log, CUcontext ctx) {
  if (!ctx) return 0;
  if (ctx != log.lastContext) {
    uint32_t id = 0;
    log.toolDepth++;
    const bool ok = cuptiGetDeviceId(ctx, &id) == CUPTI_SUCCESS && id < 255;
    log.toolDepth--;
    log.lastContext = ctx;
    log.lastDevice = ok ? static_cast<uint8_t>(id + 1) : 0;
  }
  return log.lastDevice;
}

/** The handle a creation call wrote through its first parameter (all of them take it first). */
uint64_t created(const void* params) { return handle(**static_cast<void* const* const*>(params)); }

void onExit(CallBody* c, const CUpti_CallbackData* cb) {
  c->end = now();
  if (cb->functionReturnValue) c->result = *static_cast<const int*>(cb->functionReturnValue);
  bool ok = c->result == 0;
  switch (c->api) {
    case kRecord:
      // Counted when the call returns: a wait that begins after this sees the new record.
      if (ok) c->seq = events().record(c->event);
      break;
    case kElapsed:
      if (ok) c->value = **static_cast<float* const*>(cb->functionParams);
      break;
    case kStreamCreate:
      if (ok) {
        c->stream = created(cb->functionParams);
        uint32_t id = 0;
        if (cuptiGetStreamIdEx(cb->context, reinterpret_cast<CUstream>(c->stream), 0, &id) == CUPTI_SUCCESS)
          c->streamId = id;
      }
      break;
    case kEventCreate:
      if (ok) {
        c->event = created(cb->functionParams);
        c->seq = events().latest(c->event);
      }
      break;
    default:
      break;
  }
  endCall(c);
}

}  // namespace

void CUPTIAPI onApiCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (stopped.load(std::memory_order_relaxed)) return;
  auto* cb = static_cast<const CUpti_CallbackData*>(data);
  ThreadLog& log = threadLog();
  if (log.toolDepth > 0) return;
  bool enter = cb->callbackSite == CUPTI_API_ENTER;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && log.runtimeDepth > 0) return;  // the runtime's own driver calls
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (!enter) log.runtimeDepth--;
    else log.runtimeDepth++;
  }
  if (!enter) {
    auto* c = reinterpret_cast<CallBody*>(*cb->correlationData);
    if (c) onExit(c, cb);
    return;
  }
  *cb->correlationData = 0;
  ApiInfo info = apiInfo(domain, cbid);
  if (info.api == kOther) return;
  CallBody* c = beginCall(log);
  if (!c) return;
  c->api = info.api;
  c->domain = static_cast<uint8_t>(domain);
  c->cbid = static_cast<uint16_t>(cbid);
  c->correlationId = cb->correlationId;
  c->device = deviceOf(log, cb->context);
  if (info.read) info.read(log, c, cb->functionParams, info.perThread);
  // Bound when the call begins: S7 binds a wait to the latest record issued before it.
  if (c->api == kStreamWait || c->api == kEventQuery || c->api == kEventSync || c->api == kElapsed)
    c->seq = events().latest(c->event);
  if (c->api == kElapsed) c->seq2 = events().latest(c->event2);
  c->pyStack = py::currentStack(log);
  *cb->correlationData = reinterpret_cast<uint64_t>(c);
  // Last, so the tool's own work above is not counted as the call's time.
  c->begin = now();
}

void stopCalls() { stopped.store(true, std::memory_order_relaxed); }

void resolveDriver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) return;
  setPointerAttribute(reinterpret_cast<PointerAttr>(dlsym(lib, "cuPointerGetAttribute")));
  getDriverVersion = reinterpret_cast<DriverVersion>(dlsym(lib, "cuDriverGetVersion"));
}

int driverVersion() {
  int v = 0;
  if (getDriverVersion) getDriverVersion(&v);
  return v;
}

}  // namespace capture
