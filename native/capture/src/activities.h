// Activity records: CUPTI fills large buffers on its own thread and hands them back full; each
// record we keep is converted to its raw-stream form there, off the program's threads.
#pragma once
#include <cstdint>
#include <vector>

namespace capture {

/** Registers the buffer callbacks and enables the activity kinds; returns false with `why` set. */
bool startActivities(const char** why);

#ifdef SYNCSCOPE_CAPTURE_MEASURE
/** Turns the kinds startActivities enabled off, or on again (the capture benchmark's build only). */
void switchActivities(bool on);
#endif

/** Flushes CUPTI's buffers and appends everything converted so far to `out`. Returns the record count. */
uint64_t takeActivities(std::vector<uint8_t>& out);

}  // namespace capture
