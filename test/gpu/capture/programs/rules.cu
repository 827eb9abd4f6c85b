// Exercises S1..S20 as a C++ program can, for the capture GPU test. Every call that the test
// compares has its twin step in the scenario written in test/gpu/capture.test.ts, in the same
// order; keep the two in step. Setup (malloc, stream and event creation) is not compared.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <chrono>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

__global__ void spin(long long ns) {
  long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

static void launch(cudaStream_t s, long long us) {
  spin<<<1, 32, 0, s>>>(us * 1000);
  CHECK(cudaGetLastError());
}

static void CUDART_CB hostFn(void*) {
  auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(50)) {
  }
}

int main() {
  const size_t MB = 1 << 20;
  cudaStream_t legacy = 0, a, b, hi, lo, w;
  int least = 0, greatest = 0;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CHECK(cudaStreamCreate(&a));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, greatest));
  CHECK(cudaStreamCreateWithPriority(&lo, cudaStreamNonBlocking, least));
  CHECK(cudaStreamCreateWithFlags(&w, cudaStreamNonBlocking));
  cudaEvent_t ev, never, start, stop, noTiming, sleepy;
  CHECK(cudaEventCreate(&ev));
  CHECK(cudaEventCreate(&never));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventCreateWithFlags(&noTiming, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&sleepy, cudaEventBlockingSync | cudaEventDisableTiming));
  void* d;
  void* pinned;
  CHECK(cudaMalloc(&d, MB));
  CHECK(cudaMallocHost(&pinned, MB));
  void* pageable = std::malloc(MB);
  std::memset(pageable, 1, MB);

  // Warm-up: every stream and the kernel, so that first-use costs (the first launch of a process
  // takes milliseconds) do not hide the waits after them.
  launch(a, 1);
  launch(b, 1);
  launch(hi, 1);
  launch(lo, 1);
  launch(legacy, 1);
  launch(w, 1);
  CHECK(cudaDeviceSynchronize());

  // Two host threads: the worker's work on its own stream, before the main thread's phases.
  // A thread's first launch sets up the runtime's per-thread state: on the H200 host it returned
  // after 5.5 ms, when a short kernel had long finished. 20 ms keeps the kernel pending.
  std::thread worker([&] {
    launch(w, 20000);
    CHECK(cudaStreamSynchronize(w));
  });
  worker.join();

  // S1, S13: stream order; streamSync is released by the stream's last kernel.
  launch(a, 200);
  launch(a, 100);
  CHECK(cudaStreamSynchronize(a));

  // S2, S3: the legacy stream waits for the blocking stream a, not for the non-blocking b.
  launch(a, 300);
  launch(legacy, 50);
  launch(b, 50);
  CHECK(cudaStreamSynchronize(legacy));
  CHECK(cudaDeviceSynchronize());

  // S6, S8, S12, S7, S10: record, wait on another stream, re-record, query, synchronize.
  launch(a, 300);
  CHECK(cudaEventRecord(ev, a));
  CHECK(cudaStreamWaitEvent(b, ev, 0));
  launch(b, 50);
  CHECK(cudaStreamSynchronize(b));
  launch(a, 200);
  CHECK(cudaEventRecord(ev, a));
  cudaError_t q1 = cudaEventQuery(ev);
  CHECK(cudaEventSynchronize(ev));
  cudaError_t q2 = cudaEventQuery(ev);
  (void)cudaGetLastError();
  std::printf("query before: %s, after: %s\n", cudaGetErrorName(q1), cudaGetErrorName(q2));

  // S9: an event never recorded: wait, synchronize and query are no-ops.
  CHECK(cudaStreamWaitEvent(b, never, 0));
  CHECK(cudaEventSynchronize(never));
  CHECK(cudaEventQuery(never));

  // S11: elapsed time between timing events; an error with a disable-timing event.
  CHECK(cudaEventRecord(start, a));
  launch(a, 100);
  CHECK(cudaEventRecord(stop, a));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaEventRecord(noTiming, a));
  CHECK(cudaEventSynchronize(noTiming));
  cudaError_t bad = cudaEventElapsedTime(&ms, start, noTiming);
  (void)cudaGetLastError();  // the expected failure must not fail the next launch's check
  std::printf("elapsed %.3f ms; with a disable-timing event: %s\n", ms, cudaGetErrorName(bad));

  // S15: a blocking-sync event sleeps instead of spinning.
  launch(a, 200);
  CHECK(cudaEventRecord(sleepy, a));
  CHECK(cudaEventSynchronize(sleepy));

  // S17: a pageable async copy blocks the host; a pinned one does not.
  launch(a, 200);
  CHECK(cudaMemcpyAsync(pageable, d, MB, cudaMemcpyDeviceToHost, a));
  CHECK(cudaMemcpyAsync(d, pinned, MB, cudaMemcpyHostToDevice, a));
  CHECK(cudaStreamSynchronize(a));

  // S18: a synchronous copy goes on the legacy stream, after a's kernel (S3); memsets. From pinned
  // memory, so that the call returns when the copy is done (from pageable memory it may return
  // once the data is staged, before the copy's end).
  launch(a, 200);
  CHECK(cudaMemcpy(d, pinned, MB, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d, 0, MB));
  CHECK(cudaMemsetAsync(d, 0, MB, b));
  CHECK(cudaDeviceSynchronize());

  // S20: a host function holds back the work after it on its stream.
  launch(a, 100);
  CHECK(cudaLaunchHostFunc(a, hostFn, nullptr));
  launch(a, 50);
  CHECK(cudaStreamSynchronize(a));

  // S5: priorities change timing only.
  launch(lo, 100);
  launch(hi, 20);
  CHECK(cudaDeviceSynchronize());

  // S4: the per-thread default stream, then legacy work ordered after it; not compared with the
  // scenario (it names only one kind of default stream per scenario), checked on its own.
  launch(cudaStreamPerThread, 100);
  launch(legacy, 20);
  CHECK(cudaDeviceSynchronize());
  std::free(pageable);
  std::printf("done\n");
  return 0;
}
