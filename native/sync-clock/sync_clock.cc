// The sync clock: the time a process's threads spend in the CUDA runtime's synchronizing calls,
// summed apart for its first thread (a Python script's own) and for all the others (autograd's
// engine, loader threads). `syncscope profile` and the plain run before a capture preload it
// (LD_PRELOAD), and the launcher reads the sums around the plain steps (syncscope_sync_clock), so
// that the what-if knows how long the program without a recorder waited for the GPU in each step.
//
// Each call below is found in the next library that defines it (the runtime the program loaded) and
// timed around it: two clock reads and an add, against waits of microseconds at least. A program
// whose runtime is linked in statically never calls these: the counts then stay 0, and the launcher
// sees that its own synchronize went uncounted. No CUDA header is needed: the handles are pointers
// and the results an enum.
#include <dlfcn.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

namespace {

std::atomic<uint64_t> mainNs{0}, mainCalls{0}, otherNs{0}, otherCalls{0};

uint64_t nowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

bool onFirstThread() {
  static thread_local const bool first = syscall(SYS_gettid) == getpid();
  return first;
}

void count(uint64_t since) {
  const uint64_t ns = nowNs() - since;
  if (onFirstThread()) {
    mainNs.fetch_add(ns, std::memory_order_relaxed);
    mainCalls.fetch_add(1, std::memory_order_relaxed);
  } else {
    otherNs.fetch_add(ns, std::memory_order_relaxed);
    otherCalls.fetch_add(1, std::memory_order_relaxed);
  }
}

// The loaded libraries' paths, the program itself left out.
int collectPath(dl_phdr_info *info, size_t, void *paths) {
  if (info->dlpi_name && *info->dlpi_name) static_cast<std::vector<std::string> *>(paths)->push_back(info->dlpi_name);
  return 0;
}

// The definition of `name` that this library stands in front of. RTLD_NEXT sees only the libraries
// in the global scope; Python loads extensions (torch's, and the runtime they link) with RTLD_LOCAL,
// so each loaded library is also asked, with its dependencies, for a definition other than ours.
void *real(const char *name, void *ours) {
  if (void *found = dlsym(RTLD_NEXT, name)) return found;
  std::vector<std::string> paths;
  dl_iterate_phdr(collectPath, &paths);  // the paths first: dlopen is not called under its lock
  for (const std::string &path : paths) {
    void *lib = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!lib) continue;
    void *found = dlsym(lib, name);
    dlclose(lib);
    if (found && found != ours) return found;
  }
  return nullptr;
}

// cudaErrorUnknown: what a call reports where no runtime below defines it (never with one loaded).
constexpr int kNoRuntime = 999;

}  // namespace

#define SYNCSCOPE_TIMED(name, params, args)                                      \
  extern "C" __attribute__((visibility("default"))) int name params {            \
    using Fn = int(*) params;                                                    \
    static std::atomic<Fn> found{nullptr};                                       \
    Fn call = found.load(std::memory_order_acquire);                             \
    if (!call) {                                                                 \
      call = reinterpret_cast<Fn>(real(#name, reinterpret_cast<void *>(&name))); \
      if (!call) return kNoRuntime;                                              \
      found.store(call, std::memory_order_release);                              \
    }                                                                            \
    const uint64_t since = nowNs();                                              \
    const int result = call args;                                                \
    count(since);                                                                \
    return result;                                                               \
  }

SYNCSCOPE_TIMED(cudaStreamSynchronize, (void *stream), (stream))
SYNCSCOPE_TIMED(cudaEventSynchronize, (void *event), (event))
SYNCSCOPE_TIMED(cudaDeviceSynchronize, (), ())
SYNCSCOPE_TIMED(cudaMemcpy, (void *dst, const void *src, size_t bytes, int kind), (dst, src, bytes, kind))

#undef SYNCSCOPE_TIMED

// The sums so far: out[0] the first thread's ns and out[1] its calls, out[2] and out[3] the others'.
extern "C" __attribute__((visibility("default"))) void syncscope_sync_clock(uint64_t *out) {
  out[0] = mainNs.load(std::memory_order_relaxed);
  out[1] = mainCalls.load(std::memory_order_relaxed);
  out[2] = otherNs.load(std::memory_order_relaxed);
  out[3] = otherCalls.load(std::memory_order_relaxed);
}
