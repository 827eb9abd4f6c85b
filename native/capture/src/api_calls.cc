#include "api_calls.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>  // brings the generated *_params structs of both APIs
#include <dlfcn.h>
#include <atomic>

#include "api_table.h"
#include "event_table.h"
#include "raw_format.h"
#include "thread_log.h"

namespace capture {
namespace {

std::atomic<bool> stopped{false};

using PointerAttr = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);
using DriverVersion = CUresult (*)(int*);
PointerAttr pointerAttr = nullptr;
DriverVersion getDriverVersion = nullptr;

// __cudaLaunchKernel (CUDA 13's <<<>>>) has no params struct in the toolkit headers; its
// signature in crt/device_functions.h is cudaLaunchKernel's with a cudaKernel_t.
struct LaunchKernel13Params {
  const void* kernel;
  dim3 gridDim;
  dim3 blockDim;
  void** args;
  size_t sharedMem;
  cudaStream_t stream;
};
struct ElapsedParams {
  float* ms;
  void* start;
  void* end;
};

inline uint64_t now() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

inline uint64_t handle(const void* p) { return reinterpret_cast<uint64_t>(p); }

inline uint64_t streamOf(const void* s, bool perThread) {
  uint64_t h = handle(s);
  if (h == 0) return perThread ? kPerThreadStream : kLegacyStream;
  return h;  // cudaStreamLegacy (1) and cudaStreamPerThread (2) already are kLegacyStream, kPerThreadStream
}

// The driver is asked where a pointer lives; the tool's own driver call must not be recorded.
HostMemory memoryOf(ThreadLog& log, const void* p) {
  if (!pointerAttr || !p) return kMemUnknown;
  CUmemorytype type = static_cast<CUmemorytype>(0);
  log.toolDepth++;
  CUresult r = pointerAttr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, handle(p));
  log.toolDepth--;
  if (r != CUDA_SUCCESS) return kPageable;  // not known to CUDA: ordinary pageable memory
  if (type == CU_MEMORYTYPE_HOST) return kPinned;
  return kDeviceMem;
}

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

/** A copy between `dst` and `src`: its direction and the host side's memory. */
void describeCopy(ThreadLog& log, CallBody* c, const void* dst, const void* src, int runtimeKind) {
  c->flags = static_cast<uint32_t>(runtimeKind);
  switch (runtimeKind) {
    case cudaMemcpyHostToHost: c->copyDir = kHtoH; c->hostMemory = memoryOf(log, src); return;
    case cudaMemcpyHostToDevice: c->copyDir = kHtoD; c->hostMemory = memoryOf(log, src); return;
    case cudaMemcpyDeviceToHost: c->copyDir = kDtoH; c->hostMemory = memoryOf(log, dst); return;
    case cudaMemcpyDeviceToDevice: c->copyDir = kDtoD; return;
    default: break;
  }
  // cudaMemcpyDefault: the driver says where each side lives; the host side's kind comes with it.
  const HostMemory from = memoryOf(log, src);
  const HostMemory to = memoryOf(log, dst);
  const bool srcHost = from != kDeviceMem;
  const bool dstHost = to != kDeviceMem;
  c->copyDir = srcHost ? (dstHost ? kHtoH : kHtoD) : (dstHost ? kDtoH : kDtoD);
  if (srcHost) c->hostMemory = from;
  else if (dstHost) c->hostMemory = to;
}

