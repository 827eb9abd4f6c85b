// The raw capture stream: what the injection library writes and core/import/capture-raw.ts reads.
// docs/capture.md describes it for readers of the file; this header is its single definition.
// Little-endian, no padding: every record is a 8-byte header (type, reserved, body length)
// followed by its body, so a reader can skip types it does not know and can tell a truncated
// record from a complete one.
#pragma once
#include <cstdint>

namespace capture {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'C', 'C', 'A', 'P', '1'};
constexpr uint32_t kVersion = 1;

#pragma pack(push, 1)
struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t headerBytes;
  uint32_t pid;
  uint32_t cuptiApiVersion;
  uint64_t startTimestamp;  // cuptiGetTimestamp() when the library was loaded
  int32_t cudaDriverVersion;
  uint32_t reserved;
};

struct RecordHeader {
  uint16_t type;
  uint16_t reserved;
  uint32_t bodyBytes;
};

enum RecordType : uint16_t {
  kThread = 1,     // ThreadBody + name bytes
  kCall = 2,       // CallBody
  kKernel = 3,     // KernelBody
  kMemcpy = 4,     // MemcpyBody
  kMemset = 5,     // MemsetBody
  kCudaEvent = 6,  // CudaEventBody
  kSync = 7,       // SyncBody
  kString = 8,     // uint32 id + UTF-8 bytes (kernel names)
  kApiName = 9,    // uint8 domain, uint8 0, uint16 cbid + UTF-8 bytes
  kDevice = 10,    // DeviceBody + name bytes
  kDropped = 11,   // uint64 activity records CUPTI dropped
  kPython = 12,    // uint32 status, uint32 hex version, uint32 unreadable frames + UTF-8 text (python_stack.h)
  kPyFrame = 13,   // uint32 id, line, first line, file bytes + file + function (UTF-8)
  kPyStack = 14,   // uint32 id, flags (1: cut at its outermost frames) + uint32 frame ids, innermost first
  kEnd = 99,       // EndBody: present only when the file was written completely
};

/** The API a call record stands for; several CUDA entry points map to one. */
enum Api : uint8_t {
  kOther = 0,
  kLaunch = 1,
  kRecord = 2,
  kStreamWait = 3,
  kEventQuery = 4,
  kEventSync = 5,
  kStreamSync = 6,
  kDeviceSync = 7,
  kElapsed = 8,
  kMemcpyCall = 9,
  kMemsetCall = 10,
  kHostFunc = 11,
  kStreamCreate = 12,
  kStreamDestroy = 13,
  kEventCreate = 14,
  kEventDestroy = 15,
  kStreamQuery = 16,
  kGraphLaunch = 17,  // cudaGraphLaunch, cuGraphLaunch: every node's activity record carries its correlation id
};

/** Stream handles as the program passed them, except the two default streams, which get fixed values. */
constexpr uint64_t kLegacyStream = 1;     // NULL without per-thread default streams, or cudaStreamLegacy
constexpr uint64_t kPerThreadStream = 2;  // NULL in a _ptsz/_ptds entry point, or cudaStreamPerThread

/** Where a host pointer lives, asked of the driver (cuPointerGetAttribute). */
enum HostMemory : uint8_t { kMemUnknown = 0, kPinned = 1, kPageable = 2, kDeviceMem = 3 };
/** Copy directions, as the trace names them. */
enum CopyDir : uint8_t { kDirUnknown = 0, kHtoD = 1, kDtoH = 2, kDtoD = 3, kHtoH = 4 };

struct ThreadBody {
  uint32_t index;  // calls name their thread by this index
  uint32_t osTid;
};

constexpr uint64_t kSeqUnknown = UINT64_MAX;  // the event table was full: the binding is not known

