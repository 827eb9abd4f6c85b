// Rows by CUDA correlation id, as core/import/corr-index.ts finds them: an array where the ids are
// dense, else a hash map; the first row given for each id is kept.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstddef>
#include <unordered_map>
#include <vector>

namespace syncscope::json {

/** corrIndex in corr-index.ts: the first row given for each correlation id, in an array when ids are dense. */
class CorrIndex {
 public:
  CorrIndex(double maxCorr, size_t rows) {
    dense_ = maxCorr >= 0 && maxCorr <= 8.0 * double(rows) + 1048576.0;
    if (dense_) at_.assign(size_t(std::floor(maxCorr)) + 1, -1);
  }
  void add(double c, int32_t row) {
    if (dense_) {
      if (c >= 0 && c < double(at_.size()) && c == std::floor(c) && at_[size_t(c)] < 0) at_[size_t(c)] = row;
    } else if (c >= 0) {
      map_.emplace(c == 0 ? 0.0 : c, row);  // keeps the first; -0 and 0 are one key
    }
  }
  int32_t get(double c) const {
    if (dense_) return c >= 0 && c < double(at_.size()) && c == std::floor(c) ? at_[size_t(c)] : -1;
    auto it = map_.find(c == 0 ? 0.0 : c);
    return it == map_.end() ? -1 : it->second;
  }

 private:
  bool dense_ = false;
  std::vector<int32_t> at_;
  std::unordered_map<double, int32_t> map_;
};

}  // namespace syncscope::json
