#include "api_table.h"

#include <cuda_runtime_api.h>
#include <cupti.h>  // brings the generated *_params structs of both APIs

#include "probe.h"
#include "raw_format.h"
#include "thread_log.h"

namespace capture {
namespace {

PointerAttr pointerAttr = nullptr;

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

inline uint64_t handle(const void* p) { return reinterpret_cast<uint64_t>(p); }

inline uint64_t streamOf(const void* s, bool perThread) {
  uint64_t h = handle(s);
  if (h == 0) return perThread ? kPerThreadStream : kLegacyStream;
  return h;  // cudaStreamLegacy (1) and cudaStreamPerThread (2) already are kLegacyStream, kPerThreadStream
}

/** The stream of a synchronous call: the thread's default stream. */
inline uint64_t defaultStream(bool perThread) { return perThread ? kPerThreadStream : kLegacyStream; }

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

/** A copy between `dst` and `src`: its direction and the host side's memory. */
void describeCopy(ThreadLog& log, CallBody* c, const void* dst, const void* src, int runtimeKind) {
  c->flags = static_cast<uint32_t>(runtimeKind);
  switch (runtimeKind) {
    case cudaMemcpyHostToHost:
      c->copyDir = kHtoH;
      c->hostMemory = memoryOf(log, src);
      return;
    case cudaMemcpyHostToDevice:
      c->copyDir = kHtoD;
      c->hostMemory = memoryOf(log, src);
      return;
    case cudaMemcpyDeviceToHost:
      c->copyDir = kDtoH;
      c->hostMemory = memoryOf(log, dst);
      return;
    case cudaMemcpyDeviceToDevice:
      c->copyDir = kDtoD;
      return;
    default:
      break;
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

void driverCopy(ThreadLog& log, CallBody* c, CopyDir dir, const void* hostPtr, size_t bytes) {
  c->copyDir = dir;
  c->bytes = bytes;
  c->hostMemory = memoryOf(log, hostPtr);
}

// Readers of one parameter, for a member pointer of the params struct that holds it.

template <typename M>
struct MemberOf;
template <typename C, typename T>
struct MemberOf<T C::*> {
  using Params = C;
};
template <auto Field>
const auto& param(const void* p) {
  return static_cast<const typename MemberOf<decltype(Field)>::Params*>(p)->*Field;
}

template <auto Stream>
void streamArg(ThreadLog&, CallBody* c, const void* p, bool pt) {
  c->stream = streamOf(param<Stream>(p), pt);
}

/** A stream destroyed: named as it is, a NULL stream being the legacy one whatever the entry point. */
template <auto Stream>
void destroyedStream(ThreadLog&, CallBody* c, const void* p, bool) {
  c->stream = streamOf(param<Stream>(p), false);
}

template <auto Event>
void eventArg(ThreadLog&, CallBody* c, const void* p, bool) {
  c->event = handle(param<Event>(p));
}

template <auto Flags>
void flagsArg(ThreadLog&, CallBody* c, const void* p, bool) {
  c->flags = param<Flags>(p);
}

template <typename P>
void streamCreateWithPriority(ThreadLog&, CallBody* c, const void* p, bool) {
  auto* q = static_cast<const P*>(p);
  c->flags = q->flags;
  c->priority = q->priority;
}

void elapsed(ThreadLog&, CallBody* c, const void* p, bool) {
  auto* q = static_cast<const ElapsedParams*>(p);
  c->event = handle(q->start);
  c->event2 = handle(q->end);
}

// The runtime API's readers.

void cudaLaunchEx(ThreadLog&, CallBody* c, const void* p, bool pt) {
  const cudaLaunchConfig_t* cfg = static_cast<const cudaLaunchKernelExC_v11060_params*>(p)->config;
  c->stream = streamOf(cfg ? cfg->stream : nullptr, pt);
}

void cudaRecord(ThreadLog&, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cudaEventRecord_v3020_params*>(p);
  c->event = handle(q->event);
  c->stream = streamOf(q->stream, pt);
}

void cudaRecordWithFlags(ThreadLog&, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cudaEventRecordWithFlags_v11010_params*>(p);
  c->event = handle(q->event);
  c->stream = streamOf(q->stream, pt);
  c->flags = q->flags;
}

void cudaWait(ThreadLog&, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cudaStreamWaitEvent_v3020_params*>(p);
  c->stream = streamOf(q->stream, pt);
  c->event = handle(q->event);
  c->flags = q->flags;
}

void cudaCopy(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cudaMemcpy_v3020_params*>(p);
  c->bytes = q->count;
  c->stream = defaultStream(pt);
  describeCopy(log, c, q->dst, q->src, q->kind);
}

void cudaCopyAsync(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cudaMemcpyAsync_v3020_params*>(p);
  c->bytes = q->count;
  c->stream = streamOf(q->stream, pt);
  describeCopy(log, c, q->dst, q->src, q->kind);
}

void cudaCopyPeer(ThreadLog&, CallBody* c, const void* p, bool pt) {
  c->bytes = static_cast<const cudaMemcpyPeer_v4000_params*>(p)->count;
  c->stream = defaultStream(pt);
  c->copyDir = kDtoD;
}

void cudaCopyPeerAsync(ThreadLog&, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cudaMemcpyPeerAsync_v4000_params*>(p);
  c->bytes = q->count;
  c->stream = streamOf(q->stream, pt);
  c->copyDir = kDtoD;
}

void cudaSet(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cudaMemset_v3020_params*>(p);
  c->bytes = q->count;
  c->stream = defaultStream(pt);
  c->hostMemory = memoryOf(log, q->devPtr);
}

void cudaSetAsync(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cudaMemsetAsync_v3020_params*>(p);
  c->bytes = q->count;
  c->stream = streamOf(q->stream, pt);
  c->hostMemory = memoryOf(log, q->devPtr);
}

// The driver API's readers.

void cuLaunchEx(ThreadLog&, CallBody* c, const void* p, bool pt) {
  const CUlaunchConfig* cfg = static_cast<const cuLaunchKernelEx_params*>(p)->config;
  c->stream = streamOf(cfg ? cfg->hStream : nullptr, pt);
}

void cuRecord(ThreadLog&, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuEventRecord_params*>(p);
  c->event = handle(q->hEvent);
  c->stream = streamOf(q->hStream, pt);
}

void cuRecordWithFlags(ThreadLog&, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuEventRecordWithFlags_params*>(p);
  c->event = handle(q->hEvent);
  c->stream = streamOf(q->hStream, pt);
  c->flags = q->flags;
}

void cuWait(ThreadLog&, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuStreamWaitEvent_params*>(p);
  c->stream = streamOf(q->hStream, pt);
  c->event = handle(q->hEvent);
  c->flags = q->Flags;
}

void cuCopyHtoD(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuMemcpyHtoD_v2_params*>(p);
  c->stream = defaultStream(pt);
  driverCopy(log, c, kHtoD, q->srcHost, q->ByteCount);
}

void cuCopyDtoH(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuMemcpyDtoH_v2_params*>(p);
  c->stream = defaultStream(pt);
  driverCopy(log, c, kDtoH, q->dstHost, q->ByteCount);
}

void cuCopyHtoDAsync(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuMemcpyHtoDAsync_v2_params*>(p);
  c->stream = streamOf(q->hStream, pt);
  driverCopy(log, c, kHtoD, q->srcHost, q->ByteCount);
}

void cuCopyDtoHAsync(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuMemcpyDtoHAsync_v2_params*>(p);
  c->stream = streamOf(q->hStream, pt);
  driverCopy(log, c, kDtoH, q->dstHost, q->ByteCount);
}

void cuCopyDtoDAsync(ThreadLog&, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuMemcpyDtoDAsync_v2_params*>(p);
  c->stream = streamOf(q->hStream, pt);
  c->copyDir = kDtoD;
  c->bytes = q->ByteCount;
}

void cuCopy(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuMemcpy_params*>(p);
  c->stream = defaultStream(pt);
  c->bytes = q->ByteCount;
  describeCopy(log, c, reinterpret_cast<const void*>(q->dst), reinterpret_cast<const void*>(q->src), cudaMemcpyDefault);
}

void cuCopyAsync(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuMemcpyAsync_params*>(p);
  c->stream = streamOf(q->hStream, pt);
  c->bytes = q->ByteCount;
  describeCopy(log, c, reinterpret_cast<const void*>(q->dst), reinterpret_cast<const void*>(q->src), cudaMemcpyDefault);
}

void cuCopyPeer(ThreadLog&, CallBody* c, const void* p, bool pt) {
  c->bytes = static_cast<const cuMemcpyPeer_params*>(p)->ByteCount;
  c->stream = defaultStream(pt);
  c->copyDir = kDtoD;
}

void cuCopyPeerAsync(ThreadLog&, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuMemcpyPeerAsync_params*>(p);
  c->bytes = q->ByteCount;
  c->stream = streamOf(q->hStream, pt);
  c->copyDir = kDtoD;
}

/** cuMemsetD8 and cuMemsetD32, `Unit` bytes per element: D32's fields sit at D8's offsets. */
template <unsigned Unit>
void cuSet(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuMemsetD8_v2_params*>(p);
  c->stream = defaultStream(pt);
  c->bytes = q->N * Unit;
  c->hostMemory = memoryOf(log, reinterpret_cast<const void*>(q->dstDevice));
}

template <unsigned Unit>
void cuSetAsync(ThreadLog& log, CallBody* c, const void* p, bool pt) {
  auto* q = static_cast<const cuMemsetD8Async_params*>(p);
  c->stream = streamOf(q->hStream, pt);
  c->bytes = q->N * Unit;
  c->hostMemory = memoryOf(log, reinterpret_cast<const void*>(q->dstDevice));
}

struct Entry {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  ApiInfo info;
};

#define RT(name, api, ptsz, read)                                                     \
  {                                                                                   \
    CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##name, { api, ptsz, read } \
  }
#define DRV(name, api, ptsz, read)                                                  \
  {                                                                                 \
    CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##name, { api, ptsz, read } \
  }

using RtLaunch = cudaLaunchKernel_v7000_params;
using RtStreamSync = cudaStreamSynchronize_v3020_params;
using RtStreamQuery = cudaStreamQuery_v3020_params;
using RtHostFunc = cudaLaunchHostFunc_v10000_params;
using RtGraphLaunch = cudaGraphLaunch_v10000_params;

// Runtime entry points first: they are what programs call. Driver entry points catch programs and
// libraries that call the driver directly (Triton, the tool's own scenarios); the ones the
// runtime makes inside a runtime call are skipped at run time.
const Entry kEntries[] = {
    RT(cudaLaunchKernel_v7000, kLaunch, false, streamArg<&RtLaunch::stream>),
    RT(cudaLaunchKernel_ptsz_v7000, kLaunch, true, streamArg<&RtLaunch::stream>),
    RT(__cudaLaunchKernel_v13000, kLaunch, false, streamArg<&LaunchKernel13Params::stream>),
    RT(__cudaLaunchKernel_ptsz_v13000, kLaunch, true, streamArg<&LaunchKernel13Params::stream>),
    RT(cudaLaunchKernelExC_v11060, kLaunch, false, cudaLaunchEx),
    RT(cudaLaunchKernelExC_ptsz_v11060, kLaunch, true, cudaLaunchEx),
    RT(cudaGraphLaunch_v10000, kGraphLaunch, false, streamArg<&RtGraphLaunch::stream>),
    RT(cudaGraphLaunch_ptsz_v10000, kGraphLaunch, true, streamArg<&RtGraphLaunch::stream>),
    RT(cudaEventRecord_v3020, kRecord, false, cudaRecord),
    RT(cudaEventRecord_ptsz_v7000, kRecord, true, cudaRecord),
    RT(cudaEventRecordWithFlags_v11010, kRecord, false, cudaRecordWithFlags),
    RT(cudaEventRecordWithFlags_ptsz_v11010, kRecord, true, cudaRecordWithFlags),
    RT(cudaStreamWaitEvent_v3020, kStreamWait, false, cudaWait),
    RT(cudaStreamWaitEvent_ptsz_v7000, kStreamWait, true, cudaWait),
    RT(cudaEventQuery_v3020, kEventQuery, false, eventArg<&cudaEventQuery_v3020_params::event>),
    RT(cudaEventSynchronize_v3020, kEventSync, false, eventArg<&cudaEventSynchronize_v3020_params::event>),
    RT(cudaEventElapsedTime_v3020, kElapsed, false, elapsed),
    RT(cudaEventElapsedTime_v12080, kElapsed, false, elapsed),
    RT(cudaStreamSynchronize_v3020, kStreamSync, false, streamArg<&RtStreamSync::stream>),
    RT(cudaStreamSynchronize_ptsz_v7000, kStreamSync, true, streamArg<&RtStreamSync::stream>),
    RT(cudaStreamQuery_v3020, kStreamQuery, false, streamArg<&RtStreamQuery::stream>),
    RT(cudaStreamQuery_ptsz_v7000, kStreamQuery, true, streamArg<&RtStreamQuery::stream>),
    RT(cudaDeviceSynchronize_v3020, kDeviceSync, false, nullptr),
    RT(cudaMemcpy_v3020, kMemcpyCall, false, cudaCopy),
    RT(cudaMemcpy_ptds_v7000, kMemcpyCall, true, cudaCopy),
    RT(cudaMemcpyAsync_v3020, kMemcpyCall, false, cudaCopyAsync),
    RT(cudaMemcpyAsync_ptsz_v7000, kMemcpyCall, true, cudaCopyAsync),
    RT(cudaMemcpyPeer_v4000, kMemcpyCall, false, cudaCopyPeer),
    RT(cudaMemcpyPeerAsync_v4000, kMemcpyCall, false, cudaCopyPeerAsync),
    RT(cudaMemset_v3020, kMemsetCall, false, cudaSet),
    RT(cudaMemset_ptds_v7000, kMemsetCall, true, cudaSet),
    RT(cudaMemsetAsync_v3020, kMemsetCall, false, cudaSetAsync),
    RT(cudaMemsetAsync_ptsz_v7000, kMemsetCall, true, cudaSetAsync),
    RT(cudaLaunchHostFunc_v10000, kHostFunc, false, streamArg<&RtHostFunc::stream>),
    RT(cudaLaunchHostFunc_ptsz_v10000, kHostFunc, true, streamArg<&RtHostFunc::stream>),
    RT(cudaStreamCreate_v3020, kStreamCreate, false, nullptr),
    RT(cudaStreamCreateWithFlags_v5000, kStreamCreate, false, flagsArg<&cudaStreamCreateWithFlags_v5000_params::flags>),
    RT(cudaStreamCreateWithPriority_v5050, kStreamCreate, false,
       streamCreateWithPriority<cudaStreamCreateWithPriority_v5050_params>),
    // Both versions take the same parameters.
    RT(cudaStreamDestroy_v3020, kStreamDestroy, false, destroyedStream<&cudaStreamDestroy_v5050_params::stream>),
    RT(cudaStreamDestroy_v5050, kStreamDestroy, false, destroyedStream<&cudaStreamDestroy_v5050_params::stream>),
    RT(cudaEventCreate_v3020, kEventCreate, false, nullptr),
    RT(cudaEventCreateWithFlags_v3020, kEventCreate, false, flagsArg<&cudaEventCreateWithFlags_v3020_params::flags>),
    RT(cudaEventDestroy_v3020, kEventDestroy, false, eventArg<&cudaEventDestroy_v3020_params::event>),

    DRV(cuLaunchKernel, kLaunch, false, streamArg<&cuLaunchKernel_params::hStream>),
    DRV(cuLaunchKernel_ptsz, kLaunch, true, streamArg<&cuLaunchKernel_params::hStream>),
    DRV(cuLaunchKernelEx, kLaunch, false, cuLaunchEx),
    DRV(cuLaunchKernelEx_ptsz, kLaunch, true, cuLaunchEx),
    DRV(cuGraphLaunch, kGraphLaunch, false, streamArg<&cuGraphLaunch_params::hStream>),
    DRV(cuGraphLaunch_ptsz, kGraphLaunch, true, streamArg<&cuGraphLaunch_params::hStream>),
    DRV(cuEventRecord, kRecord, false, cuRecord),
    DRV(cuEventRecord_ptsz, kRecord, true, cuRecord),
    DRV(cuEventRecordWithFlags, kRecord, false, cuRecordWithFlags),
    DRV(cuEventRecordWithFlags_ptsz, kRecord, true, cuRecordWithFlags),
    DRV(cuStreamWaitEvent, kStreamWait, false, cuWait),
    DRV(cuStreamWaitEvent_ptsz, kStreamWait, true, cuWait),
    DRV(cuEventQuery, kEventQuery, false, eventArg<&cuEventQuery_params::hEvent>),
    DRV(cuEventSynchronize, kEventSync, false, eventArg<&cuEventSynchronize_params::hEvent>),
    DRV(cuEventElapsedTime, kElapsed, false, elapsed),
    DRV(cuEventElapsedTime_v2, kElapsed, false, elapsed),
    DRV(cuStreamSynchronize, kStreamSync, false, streamArg<&cuStreamSynchronize_params::hStream>),
    DRV(cuStreamSynchronize_ptsz, kStreamSync, true, streamArg<&cuStreamSynchronize_params::hStream>),
    DRV(cuCtxSynchronize, kDeviceSync, false, nullptr),
    DRV(cuCtxSynchronize_v2, kDeviceSync, false, nullptr),
    DRV(cuMemcpyHtoD_v2, kMemcpyCall, false, cuCopyHtoD),
    DRV(cuMemcpyHtoD_v2_ptds, kMemcpyCall, true, cuCopyHtoD),
    DRV(cuMemcpyDtoH_v2, kMemcpyCall, false, cuCopyDtoH),
    DRV(cuMemcpyDtoH_v2_ptds, kMemcpyCall, true, cuCopyDtoH),
    DRV(cuMemcpyHtoDAsync_v2, kMemcpyCall, false, cuCopyHtoDAsync),
    DRV(cuMemcpyHtoDAsync_v2_ptsz, kMemcpyCall, true, cuCopyHtoDAsync),
    DRV(cuMemcpyDtoHAsync_v2, kMemcpyCall, false, cuCopyDtoHAsync),
    DRV(cuMemcpyDtoHAsync_v2_ptsz, kMemcpyCall, true, cuCopyDtoHAsync),
    DRV(cuMemcpyDtoDAsync_v2, kMemcpyCall, false, cuCopyDtoDAsync),
    DRV(cuMemcpyDtoDAsync_v2_ptsz, kMemcpyCall, true, cuCopyDtoDAsync),
    DRV(cuMemcpy, kMemcpyCall, false, cuCopy),
    DRV(cuMemcpy_ptds, kMemcpyCall, true, cuCopy),
    DRV(cuMemcpyAsync, kMemcpyCall, false, cuCopyAsync),
    DRV(cuMemcpyAsync_ptsz, kMemcpyCall, true, cuCopyAsync),
    DRV(cuMemcpyPeer, kMemcpyCall, false, cuCopyPeer),
    DRV(cuMemcpyPeer_ptds, kMemcpyCall, true, cuCopyPeer),
    DRV(cuMemcpyPeerAsync, kMemcpyCall, false, cuCopyPeerAsync),
    DRV(cuMemcpyPeerAsync_ptsz, kMemcpyCall, true, cuCopyPeerAsync),
    DRV(cuMemsetD8_v2, kMemsetCall, false, cuSet<1>),
    DRV(cuMemsetD8_v2_ptds, kMemsetCall, true, cuSet<1>),
    DRV(cuMemsetD32_v2, kMemsetCall, false, cuSet<4>),
    DRV(cuMemsetD32_v2_ptds, kMemsetCall, true, cuSet<4>),
    DRV(cuMemsetD8Async, kMemsetCall, false, cuSetAsync<1>),
    DRV(cuMemsetD8Async_ptsz, kMemsetCall, true, cuSetAsync<1>),
    DRV(cuMemsetD32Async, kMemsetCall, false, cuSetAsync<4>),
    DRV(cuMemsetD32Async_ptsz, kMemsetCall, true, cuSetAsync<4>),
    DRV(cuLaunchHostFunc, kHostFunc, false, streamArg<&cuLaunchHostFunc_params::hStream>),
    DRV(cuLaunchHostFunc_ptsz, kHostFunc, true, streamArg<&cuLaunchHostFunc_params::hStream>),
    DRV(cuStreamCreate, kStreamCreate, false, flagsArg<&cuStreamCreate_params::Flags>),
    DRV(cuStreamCreateWithPriority, kStreamCreate, false, streamCreateWithPriority<cuStreamCreateWithPriority_params>),
    DRV(cuStreamDestroy_v2, kStreamDestroy, false, destroyedStream<&cuStreamDestroy_v2_params::hStream>),
    DRV(cuEventCreate, kEventCreate, false, flagsArg<&cuEventCreate_params::Flags>),
    DRV(cuEventDestroy_v2, kEventDestroy, false, eventArg<&cuEventDestroy_v2_params::hEvent>),
};

#undef RT
#undef DRV

constexpr uint32_t kMaxCbid = 1024;

struct Lookup {
  ApiInfo runtime[kMaxCbid] = {};
  ApiInfo driver[kMaxCbid] = {};
  Lookup() {
    for (const Entry& e : kEntries) {
      if (e.cbid >= kMaxCbid) continue;
      (e.domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime : driver)[e.cbid] = e.info;
    }
  }
};

const Lookup& lookup() {
  static const Lookup table;
  return table;
}

}  // namespace

ApiInfo apiInfo(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (cbid >= kMaxCbid) return {kOther, false, nullptr};
  const Lookup& l = lookup();
  return domain == CUPTI_CB_DOMAIN_RUNTIME_API  ? l.runtime[cbid]
         : domain == CUPTI_CB_DOMAIN_DRIVER_API ? l.driver[cbid]
                                                : ApiInfo{kOther, false, nullptr};
}

CUptiResult enableApiCallbacks(CUpti_SubscriberHandle sub, uint32_t enable) {
  lookup();
  const bool driver = !probe("no-driver-callbacks");
  const bool launches = !probe("no-launch-callbacks");
  CUptiResult first = CUPTI_SUCCESS;
  for (const Entry& e : kEntries) {
    if (!driver && e.domain == CUPTI_CB_DOMAIN_DRIVER_API) continue;
    if (!launches && (e.info.api == kLaunch || e.info.api == kGraphLaunch)) continue;
    CUptiResult r = cuptiEnableCallback(enable, sub, e.domain, e.cbid);
    if (r != CUPTI_SUCCESS && first == CUPTI_SUCCESS) first = r;
  }
  return first;
}

void setPointerAttribute(PointerAttr f) { pointerAttr = f; }

}  // namespace capture