struct CallBody {
  uint8_t api;
  uint8_t domain;  // CUPTI_CB_DOMAIN_DRIVER_API (1) or CUPTI_CB_DOMAIN_RUNTIME_API (2)
  uint16_t cbid;
  uint32_t thread;
  uint32_t correlationId;
  int32_t result;  // cudaError_t or CUresult
  uint64_t begin;
  uint64_t end;
  uint64_t stream;
  uint64_t event;   // elapsed: the start event
  uint64_t event2;  // elapsed: the end event
  // record: this record's number for its event handle (1, 2, ...). wait, query, eventSync,
  // elapsed: the number of the event's latest record issued before the call (0: none yet).
  // eventCreate: the handle's count at creation, so a reused handle starts afresh.
  uint64_t seq;
  uint64_t seq2;  // elapsed: the same for the end event
  uint64_t bytes;
  uint32_t flags;  // stream or event creation flags; record flags; memcpy: cudaMemcpyKind
  int32_t priority;
  float value;         // elapsed milliseconds
  uint32_t streamId;   // stream create: CUPTI's id of the new stream, which activity records name
  uint8_t hostMemory;  // HostMemory of the copy's host side
  uint8_t copyDir;     // CopyDir
  uint8_t complete;    // 0 while the call has not returned (a dump during a blocking call)
  uint8_t device;      // CUPTI's device id of the context current to the call, plus 1; 0: no context
  uint32_t pyStack;    // the calling thread's Python stack (a kPyStack id); 0: none
};

struct KernelBody {
  uint32_t correlationId;
  uint32_t deviceId;
  uint32_t streamId;
  uint32_t nameId;
  uint64_t start;
  uint64_t end;
  int32_t grid[3];
  int32_t block[3];
};

struct MemcpyBody {
  uint32_t correlationId;
  uint32_t deviceId;
  uint32_t streamId;
  uint8_t copyKind;  // CUpti_ActivityMemcpyKind
  uint8_t srcKind;   // CUpti_ActivityMemoryKind
  uint8_t dstKind;
  uint8_t pad;
  uint64_t bytes;
  uint64_t start;
  uint64_t end;
};

struct MemsetBody {
  uint32_t correlationId;
  uint32_t deviceId;
  uint32_t streamId;
  uint32_t memoryKind;  // CUpti_ActivityMemoryKind
  uint64_t bytes;
  uint64_t start;
  uint64_t end;
};

struct CudaEventBody {
  uint32_t correlationId;
  uint32_t deviceId;
  uint32_t streamId;
  uint32_t eventId;
  uint64_t deviceTimestamp;  // 0 where CUPTI did not collect it
  uint64_t syncId;           // cudaEventSyncId: ties synchronization records to this record
};

struct SyncBody {
  uint32_t correlationId;
  uint32_t type;  // CUpti_ActivitySynchronizationType
  uint32_t streamId;
  uint32_t eventId;
  uint64_t start;
  uint64_t end;
  uint64_t syncId;
  uint32_t returnValue;
  uint32_t pad;
};

struct DeviceBody {
  uint32_t id;
  uint32_t sms;
  uint32_t ccMajor;
  uint32_t ccMinor;
};

struct EndBody {
  uint64_t calls;
  uint64_t activities;
  uint64_t endTimestamp;
  uint32_t threads;
  uint32_t incompleteCalls;
};
#pragma pack(pop)

static_assert(sizeof(FileHeader) == 40, "FileHeader layout");
static_assert(sizeof(RecordHeader) == 8, "RecordHeader layout");
static_assert(sizeof(CallBody) == 104, "CallBody layout");
static_assert(sizeof(KernelBody) == 56, "KernelBody layout");
static_assert(sizeof(MemcpyBody) == 40, "MemcpyBody layout");
static_assert(sizeof(MemsetBody) == 40, "MemsetBody layout");
static_assert(sizeof(CudaEventBody) == 32, "CudaEventBody layout");
static_assert(sizeof(SyncBody) == 48, "SyncBody layout");
static_assert(sizeof(DeviceBody) == 16, "DeviceBody layout");
static_assert(sizeof(EndBody) == 32, "EndBody layout");

}  // namespace capture
