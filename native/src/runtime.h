// Executes an encoded Program (core/gpu-run/encode.ts documents the layout) on one or more devices and
// returns raw records: host timestamps, event times and the kernels' own %globaltimer stamps.
// Turning them into a Trace happens in TypeScript (core/gpu-run/assemble.ts).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_driver.h"

namespace syncscope {

// Must match core/gpu-run/encode.ts: test/native/wire-format.test.ts compares the two
// (native/check/wire_format_check.cc prints this side).
constexpr int kStepWidth = 8;
constexpr int kStepDevice = 7;  // the step word holding the device whose context it runs in, or -1
constexpr int kStreamWidth = 5;
constexpr int kEventWidth = 3;
constexpr int kBufferWidth = 3;
constexpr int kRecordWidth = 10;
// Samples of each kind that measureLatency() takes (core/gpu-run/align.ts reads them).
constexpr int kLatencySamples = 50;
// Numbers per latency sample in a device's calibration block: a chain row, an idle row and an
// after-copy row (measureLatency() says what each holds).
constexpr int kChainRowWidth = 3;
constexpr int kIdleRowWidth = 5;
constexpr int kAfterCopyRowWidth = 4;
constexpr int kLatencySampleWidth = kChainRowWidth + kIdleRowWidth + kAfterCopyRowWidth;
// The copy a kernel is timed behind: a page, rather than a 4-byte copy that a driver may treat as a
// special case: the latency behind a copy changes more from run to run than with the copy's size.
constexpr size_t kLatencyCopyBytes = 4096;

enum Op : int32_t {
  OpLaunch,
  OpRecord,
  OpWait,
  OpQuery,
  OpEventSync,
  OpStreamSync,
  OpDeviceSync,
  OpElapsed,
  OpCopy,
  OpMemset,
  OpHostWork,
  OpHostFunc,
  OpSetDevice,
  OpCount,  // keep last: the number of opcodes
};
enum StreamKind : int32_t { StreamUser, StreamLegacy, StreamPerThread };
enum Rec : int {
  RecHostBegin,
  RecHostEnd,
  RecStatus,
  RecAnswer,
  RecValue,
  RecGpuStart,
  RecGpuEnd,
  RecTruthStart,
  RecTruthEnd,
  RecDone,
  RecCount,  // keep last: the number of fields of a record
};
static_assert(RecCount == kRecordWidth, "a record holds each Rec field once");

struct Job {
  // Per scenario device number: the CUDA device it runs on (-1 where unused), and its CU_CTX_SCHED_*.
  std::vector<int32_t> devices, schedules;
  std::vector<uint8_t>
      bareSteps;  // per step, or empty: 1 issues the step without its timing event (the recorder benchmark)
  int calibrationSamples = 100;
  std::vector<int32_t> streams, events, threads, steps;
  std::vector<double> buffers, values;
};

struct Failure {
  std::string name;  // CUDA_ERROR_* or a short word such as "setup"
  std::string api;   // the driver call that failed
  std::string detail;
  int step = -1;  // global step index (thread offset + index), -1 outside the program
};

struct DeviceInfo {
  std::string name;
  int sms = 0, major = 0, minor = 0, driverVersion = 0;
  double totalMem = 0;
  int ordinal = 0;  // the CUDA device number
  int device = 0;   // the scenario's device number
};

struct Result {
  std::vector<double> records;  // kRecordWidth per step, in encoded step order
  // One block per device the scenario uses, in device-number order, each with its own clocks:
  // [n, then 3n each: events before, events after, timer before, timer after; a sample is
  // (host before, host after, device time); then the event sampling method (1 stream memory
  // operations, 0 record and poll), m, 3m chain, 5m idle and 4m after-copy latency samples
  // (measureLatency)].
  // A step's event times and stamps count from its own device's reference.
  std::vector<double> calibration;
  DeviceInfo device;                // the first device the scenario uses
  std::vector<DeviceInfo> devices;  // every device it uses
  bool failed = false;
  Failure failure;
};

// Progress for the caller's polling: steps finished in the current run.
extern std::atomic<long long> stepsDone;

void execute(const Driver &d, const Job &job, Result &out);
std::vector<DeviceInfo> listDevices(const Driver &d, std::string &error);

}  // namespace syncscope
