// Prints the runtime's side of the wire format (runtime.h) as JSON, for
// test/native/wire-format.test.ts to compare with core/gpu-run/encode.ts. Needs a C++17 compiler only:
//   c++ -std=c++17 -Inative/src native/check/wire_format_check.cc -o wire_format_check
#include <cstdio>

#include "runtime.h"

using namespace syncscope;

namespace {

struct Named {
  const char* name;
  long long value;
};

// The wire's names for the C++ enumerators: core/gpu-run/encode.ts's OPCODES, REC and SCHEDULE_FLAGS keys.
const Named kOps[] = {
    {"launch", OpLaunch},         {"record", OpRecord},       {"wait", OpWait},
    {"query", OpQuery},           {"eventSync", OpEventSync}, {"streamSync", OpStreamSync},
    {"deviceSync", OpDeviceSync}, {"elapsed", OpElapsed},     {"copy", OpCopy},
    {"memset", OpMemset},         {"hostWork", OpHostWork},   {"hostFunc", OpHostFunc},
    {"setDevice", OpSetDevice},
};
const Named kRecordFields[] = {
    {"hostBegin", RecHostBegin}, {"hostEnd", RecHostEnd},   {"status", RecStatus}, {"answer", RecAnswer},
    {"value", RecValue},         {"gpuStart", RecGpuStart}, {"gpuEnd", RecGpuEnd}, {"truthStart", RecTruthStart},
    {"truthEnd", RecTruthEnd},   {"done", RecDone},
};
const Named kSchedules[] = {
    {"auto", CU_CTX_SCHED_AUTO},
    {"spin", CU_CTX_SCHED_SPIN},
    {"yield", CU_CTX_SCHED_YIELD},
    {"blockingSync", CU_CTX_SCHED_BLOCKING_SYNC},
};

template <size_t N>
void printObject(const char* key, const Named (&fields)[N], const char* after = ",\n") {
  std::printf("  \"%s\": {", key);
  for (size_t i = 0; i < N; i++) std::printf("%s\"%s\": %lld", i ? ", " : "", fields[i].name, fields[i].value);
  std::printf("}%s", after);
}

}  // namespace

// Every enumerator named once: a new one on this side fails here until it is named above.
static_assert(sizeof kOps / sizeof kOps[0] == OpCount, "name every Op");
static_assert(sizeof kRecordFields / sizeof kRecordFields[0] == RecCount, "name every Rec");

int main() {
  std::printf("{\n");
  std::printf("  \"stepWidth\": %d,\n  \"stepDevice\": %d,\n", kStepWidth, kStepDevice);
  std::printf("  \"streamWidth\": %d,\n  \"eventWidth\": %d,\n  \"bufferWidth\": %d,\n", kStreamWidth, kEventWidth,
              kBufferWidth);
  std::printf("  \"recordWidth\": %d,\n  \"latencySampleWidth\": %d,\n", kRecordWidth, kLatencySampleWidth);
  std::printf("  \"opCount\": %d,\n", int(OpCount));
  printObject("ops", kOps);
  printObject("record", kRecordFields);
  printObject("schedules", kSchedules);
  const Named elementBytes[] = {
      {"devices", sizeof(Job::devices[0])},     {"schedules", sizeof(Job::schedules[0])},
      {"bareSteps", sizeof(Job::bareSteps[0])}, {"streams", sizeof(Job::streams[0])},
      {"events", sizeof(Job::events[0])},       {"buffers", sizeof(Job::buffers[0])},
      {"threads", sizeof(Job::threads[0])},     {"steps", sizeof(Job::steps[0])},
      {"values", sizeof(Job::values[0])},
  };
  printObject("elementBytes", elementBytes, "\n");
  std::printf("}\n");
  return 0;
}
