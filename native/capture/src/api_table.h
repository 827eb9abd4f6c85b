// Which CUDA entry points the capture subscribes to, what each one is (raw_format.h's Api), and
// how its parameters fill the call's record: one table for the runtime and the driver API.
#pragma once
#include <cuda.h>
#include <cupti.h>
#include <cstdint>

namespace capture {

struct CallBody;
struct ThreadLog;

/** Copies what a call's parameters say (streams, events, flags, bytes) into its record. */
using ReadParams = void (*)(ThreadLog& log, CallBody* c, const void* params, bool perThread);

struct ApiInfo {
  uint8_t api;      // Api; kOther for entry points we do not subscribe to
  bool perThread;   // a _ptsz/_ptds entry point: NULL means the per-thread default stream
  ReadParams read;  // null where the call names nothing the record keeps
};

/** What `cbid` of `domain` is; `api` is kOther for anything not subscribed. */
ApiInfo apiInfo(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

/** Enables (or, with 0, disables) every subscribed entry point on `sub`, less what a probe leaves out; returns the
 * first failure, or CUPTI_SUCCESS. */
CUptiResult enableApiCallbacks(CUpti_SubscriberHandle sub, uint32_t enable = 1);

/** cuPointerGetAttribute, which the readers ask where a copy's host side lives; null: not known. */
using PointerAttr = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);
void setPointerAttribute(PointerAttr f);

}  // namespace capture
