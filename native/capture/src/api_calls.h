// The API callback: one record per call the program makes to a subscribed entry point, with the
// handles it named, what it returned and, for events, which record it refers to.
#pragma once
#include <cupti.h>

namespace capture {

void CUPTIAPI onApiCallback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);

/** Stops recording calls: after the final write, late calls during teardown are ignored. */
void stopCalls();

/** Resolves the driver entry points the callback uses; call once, from the injection entry. */
void resolveDriver();

/** cuDriverGetVersion, or 0. */
int driverVersion();

}  // namespace capture
