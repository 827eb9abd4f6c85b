// Exact event identity: every event handle counts its records. A record takes the next number;
// a wait, query or synchronize notes the number of the handle's latest record, which is the record
// CUDA binds it to (S7). Lock-free open addressing, because records and waits come from any thread
// on the hot path; entries are never removed (a destroyed handle that CUDA reuses keeps counting,
// and its creation call notes the count it started from).
#pragma once
#include <atomic>
#include <cstdint>
#include "raw_format.h"

namespace capture {

class EventTable {
 public:
  /** The number of `event`'s latest record so far (0: never recorded), or kSeqUnknown when full. */
  uint64_t latest(uint64_t event) {
    Slot* s = find(event, false);
    return s ? s->count.load(std::memory_order_acquire) : (full_ ? kSeqUnknown : 0);
  }

  /** Counts a new record of `event` and returns its number. */
  uint64_t record(uint64_t event) {
    Slot* s = find(event, true);
    return s ? s->count.fetch_add(1, std::memory_order_acq_rel) + 1 : kSeqUnknown;
  }

 private:
  static constexpr uint32_t kSlots = 1u << 16;
  struct Slot {
    std::atomic<uint64_t> key{0};
    std::atomic<uint64_t> count{0};
  };

  Slot* find(uint64_t event, bool insert) {
    if (event == 0) return nullptr;
    uint32_t h = static_cast<uint32_t>((event >> 4) * 0x9E3779B97F4A7C15ull >> 40) & (kSlots - 1);
    for (uint32_t probe = 0; probe < kSlots; probe++, h = (h + 1) & (kSlots - 1)) {
      uint64_t k = slots_[h].key.load(std::memory_order_acquire);
      if (k == event) return &slots_[h];
      if (k == 0) {
        if (!insert) return nullptr;
        uint64_t expected = 0;
        if (slots_[h].key.compare_exchange_strong(expected, event, std::memory_order_acq_rel)) return &slots_[h];
        if (expected == event) return &slots_[h];
      }
    }
    full_ = true;
    return nullptr;
  }

  Slot slots_[kSlots];
  std::atomic<bool> full_{false};
};

EventTable& events();

}  // namespace capture
