// Which CUDA entry points the capture subscribes to, and what each one is (raw_format.h's Api).
#pragma once
#include <cstdint>
#include <cupti.h>

namespace capture {

struct ApiInfo {
  uint8_t api;        // Api; kOther for entry points we do not subscribe to
  bool perThread;     // a _ptsz/_ptds entry point: NULL means the per-thread default stream
};

/** What `cbid` of `domain` is; `api` is kOther for anything not subscribed. */
ApiInfo apiInfo(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

/** Enables (or, with 0, disables) every subscribed entry point on `sub`, less what a probe leaves out; returns the first failure, or CUPTI_SUCCESS. */
CUptiResult enableApiCallbacks(CUpti_SubscriberHandle sub, uint32_t enable = 1);

}  // namespace capture
