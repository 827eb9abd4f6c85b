// The entry point CUDA calls when CUDA_INJECTION64_PATH names this library: it subscribes to the
// API callbacks, enables the activity records, and arranges for the raw stream to be written at
// exit and on SIGUSR2.
#include <cupti.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "activities.h"
#include "api_calls.h"
#include "api_table.h"
#include "event_table.h"
#include "probe.h"
#include "raw_writer.h"

namespace capture {

EventTable& events() {
  static EventTable* table = new EventTable();  // never destroyed: callbacks may run during exit
  return *table;
}

namespace {

std::mutex writeLock;
std::string outPath;
WriteInfo info{};
bool finished = false;
sem_t dumpRequest;

void say(const std::string& line) { std::fprintf(stderr, "syncscope capture: %s\n", line.c_str()); }

std::string cuptiError(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "CUPTI error " + std::to_string(r);
}

/** SYNCSCOPE_CAPTURE_OUT, with %p replaced by the process id, so that child processes do not collide. */
std::string resolveOutPath() {
  const char* env = std::getenv("SYNCSCOPE_CAPTURE_OUT");
  std::string p = env && *env ? env : "syncscope-capture-%p.raw";
  for (size_t i = p.find("%p"); i != std::string::npos; i = p.find("%p", i)) p.replace(i, 2, std::to_string(getpid()));
  return p;
}

void write(bool final) {
  std::lock_guard<std::mutex> g(writeLock);
  if (finished) return;
  info.cudaDriverVersion = driverVersion();
  std::string err = writeRaw(outPath, info);
  if (!err.empty()) say(err);
  if (final) {
    // Calls CUDA makes while it tears down are not the program's.
    stopCalls();
    finished = true;
  }
}

CUpti_SubscriberHandle subscriber = nullptr;

void atExit() {
  if (probe("count-callbacks"))
    std::fprintf(stderr, "callbacks driver %lu runtime %lu\n", (unsigned long)callbackCounts[CUPTI_CB_DOMAIN_DRIVER_API].load(),
                 (unsigned long)callbackCounts[CUPTI_CB_DOMAIN_RUNTIME_API].load());
  write(true);
}

void onSignal(int) { sem_post(&dumpRequest); }  // the only async-signal-safe way to wake the dumper

void* dumper(void*) {
  for (;;) {
    while (sem_wait(&dumpRequest) != 0) {
    }
    write(false);
  }
  return nullptr;
}

void startDumper() {
  struct sigaction old {};
  sigaction(SIGUSR2, nullptr, &old);
  // A program with its own SIGUSR2 handler keeps it; it is then captured at exit only.
  if (old.sa_handler != SIG_DFL) return;
  sem_init(&dumpRequest, 0, 0);
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);  // the dumper takes no signals of the program's
  pthread_t t;
  bool started = pthread_create(&t, nullptr, dumper, nullptr) == 0;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (!started) return;
  pthread_detach(t);
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR2, &sa, nullptr);
}

}  // namespace
}  // namespace capture

extern "C" __attribute__((visibility("default"))) void syncscope_capture_enable(int state);

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  using namespace capture;
  static bool done = false;
  if (done) return 1;
  done = true;
  outPath = resolveOutPath();
  cuptiGetTimestamp(&info.startTimestamp);
  uint32_t version = 0;
  cuptiGetVersion(&version);
  info.cuptiApiVersion = version;
  resolveDriver();
  const char* why = nullptr;
  if (!startActivities(&why)) {
    say(std::string(why) + " failed; nothing will be captured");
    return 0;
  }
  if (probe("no-callbacks")) {
    std::atexit(atExit);
    return 1;
  }
  if (probe("api-activity-launches")) enableLaunchApiRecords(1);
  CUpti_SubscriberHandle sub;
  CUptiResult r = cuptiSubscribe(&sub, reinterpret_cast<CUpti_CallbackFunc>(onApiCallback), nullptr);
  if (r != CUPTI_SUCCESS) {
    // Most often another tool (a profiler) already holds CUPTI's one subscriber slot.
    say("cuptiSubscribe failed (" + cuptiError(r) + "); API calls will not be captured");
  } else if ((r = enableApiCallbacks(sub)) != CUPTI_SUCCESS) {
    say("cuptiEnableCallback failed for some entry points (" + cuptiError(r) + ")");
  }
  subscriber = r == CUPTI_SUCCESS ? sub : nullptr;
  std::atexit(atExit);
  startDumper();
  if (probe("start-off")) syncscope_capture_enable(0);
  if (probe("start-cb")) syncscope_capture_enable(2);
  if (probe("start-act")) syncscope_capture_enable(1 | 0x10000);
  return 1;
}

// EXPERIMENT: turns the whole capture off and on within one process, for paired measurements.
// Bit 0: activity kinds, bit 1: callbacks, bits 8 and up: the variant. 1 turns both on (the old form).
extern "C" __attribute__((visibility("default"))) void syncscope_capture_enable(int state) {
  using namespace capture;
  if (state == 1) state = 3;
  if (state == (1 | 0x10000)) state = 1;
  static int current = 3;
  const bool cbOn = state & 2, actOn = state & 1;
  if (subscriber && cbOn != bool(current & 2)) enableApiCallbacks(subscriber, cbOn ? 1 : 0);
  if (probe("api-activity-launches") && cbOn != bool(current & 2)) enableLaunchApiRecords(cbOn ? 1 : 0);
  if (actOn != bool(current & 1)) setActivities(actOn);
  variant.store(state >> 8, std::memory_order_relaxed);
  current = state;
}
