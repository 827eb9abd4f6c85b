#include <algorithm>
#include <numeric>

#include "columns.h"

namespace syncscope::json {

namespace {

std::vector<uint32_t> identity(size_t n) {
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  return order;
}

/** Sorts rows by `before`, ties in their order; rows already in order are left as they are. */
template <class Before>
std::vector<uint32_t> stableOrder(size_t n, Before before) {
  bool ordered = true;
  for (size_t i = 1; i < n && ordered; i++) ordered = !before(uint32_t(i), uint32_t(i - 1));
  if (ordered) return {};
  std::vector<uint32_t> order = identity(n);
  std::stable_sort(order.begin(), order.end(), before);
  return order;
}

}  // namespace

void Staged::clear() {
  strings.clear();
  for (auto *c : {&host.begin, &host.end, &host.corr, &gpu.begin, &gpu.end, &gpu.corr, &gpu.bytes, &lanes.a, &lanes.b,
                  &threadNames.pid, &threadNames.tid, &syncs.corr, &syncs.stream, &syncs.device, &syncs.event,
                  &syncs.recordCorr, &syncs.waitOnStream, &markers.time})
    c->clear();
  for (auto *c : {&host.lane, &gpu.lane, &gpu.grid, &gpu.block, &markers.lane}) c->clear();
  for (auto *c : {&host.name, &gpu.name, &syncs.kind, &markers.name}) c->clear();
  for (auto *c : {&host.context, &gpu.kind, &lanes.thread, &markers.after}) c->clear();
  threadNames.name.clear();
  syncKinds.clear();
  unknown.clear();
  malformed = noDuration = events = 0;
  root.clear();
  nameUse.clear();
}

void timeOrder(Staged &s) {
  Staged::Host &h = s.host;
  const double *begin = h.begin.data(), *end = h.end.data();
  const uint8_t *context = h.context.data();
  std::vector<uint32_t> order = stableOrder(h.lane.size(), [&](uint32_t x, uint32_t y) {
    if (begin[x] != begin[y]) return begin[x] < begin[y];
    bool cx = context[x] != kApi, cy = context[y] != kApi;
    if (cx != cy) return cx;
    return end[x] > end[y];
  });
  h.lane.permute(order);
  h.context.permute(order);
  h.begin.permute(order);
  h.end.permute(order);
  h.name.permute(order);
  h.corr.permute(order);

  Staged::Gpu &g = s.gpu;
  const double *start = g.begin.data();
  order = stableOrder(g.lane.size(), [&](uint32_t x, uint32_t y) { return start[x] < start[y]; });
  g.lane.permute(order);
  g.kind.permute(order);
  g.begin.permute(order);
  g.end.permute(order);
  g.name.permute(order);
  g.corr.permute(order);
  g.grid.permute(order);
  g.block.permute(order);
  g.bytes.permute(order);
}

}  // namespace syncscope::json
