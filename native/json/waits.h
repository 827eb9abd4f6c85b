// Which op released each host wait of an imported trace, and the event edges the trace names, for
// the rows arrange() made: core/import/pytorch-waits.ts's resolveWaits step by step, and it must
// stay so. The JavaScript reader's traces are settled by that function, and the tests compare the
// two readers' traces field by field. The rules, and why each is sound, are in docs/import.md;
// what is the trace's vocabulary (which call kinds wait, which copies block the host) comes in as
// tables made in core.
#pragma once

#include <cstdint>
#include <vector>

#include "arrange.h"

namespace syncscope::json {

/** What resolveWaits does with a call, by its kind code (RESOLVED in pytorch-waits.ts). */
enum WaitRole : uint8_t {
  kNotAWait = 0,
  kWaitStreamSync,
  kWaitDeviceSync,
  kWaitEventSync,
  kWaitMemcpy,
  kWaitStreamWait,
  kWaitQuery
};

struct WaitsInput {
  /** Kineto's cuda_sync events by correlation id: one per id (the trace's last). */
  size_t syncs = 0;
  const double *syncCorr = nullptr, *syncStream = nullptr, *syncDevice = nullptr, *syncEvent = nullptr,
               *syncRecordCorr = nullptr, *syncWaitOnStream = nullptr;
  /** Each stream's lane: device, stream and the trace lane. */
  size_t streams = 0;
  const double *streamDevice = nullptr, *streamHandle = nullptr;
  const int32_t *streamLane = nullptr;
  /** The trace's only device, or -1 where it has none or several. */
  double onlyDevice = -1;
  /** By call kind code: its WaitRole. */
  const uint8_t *role = nullptr;
  size_t kinds = 0;
  /** By name id: whether an API call of that name is an Async form. */
  const uint8_t *asyncName = nullptr;
  /** copyBlocksHost by (copy, host memory, async): blocks[(copy * hostMemories + memory) * 2 + async]. */
  const uint8_t *blocks = nullptr;
  size_t copies = 0, hostMemories = 0;
  /** Each op's copy kind and host memory codes (ops are the gpu rows). */
  const uint8_t *opCopy = nullptr, *opHostMemory = nullptr;
  int32_t releasedNone = -1, releasedUnknown = -2;
  uint8_t howExact = 0, howDeduced = 1;
  uint8_t releaseEdge = 0, eventEdge = 0;
};

/** The calls' columns it settles (the trace's own), given at the calls' full size. */
struct WaitsOut {
  int32_t *releasedBy = nullptr;
  double *blockedNs = nullptr, *unblockNs = nullptr;
  uint8_t *how = nullptr;
};

/** What it made besides the columns: WaitCounts in pytorch-waits.ts, and the events to name. */
struct Waits {
  double unknown = 0, noRecord = 0, skew = 0, noSync = 0;
  /** Calls that name an event, and which of `events` (numbers, in the order first met) each names. */
  Column<int32_t> eventCall, eventIndex;
  Column<double> events;
};

/** Settles the waits of the calls `cols` holds (made.calls of them), appending release and event edges after
 * made.edges. */
void resolveWaits(const WaitsInput &in, const ArrangeInput &rows, const ArrangeOut &cols, Arranged &made,
                  const WaitsOut &out, Waits &waits);

}  // namespace syncscope::json
