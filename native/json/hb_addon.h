// The JavaScript face of the happens-before graph's native half (happens_before.h):
// hbLaneOrder, hbBind, hbCrossLanes, hbClockRows and hbClocks. core/analyze/graph-kernel.ts documents them.
#pragma once

#include <napi.h>

namespace syncscope::json {

void exportHappensBefore(Napi::Env env, Napi::Object exports);

}  // namespace syncscope::json
