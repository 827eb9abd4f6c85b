// A library that calls the runtime as torch's do, through its dynamic symbols (linked against
// fake_runtime.cc's library), so that a preloaded sync clock sits between them: the fake torch
// (test/fixtures/fake-torch) calls it where FAKE_TORCH_RUNTIME names it.
extern "C" int cudaDeviceSynchronize();
extern "C" int cudaStreamSynchronize(void *stream);

extern "C" int fake_torch_synchronize(int stream) {
  return stream ? cudaStreamSynchronize(nullptr) : cudaDeviceSynchronize();
}
