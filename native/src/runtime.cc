#include "runtime.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "kernels_ptx.h"

namespace syncscope {

std::atomic<long long> stepsDone{0};

namespace {

struct CudaError {
  CUresult code;
  const char *api;
};

void check(CUresult r, const char *api) {
  if (r != CUDA_SUCCESS) throw CudaError{r, api};
}

double monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

void busyNs(double ns) {
  const double until = monotonicNs() + ns;
  while (monotonicNs() < until) {
  }
}

// Host functions run on a driver thread; their user data points at the step's duration.
void hostFuncBody(void *ns) { busyNs(*static_cast<const double *>(ns)); }
// The duration of the runtime's own empty host functions (warm-up).
double noWork = 0;

// The stamp slot of the runtime's own kernels that nothing reads.
constexpr uint32_t kNoSlot = 0xffffffffu;

// The stream a step issues work to (core/gpu-run/encode.ts lays the steps out), or -1 for host-side steps.
int streamOf(const int32_t *step) {
  switch (step[0]) {
    case OpLaunch:
    case OpHostFunc:
      return step[1];
    case OpRecord:
    case OpWait:
      return step[2];
    case OpCopy:
    case OpMemset:
      return step[4];
    default:
      return -1;
  }
}

struct StreamState {
  CUstream handle = nullptr;
  int kind = StreamUser;
  bool nonBlocking = false;
  int device = 0;
  std::mutex m;
};

struct Buffer {
  CUdeviceptr dev = 0;
  void *host = nullptr;
  int kind = 0;     // 0 device, 1 pinned, 2 pageable
  int device = -1;  // the scenario device that holds a device buffer
  size_t bytes = 0;
  CUdeviceptr ptr() const { return dev ? dev : CUdeviceptr(host); }
};

struct Pool {
  std::vector<CUevent> events;
  size_t next = 0;
};

// One GPU of the run: its primary context, kernels, stamp slots and calibration. Events belong to
// the context they were created in, and an elapsed time needs both events of one context, so every
// device has its own reference event, calibration stream and event pools (S21).
struct Gpu {
  int ordinal = -1;  // the CUDA device, -1 where the scenario does not use this device number
  unsigned schedule = 0;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  bool retained = false;
  CUmodule module = nullptr;
  CUfunction spin = nullptr, touch = nullptr;
  CUdeviceptr starts = 0, ends = 0;
  CUdeviceptr scratch = 0;   // 4 KiB for warm-up copies
  void *copyHost = nullptr;  // pinned, for the copies that measureLatency times a kernel behind
  std::vector<Pool> pools;   // one per host thread, plus one for calibration
  CUstream calStream = nullptr;
  CUevent reference = nullptr;
  // Pinned words for stream memory operations: the host releases a waiting stream through `flag`
  // and sees it pass through `ack` (both zero when the driver lacks stream memory operations).
  void *memopHost = nullptr;
  CUdeviceptr flagDev = 0, ackDev = 0;
  uint32_t memopSerial = 0;
  DeviceInfo info;
  double *calibration = nullptr;  // this device's block of Result::calibration
};

class Run {
 public:
  Run(const Driver &d, const Job &job, Result &out) : d(d), job(job), out(out) {}
  ~Run() { cleanup(); }

  void go();

 private:
  const Driver &d;
  const Job &job;
  Result &out;
  std::vector<Gpu> gpus;  // by scenario device number
  size_t stepCount = 0, slots = 0;
  std::vector<std::unique_ptr<StreamState>> streams;
  std::vector<CUevent> userEvents;
  std::vector<Buffer> buffers;
  std::vector<CUevent> stepEnd;
  std::vector<int> stepGpu;  // the device whose context each step ran in, -1 for host work
  std::atomic<int> ready{0};
  std::atomic<bool> abort{false};
  std::mutex failMutex;
  double base = 0;

  double now() const { return monotonicNs() - base; }
  double *rec(size_t g) { return &out.records[g * kRecordWidth]; }
  int threadCount() const { return int(job.threads.size()) - 1; }
  int calPool() const { return threadCount(); }