void onRuntimeEnter(ThreadLog& log, CallBody* c, CUpti_CallbackId id, const void* p, bool pt) {
  switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
      c->stream = streamOf(static_cast<const cudaLaunchKernel_v7000_params*>(p)->stream, pt);
      break;
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
      c->stream = streamOf(static_cast<const LaunchKernel13Params*>(p)->stream, pt);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
      const cudaLaunchConfig_t* cfg = static_cast<const cudaLaunchKernelExC_v11060_params*>(p)->config;
      c->stream = streamOf(cfg ? cfg->stream : nullptr, pt);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000: {
      auto* q = static_cast<const cudaEventRecord_v3020_params*>(p);
      c->event = handle(q->event);
      c->stream = streamOf(q->stream, pt);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010: {
      auto* q = static_cast<const cudaEventRecordWithFlags_v11010_params*>(p);
      c->event = handle(q->event);
      c->stream = streamOf(q->stream, pt);
      c->flags = q->flags;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000: {
      auto* q = static_cast<const cudaStreamWaitEvent_v3020_params*>(p);
      c->stream = streamOf(q->stream, pt);
      c->event = handle(q->event);
      c->flags = q->flags;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020:
      c->event = handle(static_cast<const cudaEventQuery_v3020_params*>(p)->event);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
      c->event = handle(static_cast<const cudaEventSynchronize_v3020_params*>(p)->event);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v12080: {
      auto* q = static_cast<const ElapsedParams*>(p);
      c->event = handle(q->start);
      c->event2 = handle(q->end);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
      c->stream = streamOf(static_cast<const cudaStreamSynchronize_v3020_params*>(p)->stream, pt);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000:
      c->stream = streamOf(static_cast<const cudaStreamQuery_v3020_params*>(p)->stream, pt);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
      auto* q = static_cast<const cudaMemcpy_v3020_params*>(p);
      c->bytes = q->count;
      c->stream = pt ? kPerThreadStream : kLegacyStream;
      describeCopy(log, c, q->dst, q->src, q->kind);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
      auto* q = static_cast<const cudaMemcpyAsync_v3020_params*>(p);
      c->bytes = q->count;
      c->stream = streamOf(q->stream, pt);
      describeCopy(log, c, q->dst, q->src, q->kind);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000: {
      c->bytes = static_cast<const cudaMemcpyPeer_v4000_params*>(p)->count;
      c->stream = pt ? kPerThreadStream : kLegacyStream;
      c->copyDir = kDtoD;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000: {
      auto* q = static_cast<const cudaMemcpyPeerAsync_v4000_params*>(p);
      c->bytes = q->count;
      c->stream = streamOf(q->stream, pt);
      c->copyDir = kDtoD;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000: {
      auto* q = static_cast<const cudaMemset_v3020_params*>(p);
      c->bytes = q->count;
      c->stream = pt ? kPerThreadStream : kLegacyStream;
      c->hostMemory = memoryOf(log, q->devPtr);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000: {
      auto* q = static_cast<const cudaMemsetAsync_v3020_params*>(p);
      c->bytes = q->count;
      c->stream = streamOf(q->stream, pt);
      c->hostMemory = memoryOf(log, q->devPtr);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_ptsz_v10000:
      c->stream = streamOf(static_cast<const cudaLaunchHostFunc_v10000_params*>(p)->stream, pt);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000:
      c->flags = static_cast<const cudaStreamCreateWithFlags_v5000_params*>(p)->flags;
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050: {
      auto* q = static_cast<const cudaStreamCreateWithPriority_v5050_params*>(p);
      c->flags = q->flags;
      c->priority = q->priority;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050:
      c->stream = streamOf(static_cast<const cudaStreamDestroy_v5050_params*>(p)->stream, false);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventCreateWithFlags_v3020:
      c->flags = static_cast<const cudaEventCreateWithFlags_v3020_params*>(p)->flags;
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020:
      c->event = handle(static_cast<const cudaEventDestroy_v3020_params*>(p)->event);
      break;
    default:
      break;
  }
}

void driverCopy(ThreadLog& log, CallBody* c, CopyDir dir, const void* hostPtr, size_t bytes) {
  c->copyDir = dir;
  c->bytes = bytes;
  c->hostMemory = memoryOf(log, hostPtr);
}

void onDriverEnter(ThreadLog& log, CallBody* c, CUpti_CallbackId id, const void* p, bool pt) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      c->stream = streamOf(static_cast<const cuLaunchKernel_params*>(p)->hStream, pt);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const CUlaunchConfig* cfg = static_cast<const cuLaunchKernelEx_params*>(p)->config;
      c->stream = streamOf(cfg ? cfg->hStream : nullptr, pt);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz: {
      auto* q = static_cast<const cuEventRecord_params*>(p);
      c->event = handle(q->hEvent);
      c->stream = streamOf(q->hStream, pt);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz: {
      auto* q = static_cast<const cuEventRecordWithFlags_params*>(p);
      c->event = handle(q->hEvent);
      c->stream = streamOf(q->hStream, pt);
      c->flags = q->flags;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz: {
      auto* q = static_cast<const cuStreamWaitEvent_params*>(p);
      c->stream = streamOf(q->hStream, pt);
      c->event = handle(q->hEvent);
      c->flags = q->Flags;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventQuery:
      c->event = handle(static_cast<const cuEventQuery_params*>(p)->hEvent);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
      c->event = handle(static_cast<const cuEventSynchronize_params*>(p)->hEvent);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuEventElapsedTime:
    case CUPTI_DRIVER_TRACE_CBID_cuEventElapsedTime_v2: {
      auto* q = static_cast<const ElapsedParams*>(p);
      c->event = handle(q->start);
      c->event2 = handle(q->end);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
      c->stream = streamOf(static_cast<const cuStreamSynchronize_params*>(p)->hStream, pt);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds: {
      auto* q = static_cast<const cuMemcpyHtoD_v2_params*>(p);
      c->stream = pt ? kPerThreadStream : kLegacyStream;
      driverCopy(log, c, kHtoD, q->srcHost, q->ByteCount);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds: {
      auto* q = static_cast<const cuMemcpyDtoH_v2_params*>(p);
      c->stream = pt ? kPerThreadStream : kLegacyStream;
      driverCopy(log, c, kDtoH, q->dstHost, q->ByteCount);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz: {
      auto* q = static_cast<const cuMemcpyHtoDAsync_v2_params*>(p);
      c->stream = streamOf(q->hStream, pt);
      driverCopy(log, c, kHtoD, q->srcHost, q->ByteCount);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz: {
      auto* q = static_cast<const cuMemcpyDtoHAsync_v2_params*>(p);
      c->stream = streamOf(q->hStream, pt);
      driverCopy(log, c, kDtoH, q->dstHost, q->ByteCount);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz: {
      auto* q = static_cast<const cuMemcpyDtoDAsync_v2_params*>(p);
      c->stream = streamOf(q->hStream, pt);
      c->copyDir = kDtoD;
      c->bytes = q->ByteCount;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds: {
      auto* q = static_cast<const cuMemcpy_params*>(p);
      c->stream = pt ? kPerThreadStream : kLegacyStream;
      c->bytes = q->ByteCount;
      describeCopy(log, c, reinterpret_cast<const void*>(q->dst), reinterpret_cast<const void*>(q->src), cudaMemcpyDefault);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz: {
      auto* q = static_cast<const cuMemcpyAsync_params*>(p);
      c->stream = streamOf(q->hStream, pt);
      c->bytes = q->ByteCount;
      describeCopy(log, c, reinterpret_cast<const void*>(q->dst), reinterpret_cast<const void*>(q->src), cudaMemcpyDefault);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds:
      c->bytes = static_cast<const cuMemcpyPeer_params*>(p)->ByteCount;
      c->stream = pt ? kPerThreadStream : kLegacyStream;
      c->copyDir = kDtoD;
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz: {
      auto* q = static_cast<const cuMemcpyPeerAsync_params*>(p);
      c->bytes = q->ByteCount;
      c->stream = streamOf(q->hStream, pt);
      c->copyDir = kDtoD;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds: {
      auto* q = static_cast<const cuMemsetD8_v2_params*>(p);  // D32's fields sit at the same offsets
      bool wide = id == CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2 || id == CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds;
      c->stream = pt ? kPerThreadStream : kLegacyStream;
      c->bytes = q->N * (wide ? 4 : 1);
      c->hostMemory = memoryOf(log, reinterpret_cast<const void*>(q->dstDevice));
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz: {
      auto* q = static_cast<const cuMemsetD8Async_params*>(p);
      bool wide = id == CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async || id == CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz;
      c->stream = streamOf(q->hStream, pt);
      c->bytes = q->N * (wide ? 4 : 1);
      c->hostMemory = memoryOf(log, reinterpret_cast<const void*>(q->dstDevice));
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz:
      c->stream = streamOf(static_cast<const cuLaunchHostFunc_params*>(p)->hStream, pt);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreate:
      c->flags = static_cast<const cuStreamCreate_params*>(p)->Flags;
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority: {
      auto* q = static_cast<const cuStreamCreateWithPriority_params*>(p);
      c->flags = q->flags;
      c->priority = q->priority;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2:
      c->stream = streamOf(static_cast<const cuStreamDestroy_v2_params*>(p)->hStream, false);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuEventCreate:
      c->flags = static_cast<const cuEventCreate_params*>(p)->Flags;
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2:
      c->event = handle(static_cast<const cuEventDestroy_v2_params*>(p)->hEvent);
      break;
    default:
      break;
  }
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
        if (cuptiGetStreamIdEx(cb->context, reinterpret_cast<CUstream>(c->stream), 0, &id) == CUPTI_SUCCESS) c->streamId = id;
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
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) onRuntimeEnter(log, c, cbid, cb->functionParams, info.perThread);
  else onDriverEnter(log, c, cbid, cb->functionParams, info.perThread);
  // Bound when the call begins: S7 binds a wait to the latest record issued before it.
  if (c->api == kStreamWait || c->api == kEventQuery || c->api == kEventSync || c->api == kElapsed) c->seq = events().latest(c->event);
  if (c->api == kElapsed) c->seq2 = events().latest(c->event2);
  *cb->correlationData = reinterpret_cast<uint64_t>(c);
  // Last, so the tool's own work above is not counted as the call's time.
  c->begin = now();
}

void stopCalls() { stopped.store(true, std::memory_order_relaxed); }

void resolveDriver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) return;
  pointerAttr = reinterpret_cast<PointerAttr>(dlsym(lib, "cuPointerGetAttribute"));
  getDriverVersion = reinterpret_cast<DriverVersion>(dlsym(lib, "cuDriverGetVersion"));
}

int driverVersion() {
  int v = 0;
  if (getDriverVersion) getDriverVersion(&v);
  return v;
}

}  // namespace capture
