// Per-thread call buffers. A callback must not allocate or lock on the hot path, so each host
// thread appends to its own chunks of preallocated records; only a thread's first call and every
// kChunkCalls-th call take the registry lock (to register the thread, to add a chunk).
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>
#include "raw_format.h"

namespace capture {

constexpr uint32_t kChunkCalls = 16384;
constexpr uint32_t kStackCacheSlots = 1024;  // a power of two

struct CallChunk {
  CallBody calls[kChunkCalls];
  // Slots below `used` are initialised; each says itself whether its call has returned.
  std::atomic<uint32_t> used{0};
  CallChunk* next = nullptr;
};

struct ThreadLog {
  uint32_t index = 0;
  uint32_t osTid = 0;
  char name[32] = {0};
  CallChunk* first = nullptr;
  CallChunk* last = nullptr;
  // Set while the tool itself calls CUDA, and while a runtime call is in progress: driver
  // callbacks inside either are not the program's own calls.
  int toolDepth = 0;
  int runtimeDepth = 0;
  // The context of this thread's last call and its CallBody::device: programs switch devices rarely.
  void* lastContext = nullptr;
  uint8_t lastDevice = 0;
  // The Python stacks this thread met last, by the hash of their raw frames (python_stack.cc): a
  // call from a known stack costs a walk of its frames and no lock.
  uint64_t stackKeys[kStackCacheSlots] = {0};
  uint32_t stackIds[kStackCacheSlots] = {0};
};

/** The calling thread's log, created on its first call. */
ThreadLog& threadLog();

/** A fresh slot for a call on this thread, zeroed, with `complete` = 0. */
CallBody* beginCall(ThreadLog& log);

/** Marks the slot's call as returned: the writer may now read it whole. */
inline void endCall(CallBody* c) {
  reinterpret_cast<std::atomic<uint8_t>*>(&c->complete)->store(1, std::memory_order_release);
}

/** Every thread's log, in the order threads made their first call. */
std::vector<ThreadLog*> allThreadLogs();

/** Held while a chunk chain grows; the writer holds it to follow `next`. */
std::mutex& chainLock();

}  // namespace capture
