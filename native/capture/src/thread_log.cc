#include "thread_log.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstring>
#include <new>

namespace capture {
namespace {

std::mutex registryLock;
std::vector<ThreadLog*>* registry = nullptr;  // never freed: threads may still call during exit

CallChunk* newChunk() {
  // The writer may read a chunk after its thread is gone, so chunks live as long as the process.
  // Not value-initialised: zeroing 1.7 MB here would stall the program's thread; beginCall clears each slot it hands
  // out.
  return new (std::nothrow) CallChunk;
}

}  // namespace

ThreadLog& threadLog() {
  thread_local ThreadLog* log = nullptr;
  if (log) return *log;
  auto* l = new ThreadLog();
  l->osTid = static_cast<uint32_t>(syscall(SYS_gettid));
  pthread_getname_np(pthread_self(), l->name, sizeof l->name);
  l->first = l->last = newChunk();
  {
    std::lock_guard<std::mutex> g(registryLock);
    if (!registry) registry = new std::vector<ThreadLog*>();
    l->index = static_cast<uint32_t>(registry->size());
    registry->push_back(l);
  }
  log = l;
  return *l;
}

CallBody* beginCall(ThreadLog& log) {
  CallChunk* c = log.last;
  if (!c) return nullptr;
  uint32_t i = c->used.load(std::memory_order_relaxed);
  if (i == kChunkCalls) {
    CallChunk* n = newChunk();
    if (!n) return nullptr;
    {
      // The writer walks the chain under the same lock.
      std::lock_guard<std::mutex> g(registryLock);
      c->next = n;
    }
    log.last = c = n;
    i = 0;
  }
  CallBody* slot = &c->calls[i];
  std::memset(slot, 0, sizeof *slot);
  slot->thread = log.index;
  c->used.store(i + 1, std::memory_order_release);
  return slot;
}

std::vector<ThreadLog*> allThreadLogs() {
  std::lock_guard<std::mutex> g(registryLock);
  return registry ? *registry : std::vector<ThreadLog*>();
}

std::mutex& chainLock() { return registryLock; }

}  // namespace capture