  // The caller has `gpu`'s context current.
  CUevent event(Gpu &gpu, size_t pool) {
    Pool &p = gpu.pools[pool];
    if (p.next == p.events.size()) {
      CUevent e;
      check(d.eventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
      p.events.push_back(e);
    }
    return p.events[p.next++];
  }
  void use(const Gpu &gpu) { check(d.ctxSetCurrent(gpu.ctx), "cuCtxSetCurrent"); }
  // One block of the spin kernel on `stream` for `ns`, stamping into `slot` (kNoSlot: nowhere). The
  // launches whose host time is measured call cuLaunchKernel directly, so the bracket holds it alone.
  void launchSpin(Gpu &gpu, CUstream stream, uint32_t slot, unsigned long long ns) {
    void *args[] = {&gpu.starts, &gpu.ends, &slot, &ns};
    check(d.launchKernel(gpu.spin, 1, 1, 1, 32, 1, 1, 0, stream, args, nullptr), "cuLaunchKernel");
  }

  void setup();
  void setupGpu(Gpu &gpu);
  void enablePeers();
  void loadKernels(Gpu &gpu);
  void calibrate(Gpu &gpu, double *events, double *timer, size_t firstSlot);
  bool calibrateWithMemops(Gpu &gpu, double *events);
  void measureLatency(Gpu &gpu, double *samples, size_t firstSlot);
  void pollUntilDone(CUevent e) {
    while (d.eventQuery(e) == CUDA_ERROR_NOT_READY) {
    }
  }
  void runThread(int t);
  void warmThread(int t);
  /** Thread t's first step that issues work to a stream of `device`, or null. */
  const int32_t *firstStreamStep(int t, int device) const {
    for (int g = job.threads[t]; g < job.threads[t + 1]; g++) {
      const int32_t *s = &job.steps[size_t(g) * kStepWidth];
      if (streamOf(s) >= 0) return s[kStepDevice] == device ? s : nullptr;
    }
    return nullptr;
  }
  void step(int t, size_t g);
  void launchStep(int t, size_t g, const int32_t *s, double value);
  void copyStep(int t, size_t g, const int32_t *s, double value);
  void memsetStep(int t, size_t g, const int32_t *s, double value);
  void readTimes();
  void cleanup();
  void fail(const CudaError &e, size_t g);

  // Issues one stream op between host timestamps and records one timing event after it: the moment
  // the stream passed the op. Starts are derived later from the previous end event on the stream,
  // the host's launch time and the GPU latencies that measureLatency() finds (core/gpu-run/spans.ts), so
  // the recorder costs one event record per op and no query.
  template <class F>
  void onStream(int t, size_t g, StreamState &s, const char *api, F &&call) {
    std::lock_guard<std::mutex> lock(s.m);
    double *r = rec(g);
    r[RecHostBegin] = now();
    const CUresult res = call();
    r[RecHostEnd] = now();
    r[RecStatus] = res;
    check(res, api);
    if (job.bareSteps.empty() || !job.bareSteps[g]) {
      CUevent end = event(gpus[s.device], t);
      check(d.eventRecord(end, s.handle), "cuEventRecord");
      stepEnd[g] = end;
    }
  }

  template <class F>
  CUresult onHost(size_t g, F &&call) {
    double *r = rec(g);
    r[RecHostBegin] = now();
    const CUresult res = call();
    r[RecHostEnd] = now();
    r[RecStatus] = res;
    return res;
  }
};

void Run::go() {
  stepCount = job.steps.size() / kStepWidth;
  out.records.assign(stepCount * kRecordWidth, NAN);
  for (size_t g = 0; g < stepCount; g++) rec(g)[RecDone] = 0;
  stepEnd.assign(stepCount, nullptr);
  stepGpu.assign(stepCount, -1);
  for (size_t g = 0; g < stepCount; g++) stepGpu[g] = job.steps[g * kStepWidth + kStepDevice];
  stepsDone = 0;
  base = monotonicNs();
  const int n = job.calibrationSamples;
  const size_t tail = 1 + 12 * size_t(n);
  const size_t block = tail + 2 + kLatencySampleWidth * size_t(kLatencySamples);
  gpus.resize(job.devices.size());
  size_t used = 0;
  for (size_t i = 0; i < gpus.size(); i++) {
    gpus[i].ordinal = job.devices[i];
    gpus[i].schedule = unsigned(job.schedules[i]);
    gpus[i].info.device = int(i);
    used += gpus[i].ordinal >= 0 ? 1 : 0;
  }
  out.calibration.assign(used * block, NAN);
  size_t k = 0;
  for (Gpu &gpu : gpus) {
    if (gpu.ordinal < 0) continue;
    gpu.calibration = &out.calibration[k++ * block];
    gpu.calibration[0] = n;
    gpu.calibration[tail + 1] = kLatencySamples;
  }
  try {
    setup();
    for (Gpu &gpu : gpus) {
      if (gpu.ordinal < 0) continue;
      use(gpu);
      calibrate(gpu, &gpu.calibration[1], &gpu.calibration[1 + 6 * n], stepCount);
      gpu.calibration[tail] = gpu.flagDev ? 1 : 0;
      measureLatency(gpu, &gpu.calibration[tail + 2], stepCount + 2 * size_t(n));
    }
  } catch (const CudaError &e) {
    fail(e, size_t(-1));
    return;
  }
  std::vector<std::thread> workers;
  for (int t = 0; t < threadCount(); t++) workers.emplace_back([this, t] { runThread(t); });
  for (auto &w : workers) w.join();
  try {
    for (Gpu &gpu : gpus) {
      if (gpu.ordinal < 0) continue;
      use(gpu);
      check(d.ctxSynchronize(), "cuCtxSynchronize");
    }
    if (out.failed) return;
    for (Gpu &gpu : gpus) {
      if (gpu.ordinal < 0) continue;
      use(gpu);
      calibrate(gpu, &gpu.calibration[1 + 3 * n], &gpu.calibration[1 + 9 * n], stepCount + n);
    }
    readTimes();
  } catch (const CudaError &e) {
    fail(e, size_t(-1));
  }
}

void Run::fail(const CudaError &e, size_t g) {
  std::lock_guard<std::mutex> lock(failMutex);
  abort = true;
  if (out.failed) return;
  out.failed = true;
  out.failure.name = errorName(d, e.code);
  out.failure.api = e.api;
  out.failure.step = g == size_t(-1) ? -1 : int(g);
  const char *text = nullptr;
  if (d.getErrorString(e.code, &text) == CUDA_SUCCESS && text) out.failure.detail = text;
}

void Run::setupGpu(Gpu &gpu) {
  check(d.deviceGet(&gpu.dev, gpu.ordinal), "cuDeviceGet");
  DeviceInfo &info = gpu.info;
  info.ordinal = gpu.ordinal;
  char name[256] = {0};
  check(d.deviceGetName(name, sizeof name, gpu.dev), "cuDeviceGetName");
  info.name = name;
  check(d.deviceGetAttribute(&info.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, gpu.dev), "cuDeviceGetAttribute");
  check(d.deviceGetAttribute(&info.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, gpu.dev),
        "cuDeviceGetAttribute");
  check(d.deviceGetAttribute(&info.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, gpu.dev),
        "cuDeviceGetAttribute");
  check(d.driverGetVersion(&info.driverVersion), "cuDriverGetVersion");
  // The schedule is a property of the primary context; it is set before this run retains it.
  check(d.primaryCtxSetFlags(gpu.dev, gpu.schedule), "cuDevicePrimaryCtxSetFlags");
  check(d.primaryCtxRetain(&gpu.ctx, gpu.dev), "cuDevicePrimaryCtxRetain");
  gpu.retained = true;
  use(gpu);
  loadKernels(gpu);

  check(d.memAlloc(&gpu.starts, slots * 8), "cuMemAlloc");
  check(d.memAlloc(&gpu.ends, slots * 8), "cuMemAlloc");
  check(d.memsetD32(gpu.starts, 0xffffffffu, slots * 2), "cuMemsetD32");
  check(d.memsetD32(gpu.ends, 0, slots * 2), "cuMemsetD32");
  check(d.memAlloc(&gpu.scratch, 4096), "cuMemAlloc");
  check(d.memHostAlloc(&gpu.copyHost, kLatencyCopyBytes, 0), "cuMemHostAlloc");
  check(d.streamCreateWithPriority(&gpu.calStream, CU_STREAM_NON_BLOCKING, 0), "cuStreamCreateWithPriority");
  check(d.eventCreate(&gpu.reference, CU_EVENT_DEFAULT), "cuEventCreate");
  if (d.streamWaitValue32 && d.streamWriteValue32 && d.memHostGetDevicePointer &&
      d.memHostAlloc(&gpu.memopHost, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) == CUDA_SUCCESS) {
    std::memset(gpu.memopHost, 0, 64);
    CUdeviceptr p = 0;
    if (d.memHostGetDevicePointer(&p, gpu.memopHost, 0) == CUDA_SUCCESS) {
      gpu.flagDev = p;
      gpu.ackDev = p + 32;
    }
  }

  // Events are created up front so that creating them does not show in the timed run: per host
  // thread, as many as the thread's stream ops on this device.
  gpu.pools.resize(threadCount() + 1);
  for (int t = 0; t < threadCount(); t++) {
    size_t need = 0;
    for (int g = job.threads[t]; g < job.threads[t + 1]; g++) {
      const int32_t *s = &job.steps[size_t(g) * kStepWidth];
      need += streamOf(s) >= 0 && s[kStepDevice] == gpu.info.device ? 1 : 0;
    }
    for (size_t k = 0; k < std::min<size_t>(need, 200000); k++) event(gpu, t);
    gpu.pools[t].next = 0;
  }
}

void Run::setup() {
  slots = stepCount + 2 * size_t(job.calibrationSamples) + 3 * kLatencySamples;
  for (Gpu &gpu : gpus)
    if (gpu.ordinal >= 0) setupGpu(gpu);
  for (Gpu &gpu : gpus) {
    if (gpu.ordinal < 0) continue;
    out.devices.push_back(gpu.info);
    if (out.devices.size() == 1) out.device = gpu.info;
  }
  enablePeers();

  for (size_t i = 0; i < job.streams.size() / kStreamWidth; i++) {
    const int32_t *s = &job.streams[i * kStreamWidth];
    auto st = std::make_unique<StreamState>();
    st->kind = s[0];
    st->nonBlocking = s[1] != 0;
    st->device = s[4];
    if (st->kind == StreamLegacy) st->handle = SYNCSCOPE_STREAM_LEGACY;
    else if (st->kind == StreamPerThread) st->handle = SYNCSCOPE_STREAM_PER_THREAD;
    else {
      use(gpus[st->device]);
      int least = 0, greatest = 0;
      check(d.ctxGetStreamPriorityRange(&least, &greatest), "cuCtxGetStreamPriorityRange");
      const int priority = std::min(least, std::max(greatest, int(s[2])));
      check(d.streamCreateWithPriority(&st->handle, st->nonBlocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT,
                                       priority),
            "cuStreamCreateWithPriority");
    }
    streams.push_back(std::move(st));
  }
  for (size_t i = 0; i < job.events.size() / kEventWidth; i++) {
    const int32_t *e = &job.events[i * kEventWidth];
    unsigned flags =
        (e[0] ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING) | (e[1] ? unsigned(CU_EVENT_BLOCKING_SYNC) : 0u);
    use(gpus[e[2]]);
    CUevent ev;
    check(d.eventCreate(&ev, flags), "cuEventCreate");
    userEvents.push_back(ev);
  }
  for (size_t i = 0; i < job.buffers.size() / kBufferWidth; i++) {
    Buffer b;
    b.bytes = size_t(std::max(4.0, job.buffers[i * kBufferWidth]));
    b.kind = int(job.buffers[i * kBufferWidth + 1]);
    b.device = int(job.buffers[i * kBufferWidth + 2]);
    if (b.kind == 0) {
      use(gpus[b.device]);
      check(d.memAlloc(&b.dev, b.bytes), "cuMemAlloc");
      check(d.memsetD8(b.dev, 0, b.bytes), "cuMemsetD8");
    } else if (b.kind == 1) {
      check(d.memHostAlloc(&b.host, b.bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
      std::memset(b.host, 0, b.bytes);
    } else {
      b.host = std::malloc(b.bytes);
      if (!b.host) throw CudaError{2, "malloc"};
      std::memset(b.host, 0, b.bytes);  // fault the pages in before the run
    }
    buffers.push_back(b);
  }

  // Warm up every stream and both kernels so that first-use costs do not land in the run.
  for (auto &s : streams) {
    if (s->kind == StreamPerThread) continue;
    Gpu &gpu = gpus[s->device];
    use(gpu);
    launchSpin(gpu, s->handle, kNoSlot, 0);
  }
  bool pageable = false;
  for (auto &b : buffers) pageable = pageable || b.kind == 2;
  for (Gpu &gpu : gpus) {
    if (gpu.ordinal < 0) continue;
    use(gpu);
    // The first copies through pageable memory set up the driver's staging buffers: pay that here.
    if (pageable) {
      const size_t bytes = 8u << 20;
      CUdeviceptr scratch = 0;
      check(d.memAlloc(&scratch, bytes), "cuMemAlloc");
      for (auto &b : buffers) {
        if (b.kind != 2) continue;
        const size_t n = std::min(bytes, b.bytes);
        check(d.memcpy(scratch, b.ptr(), n), "cuMemcpy");
        check(d.memcpy(b.ptr(), scratch, n), "cuMemcpy");
      }
      check(d.memFree(scratch), "cuMemFree");
    }
    // The first host function starts the driver's callback thread (about 0.2 ms).
    check(d.launchHostFunc(gpu.calStream, hostFuncBody, &noWork), "cuLaunchHostFunc");
    check(d.ctxSynchronize(), "cuCtxSynchronize");
    check(d.eventRecord(gpu.reference, gpu.calStream), "cuEventRecord");
    check(d.eventSynchronize(gpu.reference), "cuEventSynchronize");
  }
}

// Peer copies (S21) need the two devices to reach each other's memory. Where they cannot, the run
// stops before it starts, at the first peer copy's step, saying so: cuMemcpyPeerAsync would
// otherwise stage through host memory and time something else than the scenario describes.
void Run::enablePeers() {
  std::vector<std::pair<int, int>> done;
  for (size_t g = 0; g < stepCount; g++) {
    const int32_t *s = &job.steps[g * kStepWidth];
    if (s[0] != OpCopy) continue;
    const int from = int(job.buffers[size_t(s[1]) * kBufferWidth + 2]),
              to = int(job.buffers[size_t(s[2]) * kBufferWidth + 2]);
    if (from < 0 || to < 0 || from == to) continue;
    if (std::find(done.begin(), done.end(), std::make_pair(from, to)) != done.end()) continue;
    done.emplace_back(from, to);
    for (auto [a, b] : {std::make_pair(from, to), std::make_pair(to, from)}) {
      int can = 0;
      check(d.deviceCanAccessPeer(&can, gpus[a].dev, gpus[b].dev), "cuDeviceCanAccessPeer");
      if (!can) {
        {
          std::lock_guard<std::mutex> lock(failMutex);
          out.failed = true;
          out.failure.name = "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED";
          out.failure.api = "cuDeviceCanAccessPeer";
          out.failure.detail =
              "CUDA device " + std::to_string(gpus[a].ordinal) + " cannot access the memory of CUDA device " +
              std::to_string(gpus[b].ordinal) +
              " (cuDeviceCanAccessPeer = 0): a peer copy between them needs NVLink or PCIe peer-to-peer";
          out.failure.step = int(g);
        }
        throw CudaError{CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "cuDeviceCanAccessPeer"};
      }
      use(gpus[a]);
      const CUresult r = d.ctxEnablePeerAccess(gpus[b].ctx, 0);
      if (r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) check(r, "cuCtxEnablePeerAccess");
    }
    // The first peer copy between two devices maps their memory: pay that here, not in the run.
    use(gpus[from]);
    check(
        d.memcpyPeerAsync(gpus[to].scratch, gpus[to].ctx, gpus[from].scratch, gpus[from].ctx, 4, gpus[from].calStream),
        "cuMemcpyPeerAsync");
    check(d.streamSynchronize(gpus[from].calStream), "cuStreamSynchronize");
  }
}

void Run::loadKernels(Gpu &gpu) {
  char info[8192] = {0}, error[8192] = {0};
  int options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                   CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {info, reinterpret_cast<void *>(uintptr_t(sizeof info)), error,
                    reinterpret_cast<void *>(uintptr_t(sizeof error))};
  const CUresult r = d.moduleLoadDataEx(&gpu.module, kKernelsPtx, 4, options, values);
  if (r != CUDA_SUCCESS) {
    fail(CudaError{r, "cuModuleLoadDataEx"}, size_t(-1));
    out.failure.detail = std::string("the driver could not compile the kernels' PTX: ") + error;
    throw CudaError{r, "cuModuleLoadDataEx"};
  }
  check(d.moduleGetFunction(&gpu.spin, gpu.module, "syncscope_spin"), "cuModuleGetFunction");
  check(d.moduleGetFunction(&gpu.touch, gpu.module, "syncscope_touch"), "cuModuleGetFunction");
}

// Brackets device timestamps with host ones on an idle stream. With stream memory operations the
// event records are queued behind waits on a host word, so a bracket spans only the GPU noticing
// the host's write, the record and the GPU's write back, not the record call and the GPU fetching
// it; otherwise each sample is "record, poll until complete". Completion is polled, never waited
// for, so that a sleeping schedule does not widen the bracket. The caller has `gpu`'s context current.
void Run::calibrate(Gpu &gpu, double *events, double *timer, size_t firstSlot) {
  const int n = job.calibrationSamples;
  if (!calibrateWithMemops(gpu, events)) {
    for (int i = 0; i < n; i++) {
      CUevent e = event(gpu, calPool());
      const double h0 = now();
      check(d.eventRecord(e, gpu.calStream), "cuEventRecord");
      pollUntilDone(e);
      const double h1 = now();
      float ms = 0;
      check(d.eventElapsedTime(&ms, gpu.reference, e), "cuEventElapsedTime");
      events[3 * i] = h0;
      events[3 * i + 1] = h1;
      events[3 * i + 2] = double(ms) * 1e6;
    }
  }
  for (int i = 0; i < n; i++) {
    CUevent e = event(gpu, calPool());
    uint32_t slot = uint32_t(firstSlot + i);
    unsigned long long zero = 0;
    void *args[] = {&gpu.starts, &gpu.ends, &slot, &zero};
    const double h0 = now();
    check(d.launchKernel(gpu.spin, 1, 1, 1, 32, 1, 1, 0, gpu.calStream, args, nullptr), "cuLaunchKernel");
    check(d.eventRecord(e, gpu.calStream), "cuEventRecord");
    pollUntilDone(e);
    timer[3 * i] = h0;
    timer[3 * i + 1] = now();
    timer[3 * i + 2] = double(slot);  // replaced by the stamp in readTimes()
  }
}

// False when the driver or device cannot do it; then the caller samples the plain way. A GPU that
// never answers (10 ms) also counts as unable, after its queued waits are released.
bool Run::calibrateWithMemops(Gpu &gpu, double *events) {
  if (!gpu.flagDev) return false;
  const int n = job.calibrationSamples;
  volatile uint32_t *flag = static_cast<volatile uint32_t *>(gpu.memopHost);
  volatile uint32_t *ack = flag + 8;
  std::vector<CUevent> es(n);
  const uint32_t first = gpu.memopSerial + 1;
  for (int i = 0; i < n; i++) {
    es[i] = event(gpu, calPool());
    const uint32_t v = first + uint32_t(i);
    if (d.streamWaitValue32(gpu.calStream, gpu.flagDev, v, CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS ||
        d.eventRecord(es[i], gpu.calStream) != CUDA_SUCCESS ||
        d.streamWriteValue32(gpu.calStream, gpu.ackDev, v, CU_STREAM_WRITE_VALUE_DEFAULT) != CUDA_SUCCESS) {
      *flag = 0xfffffff0u;
      gpu.flagDev = 0;
      check(d.streamSynchronize(gpu.calStream), "cuStreamSynchronize");
      return false;
    }
  }
  gpu.memopSerial = first + uint32_t(n) - 1;
  for (int i = 0; i < n; i++) {
    const uint32_t v = first + uint32_t(i);
    const double h0 = now();
    *flag = v;
    while (*ack < v) {
      if (now() - h0 > 10e6) {
        *flag = 0xfffffff0u;
        gpu.flagDev = 0;
        check(d.streamSynchronize(gpu.calStream), "cuStreamSynchronize");
        return false;
      }
    }
    const double h1 = now();
    events[3 * i] = h0;
    events[3 * i + 1] = h1;
  }
  check(d.streamSynchronize(gpu.calStream), "cuStreamSynchronize");
  for (int i = 0; i < n; i++) {
    float ms = 0;
    check(d.eventElapsedTime(&ms, gpu.reference, es[i]), "cuEventElapsedTime");
    events[3 * i + 2] = double(ms) * 1e6;
  }
  return true;
}

// The GPU-side latencies around a timing event, for core/gpu-run/spans.ts: a chain of short kernels
// queued behind a long one, each followed by an event (rows: event time, start slot, end slot),
// short kernels launched on the idle stream (rows: host begin, host end, event time, start slot,
// end slot), and short kernels each queued behind a small copy (rows: the copy's event time, the
// kernel's event time, start slot, end slot). Slots become %globaltimer stamps in readTimes().
// Each device measures its own.
void Run::measureLatency(Gpu &gpu, double *samples, size_t firstSlot) {
  const int m = kLatencySamples;
  double *chain = samples, *idle = chain + kChainRowWidth * m, *afterCopy = idle + kIdleRowWidth * m;
  unsigned long long shortNs = 2000;
  std::vector<CUevent> es(m);
  auto eventNs = [&](CUevent e) {
    float ms = 0;
    check(d.eventElapsedTime(&ms, gpu.reference, e), "cuEventElapsedTime");
    return double(ms) * 1e6;
  };
  // m short kernels queued back to back behind a long one, each followed by an event.
  launchSpin(gpu, gpu.calStream, kNoSlot, 1000ull * 1000ull);
  for (int i = 0; i < m; i++) {
    launchSpin(gpu, gpu.calStream, uint32_t(firstSlot + i), shortNs);
    es[i] = event(gpu, calPool());
    check(d.eventRecord(es[i], gpu.calStream), "cuEventRecord");
  }
  pollUntilDone(es[m - 1]);
  for (int i = 0; i < m; i++) {
    double *row = &chain[kChainRowWidth * i];
    row[0] = eventNs(es[i]);
    row[1] = row[2] = double(firstSlot + i);
  }
  for (int i = 0; i < m; i++) {
    uint32_t slot = uint32_t(firstSlot + m + i);
    void *args[] = {&gpu.starts, &gpu.ends, &slot, &shortNs};
    CUevent e = event(gpu, calPool());
    const double h0 = now();
    check(d.launchKernel(gpu.spin, 1, 1, 1, 32, 1, 1, 0, gpu.calStream, args, nullptr), "cuLaunchKernel");
    const double h1 = now();
    check(d.eventRecord(e, gpu.calStream), "cuEventRecord");
    pollUntilDone(e);
    double *row = &idle[kIdleRowWidth * i];
    row[0] = h0;
    row[1] = h1;
    row[2] = eventNs(e);
    row[3] = row[4] = double(slot);
  }
  // A kernel queued behind a copy starts later after the copy's end event than behind a kernel
  // (the compute engine waits on the copy engine). Each sample is one copy and one kernel queued
  // behind a short kernel, as a program queues them, and lands before the next: chains of copies
  // and kernels back to back read 4.1 to 7.8 us on the H200 where programs showed 2.3 to 3.4 us,
  // and two chains of 25 in a row read 2.8 and 4.8 to 5.3 us, whichever stream each ran on.
  for (int i = 0; i < m; i++) {
    launchSpin(gpu, gpu.calStream, kNoSlot, 30000);
    check(d.memcpyAsync(reinterpret_cast<CUdeviceptr>(gpu.copyHost), gpu.scratch, kLatencyCopyBytes, gpu.calStream),
          "cuMemcpyAsync");
    CUevent copied = event(gpu, calPool());
    check(d.eventRecord(copied, gpu.calStream), "cuEventRecord");
    const uint32_t slot = uint32_t(firstSlot + 2 * size_t(m) + i);
    launchSpin(gpu, gpu.calStream, slot, shortNs);
    CUevent e = event(gpu, calPool());
    check(d.eventRecord(e, gpu.calStream), "cuEventRecord");
    pollUntilDone(e);
    double *row = &afterCopy[kAfterCopyRowWidth * i];
    row[0] = eventNs(copied);
    row[1] = eventNs(e);
    row[2] = row[3] = double(slot);
  }
}

// A thread's first call of each kind pays for the driver's per-thread setup and cold code (a first
// launch on a stream, or a first copy, took 10 to 20 us against 4 us later on the H200): pay it here,
// on every stream the thread may use on every device, and wait for it before the run.
constexpr int kWarmWaits = 6;

void Run::warmThread(int t) {
  for (Gpu &gpu : gpus) {
    if (gpu.ordinal < 0) continue;
    use(gpu);
    // A host's first few waits, and the driver callback thread's first few callbacks, run slow. On
    // the H200 host, sleeping waits under blockingSync woke after about 60 us for the first five and
    // 37 us after that, and callbacks showed the same pattern. Each of these rounds is a kernel, a
    // callback and a wait, so the run itself starts at the steady cost. They come first, so that
    // the last thing before the run is the stream and buffer warm-up below.
    for (int round = 0; round < kWarmWaits; round++) {
      launchSpin(gpu, gpu.calStream, kNoSlot, 20000);
      check(d.launchHostFunc(gpu.calStream, hostFuncBody, &noWork), "cuLaunchHostFunc");
      check(d.streamSynchronize(gpu.calStream), "cuStreamSynchronize");
    }
    CUevent e;
    check(d.eventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
    std::vector<CUstream> used{gpu.calStream};
    for (size_t i = 0; i < job.streams.size() / kStreamWidth; i++) {
      const int32_t *st = &job.streams[i * kStreamWidth];
      if (st[4] == gpu.info.device && (st[0] != StreamPerThread || st[3] == t)) used.push_back(streams[i]->handle);
    }
    for (CUstream s : used) {
      launchSpin(gpu, s, kNoSlot, 0);
      check(d.eventRecord(e, s), "cuEventRecord");
    }
    // A stream's first copy is slow too (a small pageable copy as a run's first step took about
    // 2 us more than the next on the H200): each host buffer is copied both ways on every stream.
    for (auto &b : buffers) {
      if (b.kind == 0) continue;
      for (CUstream s : used) {
        check(d.memcpyAsync(gpu.scratch, b.ptr(), 4, s), "cuMemcpyAsync");
        check(d.memcpyAsync(b.ptr(), gpu.scratch, 4, s), "cuMemcpyAsync");
      }
    }
    for (CUstream s : used) check(d.streamSynchronize(s), "cuStreamSynchronize");
    // The last copy before the run is on the stream of the thread's first step here, through its
    // host buffer when that step is a copy, so that every run starts from the same state whatever
    // its other buffers and streams: on the H200 a first copy took longer when its buffer's last
    // warm-up copy ran on another stream, and when the scenario declared streams besides the
    // default one (docs/native-runtime.md).
    static thread_local uint8_t own[64];
    CUstream last = gpu.calStream;
    CUdeviceptr host = reinterpret_cast<CUdeviceptr>(own);
    const int32_t *first = firstStreamStep(t, gpu.info.device);
    const StreamState *firstStream = first ? streams[size_t(streamOf(first))].get() : nullptr;
    if (firstStream && firstStream->device == gpu.info.device) {  // a peer copy may name the other GPU's stream
      last = firstStream->handle;
      if (first[0] == OpCopy) {
        for (int k : {1, 2})
          if (buffers[size_t(first[k])].kind != 0) host = buffers[size_t(first[k])].ptr();
      }
    }
    check(d.memcpyAsync(gpu.scratch, host, 4, last), "cuMemcpyAsync");
    check(d.memcpyAsync(host, gpu.scratch, 4, last), "cuMemcpyAsync");
    check(d.streamSynchronize(last), "cuStreamSynchronize");
    d.eventDestroy(e);
  }
}

void Run::runThread(int t) {
  try {
    warmThread(t);
  } catch (const CudaError &e) {
    fail(e, size_t(-1));
  }
  // No thread starts its steps while another still warms up.
  ready++;
  while (ready.load() < threadCount()) std::this_thread::yield();
  if (abort) return;
  // Each step makes its device's context current; the warm-up left another one current.
  int current = -1;
  for (int g = job.threads[t]; g < job.threads[t + 1] && !abort; g++) {
    try {
      // A step runs in its device's context. Switching is outside the timed call, except for a
      // setDevice step, which is that switch.
      const int dev = stepGpu[size_t(g)];
      if (dev >= 0 && dev != current && job.steps[size_t(g) * kStepWidth] != OpSetDevice) use(gpus[dev]);
      if (dev >= 0) current = dev;
      step(t, size_t(g));
    } catch (const CudaError &e) {
      fail(e, size_t(g));
      return;
    }
    rec(size_t(g))[RecDone] = 1;
    ++stepsDone;
  }
}

void Run::step(int t, size_t g) {
  const int32_t *s = &job.steps[g * kStepWidth];
  const double value = job.values[g];
  double *r = rec(g);
  switch (s[0]) {
    case OpLaunch:
      launchStep(t, g, s, value);
      return;
    case OpRecord: {
      StreamState &st = *streams[streamOf(s)];
      onStream(t, g, st, "cuEventRecord", [&] { return d.eventRecord(userEvents[s[1]], st.handle); });
      return;
    }
    case OpWait: {
      // The event may belong to another device (S21): cuStreamWaitEvent takes it across contexts.
      StreamState &st = *streams[streamOf(s)];
      onStream(t, g, st, "cuStreamWaitEvent", [&] { return d.streamWaitEvent(st.handle, userEvents[s[1]], 0); });
      return;
    }
    case OpQuery: {
      const CUresult res = onHost(g, [&] { return d.eventQuery(userEvents[s[1]]); });
      if (res != CUDA_SUCCESS && res != CUDA_ERROR_NOT_READY) throw CudaError{res, "cuEventQuery"};
      r[RecAnswer] = res == CUDA_SUCCESS ? 1 : 2;
      return;
    }
    case OpEventSync:
      check(onHost(g, [&] { return d.eventSynchronize(userEvents[s[1]]); }), "cuEventSynchronize");
      return;
    case OpStreamSync:
      check(onHost(g, [&] { return d.streamSynchronize(streams[s[1]]->handle); }), "cuStreamSynchronize");
      return;
    case OpDeviceSync:
      // runThread made the named device's context current: this waits for that device only (S21).
      check(onHost(g, [&] { return d.ctxSynchronize(); }), "cuCtxSynchronize");
      return;
    case OpSetDevice:
      check(onHost(g, [&] { return d.ctxSetCurrent(gpus[s[1]].ctx); }), "cuCtxSetCurrent");
      return;
    case OpElapsed: {
      // Not-ready and disable-timing events are answers here (S11), not failures of the run.
      float ms = 0;
      const CUresult res = onHost(g, [&] { return d.eventElapsedTime(&ms, userEvents[s[1]], userEvents[s[2]]); });
      r[RecValue] = res == CUDA_SUCCESS ? double(ms) : NAN;
      return;
    }
    case OpCopy:
      copyStep(t, g, s, value);
      return;
    case OpMemset:
      memsetStep(t, g, s, value);
      return;
    case OpHostWork:
      onHost(g, [&] {
        busyNs(value);
        return CUDA_SUCCESS;
      });
      return;
    case OpHostFunc: {
      StreamState &st = *streams[streamOf(s)];
      void *user = const_cast<double *>(&job.values[g]);
      onStream(t, g, st, "cuLaunchHostFunc", [&] { return d.launchHostFunc(st.handle, hostFuncBody, user); });
      return;
    }
    default:
      throw CudaError{1, "unknown step"};
  }
}

// A kernel: the touch kernel over a buffer, sized to cover it unless the step names a grid, or the
// spin kernel for the step's duration.
void Run::launchStep(int t, size_t g, const int32_t *s, double value) {
  StreamState &st = *streams[streamOf(s)];
  Gpu &gpu = gpus[st.device];
  uint32_t slot = uint32_t(g);
  const unsigned block = unsigned(std::max(1, s[4]));
  if (s[2] >= 0) {
    const Buffer &b = buffers[s[2]];
    CUdeviceptr p = b.ptr();
    unsigned long long words = b.bytes / 4;
    const unsigned fill = unsigned(std::min<unsigned long long>((words + block - 1) / block, 8ull * gpu.info.sms));
    const unsigned grid = s[3] > 1 ? unsigned(s[3]) : std::max(1u, fill);
    void *args[] = {&gpu.starts, &gpu.ends, &slot, &p, &words};
    onStream(t, g, st, "cuLaunchKernel",
             [&] { return d.launchKernel(gpu.touch, grid, 1, 1, block, 1, 1, 0, st.handle, args, nullptr); });
  } else {
    unsigned long long ns = (unsigned long long)std::max(0.0, value);
    void *args[] = {&gpu.starts, &gpu.ends, &slot, &ns};
    const unsigned grid = unsigned(std::max(1, s[3]));
    onStream(t, g, st, "cuLaunchKernel",
             [&] { return d.launchKernel(gpu.spin, grid, 1, 1, block, 1, 1, 0, st.handle, args, nullptr); });
  }
}

void Run::copyStep(int t, size_t g, const int32_t *s, double value) {
  const Buffer &src = buffers[s[1]], &dst = buffers[s[2]];
  StreamState &st = *streams[streamOf(s)];
  const size_t bytes = size_t(value);
  if (src.kind == 0 && dst.kind == 0 && src.device != dst.device) {
    // A peer copy (S21); the scenario language makes it async, on a stream of either device.
    const Gpu &from = gpus[src.device], &to = gpus[dst.device];
    onStream(t, g, st, "cuMemcpyPeerAsync",
             [&] { return d.memcpyPeerAsync(dst.dev, to.ctx, src.dev, from.ctx, bytes, st.handle); });
  } else if (s[3]) {
    onStream(t, g, st, "cuMemcpyAsync", [&] { return d.memcpyAsync(dst.ptr(), src.ptr(), bytes, st.handle); });
  } else {
    auto sync = st.kind == StreamPerThread ? d.memcpyPtds : d.memcpy;
    onStream(t, g, st, "cuMemcpy", [&] { return sync(dst.ptr(), src.ptr(), bytes); });
  }
}

void Run::memsetStep(int t, size_t g, const int32_t *s, double value) {
  const Buffer &b = buffers[s[1]];
  StreamState &st = *streams[streamOf(s)];
  const size_t bytes = std::min(size_t(value), b.bytes);
  if (b.kind == 2) {  // pageable: the device cannot reach it, so the host clears it
    onHost(g, [&] {
      std::memset(b.host, 0, bytes);
      return CUDA_SUCCESS;
    });
  } else if (s[3]) {
    onStream(t, g, st, "cuMemsetD8Async", [&] { return d.memsetD8Async(b.ptr(), 0, bytes, st.handle); });
  } else {
    auto sync = st.kind == StreamPerThread ? d.memsetD8Ptds : d.memsetD8;
    onStream(t, g, st, "cuMemsetD8", [&] { return sync(b.ptr(), 0, bytes); });
  }
}

// Event times count from each device's own reference event, and stamps from each device's first
// calibration stamp: the TypeScript side maps each device's clock to the host's separately.
void Run::readTimes() {
  const int n = job.calibrationSamples;
  std::vector<std::vector<unsigned long long>> starts(gpus.size()), ends(gpus.size());
  std::vector<unsigned long long> timerBase(gpus.size(), 0);
  auto stamp = [&](size_t dev, bool start, double slot) {
    const auto &v = start ? starts[dev] : ends[dev];
    return double((long long)(v[size_t(slot)] - timerBase[dev]));
  };
  for (size_t k = 0; k < gpus.size(); k++) {
    Gpu &gpu = gpus[k];
    if (gpu.ordinal < 0) continue;
    use(gpu);
    starts[k].resize(slots);
    ends[k].resize(slots);
    check(d.memcpyDtoH(starts[k].data(), gpu.starts, slots * 8), "cuMemcpyDtoH");
    check(d.memcpyDtoH(ends[k].data(), gpu.ends, slots * 8), "cuMemcpyDtoH");
    timerBase[k] = starts[k][stepCount];  // the first calibration stamp
    for (int half = 0; half < 2; half++) {
      double *timer = &gpu.calibration[1 + (6 + 3 * half) * n];
      for (int i = 0; i < n; i++) timer[3 * i + 2] = stamp(k, true, timer[3 * i + 2]);
    }
    double *chain = &gpu.calibration[1 + 12 * size_t(n) + 2];
    double *idle = chain + kChainRowWidth * kLatencySamples;
    double *afterCopy = idle + kIdleRowWidth * kLatencySamples;
    for (int i = 0; i < kLatencySamples; i++) {
      double *c = &chain[kChainRowWidth * i], *h = &idle[kIdleRowWidth * i], *a = &afterCopy[kAfterCopyRowWidth * i];
      c[1] = stamp(k, true, c[1]);
      c[2] = stamp(k, false, c[2]);
      h[3] = stamp(k, true, h[3]);
      h[4] = stamp(k, false, h[4]);
      a[2] = stamp(k, true, a[2]);
      a[3] = stamp(k, false, a[3]);
    }
  }
  for (size_t g = 0; g < stepCount; g++) {
    const int dev = stepGpu[g];
    if (dev < 0) continue;
    Gpu &gpu = gpus[size_t(dev)];
    double *r = rec(g);
    if (stepEnd[g]) {
      float ms = 0;
      check(d.eventElapsedTime(&ms, gpu.reference, stepEnd[g]), "cuEventElapsedTime");
      r[RecGpuEnd] = double(ms) * 1e6;
    }
    if (job.steps[g * kStepWidth] == OpLaunch && ends[size_t(dev)][g] != 0) {
      r[RecTruthStart] = stamp(size_t(dev), true, double(g));
      r[RecTruthEnd] = stamp(size_t(dev), false, double(g));
    }
  }
}

void Run::cleanup() {
  for (Gpu &gpu : gpus) {
    if (!gpu.retained) continue;
    d.ctxSetCurrent(gpu.ctx);
    d.ctxSynchronize();
  }
  // Each object is destroyed in the context it was created in.
  auto in = [&](int dev) {
    if (dev >= 0 && size_t(dev) < gpus.size() && gpus[size_t(dev)].retained) d.ctxSetCurrent(gpus[size_t(dev)].ctx);
  };
  for (size_t i = 0; i < userEvents.size(); i++) {
    in(job.events[i * kEventWidth + 2]);
    d.eventDestroy(userEvents[i]);
  }
  for (auto &s : streams) {
    if (s->kind != StreamUser || !s->handle) continue;
    in(s->device);
    d.streamDestroy(s->handle);
  }
  for (auto &b : buffers) {
    if (b.dev) {
      in(b.device);
      d.memFree(b.dev);
    } else if (b.kind == 1) {
      d.memFreeHost(b.host);
    } else {
      std::free(b.host);
    }
  }
  for (Gpu &gpu : gpus) {
    if (!gpu.retained) continue;
    d.ctxSetCurrent(gpu.ctx);
    for (auto &p : gpu.pools)
      for (CUevent e : p.events) d.eventDestroy(e);
    if (gpu.reference) d.eventDestroy(gpu.reference);
    if (gpu.memopHost) d.memFreeHost(gpu.memopHost);
    if (gpu.copyHost) d.memFreeHost(gpu.copyHost);
    if (gpu.calStream) d.streamDestroy(gpu.calStream);
    if (gpu.starts) d.memFree(gpu.starts);
    if (gpu.ends) d.memFree(gpu.ends);
    if (gpu.scratch) d.memFree(gpu.scratch);
    if (gpu.module) d.moduleUnload(gpu.module);
    d.primaryCtxRelease(gpu.dev);
  }
}

}  // namespace

void execute(const Driver &d, const Job &job, Result &out) {
  Run run(d, job, out);
  run.go();
}

std::vector<DeviceInfo> listDevices(const Driver &d, std::string &error) {
  std::vector<DeviceInfo> list;
  int count = 0;
  CUresult r = d.deviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    error = "cuDeviceGetCount failed with " + errorName(d, r);
    return list;
  }
  for (int i = 0; i < count; i++) {
    CUdevice dev;
    DeviceInfo info;
    char name[256] = {0};
    if (d.deviceGet(&dev, i) != CUDA_SUCCESS) continue;
    d.deviceGetName(name, sizeof name, dev);
    info.name = name;
    d.deviceGetAttribute(&info.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    d.deviceGetAttribute(&info.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    d.deviceGetAttribute(&info.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    d.driverGetVersion(&info.driverVersion);
    size_t mem = 0;
    d.deviceTotalMem(&mem, dev);
    info.totalMem = double(mem);
    list.push_back(info);
  }
  return list;
}

}  // namespace syncscope
