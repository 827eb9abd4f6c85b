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

}  // namespace

void timeOrder(Staged &s) {
  Staged::Host &h = s.host;
  std::vector<uint32_t> order = identity(h.lane.size());
  const double *begin = h.begin.data(), *end = h.end.data();
  const uint8_t *context = h.context.data();
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
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
  order = identity(g.lane.size());
  const double *start = g.begin.data();
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return start[x] < start[y]; });
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
