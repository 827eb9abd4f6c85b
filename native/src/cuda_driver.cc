#include "cuda_driver.h"

#include <dlfcn.h>
#include <mutex>

namespace {
std::once_flag once;
Driver driver;
const Driver *loaded = nullptr;
std::string failure;

void open() {
  // RTLD_LOCAL keeps the driver's symbols out of the process namespace that node shares with
  // other addons.
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    failure = std::string("no NVIDIA driver: libcuda.so.1 not found (") + (e ? e : "unknown dlopen error") + ")";
    return;
  }
#define SYNCSCOPE_LOAD(name, sym, ret, params)                                                          \
  driver.name = reinterpret_cast<ret(*) params>(dlsym(lib, sym));                                       \
  if (!driver.name) {                                                                                   \
    failure = std::string("no usable NVIDIA driver: libcuda.so.1 lacks ") + sym + " (driver too old?)"; \
    return;                                                                                             \
  }
  SYNCSCOPE_DRIVER_FUNCTIONS(SYNCSCOPE_LOAD)
#undef SYNCSCOPE_LOAD
  void *elapsed = dlsym(lib, "cuEventElapsedTime_v2");
  if (!elapsed) elapsed = dlsym(lib, "cuEventElapsedTime");
  driver.eventElapsedTime = reinterpret_cast<CUresult (*)(float *, CUevent, CUevent)>(elapsed);
  if (!driver.eventElapsedTime) {
    failure = "no usable NVIDIA driver: libcuda.so.1 lacks cuEventElapsedTime";
    return;
  }
  driver.streamWaitValue32 =
      reinterpret_cast<CUresult (*)(CUstream, CUdeviceptr, unsigned, unsigned)>(dlsym(lib, "cuStreamWaitValue32_v2"));
  driver.streamWriteValue32 =
      reinterpret_cast<CUresult (*)(CUstream, CUdeviceptr, unsigned, unsigned)>(dlsym(lib, "cuStreamWriteValue32_v2"));
  driver.memHostGetDevicePointer =
      reinterpret_cast<CUresult (*)(CUdeviceptr *, void *, unsigned)>(dlsym(lib, "cuMemHostGetDevicePointer_v2"));
  CUresult r = driver.init(0);
  if (r != CUDA_SUCCESS) {
    failure = "no usable NVIDIA driver: cuInit failed with " + errorName(driver, r);
    return;
  }
  loaded = &driver;
}
}  // namespace

const Driver *loadDriver(std::string &reason) {
  std::call_once(once, open);
  reason = failure;
  return loaded;
}

std::string errorName(const Driver &d, CUresult r) {
  const char *name = nullptr;
  if (d.getErrorName && d.getErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUDA_ERROR_" + std::to_string(r);
}
