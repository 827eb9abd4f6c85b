#include "api_table.h"

#include "probe.h"
#include "raw_format.h"

namespace capture {
namespace {

struct Entry {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  ApiInfo info;
};

#define RT(name, api, ptsz) {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##name, {api, ptsz}}
#define DRV(name, api, ptsz) {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##name, {api, ptsz}}

// Runtime entry points first: they are what programs call. Driver entry points catch programs and
// libraries that call the driver directly (Triton, the tool's own scenarios); the ones the
// runtime makes inside a runtime call are skipped at run time.
const Entry kEntries[] = {
    RT(cudaLaunchKernel_v7000, kLaunch, false), RT(cudaLaunchKernel_ptsz_v7000, kLaunch, true),
    RT(__cudaLaunchKernel_v13000, kLaunch, false), RT(__cudaLaunchKernel_ptsz_v13000, kLaunch, true),
    RT(cudaLaunchKernelExC_v11060, kLaunch, false), RT(cudaLaunchKernelExC_ptsz_v11060, kLaunch, true),
    RT(cudaEventRecord_v3020, kRecord, false), RT(cudaEventRecord_ptsz_v7000, kRecord, true),
    RT(cudaEventRecordWithFlags_v11010, kRecord, false), RT(cudaEventRecordWithFlags_ptsz_v11010, kRecord, true),
    RT(cudaStreamWaitEvent_v3020, kStreamWait, false), RT(cudaStreamWaitEvent_ptsz_v7000, kStreamWait, true),
    RT(cudaEventQuery_v3020, kEventQuery, false), RT(cudaEventSynchronize_v3020, kEventSync, false),
    RT(cudaEventElapsedTime_v3020, kElapsed, false), RT(cudaEventElapsedTime_v12080, kElapsed, false),
    RT(cudaStreamSynchronize_v3020, kStreamSync, false), RT(cudaStreamSynchronize_ptsz_v7000, kStreamSync, true),
    RT(cudaStreamQuery_v3020, kStreamQuery, false), RT(cudaStreamQuery_ptsz_v7000, kStreamQuery, true),
    RT(cudaDeviceSynchronize_v3020, kDeviceSync, false),
    RT(cudaMemcpy_v3020, kMemcpyCall, false), RT(cudaMemcpy_ptds_v7000, kMemcpyCall, true),
    RT(cudaMemcpyAsync_v3020, kMemcpyCall, false), RT(cudaMemcpyAsync_ptsz_v7000, kMemcpyCall, true),
    RT(cudaMemcpyPeer_v4000, kMemcpyCall, false), RT(cudaMemcpyPeerAsync_v4000, kMemcpyCall, false),
    RT(cudaMemset_v3020, kMemsetCall, false), RT(cudaMemset_ptds_v7000, kMemsetCall, true),
    RT(cudaMemsetAsync_v3020, kMemsetCall, false), RT(cudaMemsetAsync_ptsz_v7000, kMemsetCall, true),
    RT(cudaLaunchHostFunc_v10000, kHostFunc, false), RT(cudaLaunchHostFunc_ptsz_v10000, kHostFunc, true),
    RT(cudaStreamCreate_v3020, kStreamCreate, false), RT(cudaStreamCreateWithFlags_v5000, kStreamCreate, false),
    RT(cudaStreamCreateWithPriority_v5050, kStreamCreate, false),
    RT(cudaStreamDestroy_v3020, kStreamDestroy, false), RT(cudaStreamDestroy_v5050, kStreamDestroy, false),
    RT(cudaEventCreate_v3020, kEventCreate, false), RT(cudaEventCreateWithFlags_v3020, kEventCreate, false),
    RT(cudaEventDestroy_v3020, kEventDestroy, false),

    DRV(cuLaunchKernel, kLaunch, false), DRV(cuLaunchKernel_ptsz, kLaunch, true),
    DRV(cuLaunchKernelEx, kLaunch, false), DRV(cuLaunchKernelEx_ptsz, kLaunch, true),
    DRV(cuEventRecord, kRecord, false), DRV(cuEventRecord_ptsz, kRecord, true),
    DRV(cuEventRecordWithFlags, kRecord, false), DRV(cuEventRecordWithFlags_ptsz, kRecord, true),
    DRV(cuStreamWaitEvent, kStreamWait, false), DRV(cuStreamWaitEvent_ptsz, kStreamWait, true),
    DRV(cuEventQuery, kEventQuery, false), DRV(cuEventSynchronize, kEventSync, false),
    DRV(cuEventElapsedTime, kElapsed, false), DRV(cuEventElapsedTime_v2, kElapsed, false),
    DRV(cuStreamSynchronize, kStreamSync, false), DRV(cuStreamSynchronize_ptsz, kStreamSync, true),
    DRV(cuCtxSynchronize, kDeviceSync, false), DRV(cuCtxSynchronize_v2, kDeviceSync, false),
    DRV(cuMemcpyHtoD_v2, kMemcpyCall, false), DRV(cuMemcpyHtoD_v2_ptds, kMemcpyCall, true),
    DRV(cuMemcpyDtoH_v2, kMemcpyCall, false), DRV(cuMemcpyDtoH_v2_ptds, kMemcpyCall, true),
    DRV(cuMemcpyHtoDAsync_v2, kMemcpyCall, false), DRV(cuMemcpyHtoDAsync_v2_ptsz, kMemcpyCall, true),
    DRV(cuMemcpyDtoHAsync_v2, kMemcpyCall, false), DRV(cuMemcpyDtoHAsync_v2_ptsz, kMemcpyCall, true),
    DRV(cuMemcpyDtoDAsync_v2, kMemcpyCall, false), DRV(cuMemcpyDtoDAsync_v2_ptsz, kMemcpyCall, true),
    DRV(cuMemcpy, kMemcpyCall, false), DRV(cuMemcpy_ptds, kMemcpyCall, true),
    DRV(cuMemcpyAsync, kMemcpyCall, false), DRV(cuMemcpyAsync_ptsz, kMemcpyCall, true),
    DRV(cuMemcpyPeer, kMemcpyCall, false), DRV(cuMemcpyPeer_ptds, kMemcpyCall, true),
    DRV(cuMemcpyPeerAsync, kMemcpyCall, false), DRV(cuMemcpyPeerAsync_ptsz, kMemcpyCall, true),
    DRV(cuMemsetD8_v2, kMemsetCall, false), DRV(cuMemsetD8_v2_ptds, kMemsetCall, true),
    DRV(cuMemsetD32_v2, kMemsetCall, false), DRV(cuMemsetD32_v2_ptds, kMemsetCall, true),
    DRV(cuMemsetD8Async, kMemsetCall, false), DRV(cuMemsetD8Async_ptsz, kMemsetCall, true),
    DRV(cuMemsetD32Async, kMemsetCall, false), DRV(cuMemsetD32Async_ptsz, kMemsetCall, true),
    DRV(cuLaunchHostFunc, kHostFunc, false), DRV(cuLaunchHostFunc_ptsz, kHostFunc, true),
    DRV(cuStreamCreate, kStreamCreate, false), DRV(cuStreamCreateWithPriority, kStreamCreate, false),
    DRV(cuStreamDestroy_v2, kStreamDestroy, false),
    DRV(cuEventCreate, kEventCreate, false), DRV(cuEventDestroy_v2, kEventDestroy, false),
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
  if (cbid >= kMaxCbid) return {kOther, false};
  const Lookup& l = lookup();
  return domain == CUPTI_CB_DOMAIN_RUNTIME_API ? l.runtime[cbid] : domain == CUPTI_CB_DOMAIN_DRIVER_API ? l.driver[cbid] : ApiInfo{kOther, false};
}

CUptiResult enableApiCallbacks(CUpti_SubscriberHandle sub, uint32_t enable) {
  lookup();
  const bool driver = !probe("no-driver-callbacks");
  const bool launches = !probe("no-launch-callbacks");
  CUptiResult first = CUPTI_SUCCESS;
  for (const Entry& e : kEntries) {
    if (!driver && e.domain == CUPTI_CB_DOMAIN_DRIVER_API) continue;
    if (!launches && e.info.api == kLaunch) continue;
    CUptiResult r = cuptiEnableCallback(enable, sub, e.domain, e.cbid);
    if (r != CUPTI_SUCCESS && first == CUPTI_SUCCESS) first = r;
  }
  return first;
}

}  // namespace capture
