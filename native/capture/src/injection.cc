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
#include "python_stack.h"
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

#ifdef SYNCSCOPE_CAPTURE_MEASURE
// syncscope_capture_switch's bits.
constexpr int kSwitchActivities = 1;
constexpr int kSwitchCallbacks = 2;
constexpr int kSwitchStacks = 4;
int switchedOn = kSwitchActivities | kSwitchCallbacks | kSwitchStacks;
#endif

void atExit() { write(true); }

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
  py::init();
  const char* why = nullptr;
  if (!startActivities(&why)) {
    say(std::string(why) + " failed; nothing will be captured");
    return 0;
  }
  if (probe("no-callbacks")) {
    std::atexit(atExit);
    return 1;
  }
  CUpti_SubscriberHandle sub;
  CUptiResult r = cuptiSubscribe(&sub, reinterpret_cast<CUpti_CallbackFunc>(onApiCallback), nullptr);
  if (r != CUPTI_SUCCESS) {
    // Most often another tool (a profiler) already holds CUPTI's one subscriber slot.
    say("cuptiSubscribe failed (" + cuptiError(r) + "); API calls will not be captured");
  } else {
    subscriber = sub;
    if ((r = enableApiCallbacks(sub)) != CUPTI_SUCCESS)
      say("cuptiEnableCallback failed for some entry points (" + cuptiError(r) + ")");
  }
  std::atexit(atExit);
  startDumper();
  return 1;
}

#ifdef SYNCSCOPE_CAPTURE_MEASURE
// For measurement only (bench/capture.bench.ts), in the benchmark's build of the library: switches
// the activity records and the API callbacks off and on again between batches of one process, so
// that their cost is read without the spread between processes. A program finds it with dlopen(CUDA_INJECTION64_PATH,
// RTLD_NOLOAD). Calls made while it is off are not recorded, so a trace of such a run is not a whole one: a wait may
// even bind to an earlier record than the one CUDA bound it to.
extern "C" __attribute__((visibility("default"))) void syncscope_capture_switch(int parts) {
  using namespace capture;
  const int changed = parts ^ switchedOn;
  if (changed & kSwitchActivities) switchActivities(parts & kSwitchActivities);
  if ((changed & kSwitchCallbacks) && subscriber) enableApiCallbacks(subscriber, (parts & kSwitchCallbacks) ? 1 : 0);
  if (changed & kSwitchStacks) py::setEnabled(parts & kSwitchStacks);
  switchedOn = parts;
}
#endif
