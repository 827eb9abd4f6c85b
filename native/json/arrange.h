// The build's mechanical part for rows the native reader staged, done where the rows are: the
// trace's ops and calls with their ids, contexts and Python stacks, the launch and stream edges,
// and the ops' issue order. It is core/import/pytorch.ts's addOps, addCalls and issueIndex, step by
// step, and must stay so: the JavaScript reader's traces are built by those, and the tests compare
// the two readers' traces field by field. What needs the trace's vocabulary (a call's kind from its
// API name, what a Python frame is to the launcher) comes in as tables by name, made in core.
#pragma once

#include <cstdint>
#include <vector>

#include "columns.h"

namespace syncscope::json {

/** What a Python frame is to `syncscope profile`'s launcher (LauncherRole in python-sites.ts). */
enum LauncherRole : int8_t {
  kNoRole = 0,
  kChainRole = 1,
  kExecRole = 2,
  kWrapperRole = 3,
  kOwnRole = 4,
  kRunCodeRole = 5,
  kModuleRole = 6
};

struct ArrangeInput {
  /** Staged calls and ops, in time order; gpu kind, copy and hostMemory already the trace's codes. */
  size_t hostCount = 0;
  const uint32_t *hostLane = nullptr;
  const uint8_t *hostContext = nullptr;
  const double *hostBegin = nullptr, *hostEnd = nullptr, *hostCorr = nullptr;
  const int32_t *hostName = nullptr;
  size_t gpuCount = 0;
  const uint32_t *gpuLane = nullptr, *gpuGrid = nullptr, *gpuBlock = nullptr;
  const uint8_t *gpuKind = nullptr, *gpuCopy = nullptr, *gpuHostMemory = nullptr;
  const double *gpuBegin = nullptr, *gpuEnd = nullptr, *gpuCorr = nullptr, *gpuBytes = nullptr;
  const int32_t *gpuName = nullptr;
  /** Staged lane -> trace lane, and each trace lane's device. */
  const int32_t *laneMap = nullptr;
  size_t laneMapCount = 0;
  const double *laneDevice = nullptr;
  size_t laneCount = 0;
  double t0 = 0, maxCorr = -1;
  /** By name id: the call kind code of an API call of that name; a Python frame's launcher role at the top of a thread,
   * and below a shown frame. */
  const int8_t *kindOfName = nullptr, *roleTop = nullptr, *roleInner = nullptr;
  size_t names = 0;
  /** The call kind code of an enclosing op. */
  uint8_t contextKind = 0;
};

/** Columns the caller gives, to be filled: the trace's own, so that nothing is copied after. */
struct ArrangeOut {
  /** gpuCount rows: op i is gpu row i (rows are in time order). */
  uint32_t *opLane = nullptr;
  double *opStart = nullptr, *opEnd = nullptr;
  int32_t *opCall = nullptr;
  /** At most hostCount calls, in the order the build makes them (hidden launcher frames are none). */
  uint32_t *callLane = nullptr;
  uint8_t *callKind = nullptr, *callDepth = nullptr;
  double *callBegin = nullptr, *callEnd = nullptr, *callCorr = nullptr;
  int32_t *callName = nullptr, *callContext = nullptr, *callStream = nullptr;
  /** Launch edges, then stream edges, with these kind codes; at most edgeRoom. */
  uint8_t *edgeKind = nullptr;
  int32_t *edgeFrom = nullptr, *edgeTo = nullptr;
  size_t edgeRoom = 0;
  uint8_t launchEdge = 0, streamEdge = 0;
};

/** What arranging made, besides the given columns. */
struct Arranged {
  size_t calls = 0, edges = 0;
  /** API calls made inside Python frames, and the node of their stack (SiteTable). */
  Column<int32_t> siteCall, siteNode;
  /** SiteTable's nodes 1.., as entered: parent node and frame name. */
  Column<int32_t> nodeParent, nodeName;
  /** Strings the contexts add to the table, after the staged ones, in order. */
  std::deque<std::string> strings;
  /** Issue lists by stream lane and by device, in the order first met, then the whole list: each list's ops,
   * correlation ids and best-so-far, at offsets. */
  Column<double> streamKeys, deviceKeys;
  Column<int32_t> listStart;  // lists' offsets into listOps, one more than there are lists
  Column<int32_t> listOps, listBest;
  Column<double> listCorr;
};

/** Arranges the rows; `names` are the staged strings, to which the contexts' joined names come after. */
void arrange(const ArrangeInput &in, const StringTable &names, const ArrangeOut &out, Arranged &made);

}  // namespace syncscope::json
