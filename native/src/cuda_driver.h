// The few CUDA driver API types and entry points the runtime uses, declared here so that the addon
// builds with a C++ compiler alone. The driver itself is opened at run time (cuda_driver.cc).
#pragma once
#include <cstddef>
#include <string>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef void (*CUhostFn)(void *userData);

enum : CUresult {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
};

#define SYNCSCOPE_STREAM_LEGACY ((CUstream)0x1)
#define SYNCSCOPE_STREAM_PER_THREAD ((CUstream)0x2)

enum : unsigned {
  CU_STREAM_DEFAULT = 0x0,
  CU_STREAM_NON_BLOCKING = 0x1,
  CU_EVENT_DEFAULT = 0x0,
  CU_EVENT_BLOCKING_SYNC = 0x1,
  CU_EVENT_DISABLE_TIMING = 0x2,
  CU_CTX_SCHED_AUTO = 0x0,
  CU_CTX_SCHED_SPIN = 0x1,
  CU_CTX_SCHED_YIELD = 0x2,
  CU_CTX_SCHED_BLOCKING_SYNC = 0x4,
  CU_MEMHOSTALLOC_PORTABLE = 0x1,
  CU_MEMHOSTALLOC_DEVICEMAP = 0x2,
  CU_STREAM_WAIT_VALUE_GEQ = 0x0,
  CU_STREAM_WRITE_VALUE_DEFAULT = 0x0,
};

enum CUdevice_attribute_subset {
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

enum CUjit_option_subset {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

// X(member, exported symbol, return, parameters). The symbols are the versioned ones that a
// toolkit header would pick for an application built today.
#define SYNCSCOPE_DRIVER_FUNCTIONS(X)                                                                               \
  X(init, "cuInit", CUresult, (unsigned))                                                                           \
  X(driverGetVersion, "cuDriverGetVersion", CUresult, (int *))                                                      \
  X(getErrorName, "cuGetErrorName", CUresult, (CUresult, const char **))                                            \
  X(getErrorString, "cuGetErrorString", CUresult, (CUresult, const char **))                                        \
  X(deviceGetCount, "cuDeviceGetCount", CUresult, (int *))                                                          \
  X(deviceGet, "cuDeviceGet", CUresult, (CUdevice *, int))                                                          \
  X(deviceGetName, "cuDeviceGetName", CUresult, (char *, int, CUdevice))                                            \
  X(deviceGetAttribute, "cuDeviceGetAttribute", CUresult, (int *, int, CUdevice))                                   \
  X(deviceTotalMem, "cuDeviceTotalMem_v2", CUresult, (size_t *, CUdevice))                                          \
  X(primaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult, (CUcontext *, CUdevice))                                \
  X(primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUresult, (CUdevice))                                        \
  X(primaryCtxSetFlags, "cuDevicePrimaryCtxSetFlags_v2", CUresult, (CUdevice, unsigned))                            \
  X(ctxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext))                                                        \
  X(ctxSynchronize, "cuCtxSynchronize", CUresult, ())                                                               \
  X(ctxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange", CUresult, (int *, int *))                             \
  X(deviceCanAccessPeer, "cuDeviceCanAccessPeer", CUresult, (int *, CUdevice, CUdevice))                            \
  X(ctxEnablePeerAccess, "cuCtxEnablePeerAccess", CUresult, (CUcontext, unsigned))                                  \
  X(moduleLoadDataEx, "cuModuleLoadDataEx", CUresult, (CUmodule *, const void *, unsigned, int *, void **))         \
  X(moduleUnload, "cuModuleUnload", CUresult, (CUmodule))                                                           \
  X(moduleGetFunction, "cuModuleGetFunction", CUresult, (CUfunction *, CUmodule, const char *))                     \
  X(memAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr *, size_t))                                                   \
  X(memFree, "cuMemFree_v2", CUresult, (CUdeviceptr))                                                               \
  X(memHostAlloc, "cuMemHostAlloc", CUresult, (void **, size_t, unsigned))                                          \
  X(memFreeHost, "cuMemFreeHost", CUresult, (void *))                                                               \
  X(memcpyDtoH, "cuMemcpyDtoH_v2", CUresult, (void *, CUdeviceptr, size_t))                                         \
  X(memcpy, "cuMemcpy", CUresult, (CUdeviceptr, CUdeviceptr, size_t))                                               \
  X(memcpyPtds, "cuMemcpy_ptds", CUresult, (CUdeviceptr, CUdeviceptr, size_t))                                      \
  X(memcpyAsync, "cuMemcpyAsync", CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream))                           \
  X(memcpyPeerAsync, "cuMemcpyPeerAsync", CUresult,                                                                 \
    (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream))                                             \
  X(memsetD8, "cuMemsetD8_v2", CUresult, (CUdeviceptr, unsigned char, size_t))                                      \
  X(memsetD8Ptds, "cuMemsetD8_v2_ptds", CUresult, (CUdeviceptr, unsigned char, size_t))                             \
  X(memsetD8Async, "cuMemsetD8Async", CUresult, (CUdeviceptr, unsigned char, size_t, CUstream))                     \
  X(memsetD32, "cuMemsetD32_v2", CUresult, (CUdeviceptr, unsigned, size_t))                                         \
  X(streamCreateWithPriority, "cuStreamCreateWithPriority", CUresult, (CUstream *, unsigned, int))                  \
  X(streamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream))                                                      \
  X(streamSynchronize, "cuStreamSynchronize", CUresult, (CUstream))                                                 \
  X(streamWaitEvent, "cuStreamWaitEvent", CUresult, (CUstream, CUevent, unsigned))                                  \
  X(eventCreate, "cuEventCreate", CUresult, (CUevent *, unsigned))                                                  \
  X(eventDestroy, "cuEventDestroy_v2", CUresult, (CUevent))                                                         \
  X(eventRecord, "cuEventRecord", CUresult, (CUevent, CUstream))                                                    \
  X(eventQuery, "cuEventQuery", CUresult, (CUevent))                                                                \
  X(eventSynchronize, "cuEventSynchronize", CUresult, (CUevent))                                                    \
  X(launchKernel, "cuLaunchKernel", CUresult,                                                                       \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **)) \
  X(launchHostFunc, "cuLaunchHostFunc", CUresult, (CUstream, CUhostFn, void *))

struct Driver {
#define SYNCSCOPE_MEMBER(name, sym, ret, params) ret(*name) params = nullptr;
  SYNCSCOPE_DRIVER_FUNCTIONS(SYNCSCOPE_MEMBER)
#undef SYNCSCOPE_MEMBER
  // cuEventElapsedTime_v2 where the driver has it (CUDA 12.8+), else the original entry point.
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  // Optional: stream memory operations tighten the clock alignment where the driver has them.
  CUresult (*streamWaitValue32)(CUstream, CUdeviceptr, unsigned, unsigned) = nullptr;
  CUresult (*streamWriteValue32)(CUstream, CUdeviceptr, unsigned, unsigned) = nullptr;
  CUresult (*memHostGetDevicePointer)(CUdeviceptr *, void *, unsigned) = nullptr;
};

// Opens libcuda.so.1 and cuInit(0)s it once. On failure returns null and sets `reason` to a
// sentence that starts with "no NVIDIA driver" or names the failing call.
const Driver *loadDriver(std::string &reason);

// "CUDA_ERROR_INVALID_VALUE" for a code (or "CUDA_ERROR_<n>" when the driver does not know it).
std::string errorName(const Driver &d, CUresult r);
