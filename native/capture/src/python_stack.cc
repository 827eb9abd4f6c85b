#include "python_stack.h"

#include <dlfcn.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "raw_format.h"
#include "thread_log.h"

namespace capture {
namespace py {
namespace {

// Where CPython keeps what the reader follows, per minor version, as its headers lay it out for
// the default (GIL) build on 64-bit Linux. test/runner/python-stack.test.ts reads real stacks
// through this table with every interpreter the machine has; docs/capture.md lists the fields.
struct Layout {
  int minor;
  int tstateFrame;    // PyThreadState: the innermost frame, or (cframeFrame >= 0) the _PyCFrame holding it
  int cframeFrame;    // _PyCFrame: current_frame; -1 where the thread state holds the frame itself
  bool frameObjects;  // 3.10: frames are PyFrameObjects and frameInstr is f_lasti, an int in code units
  int frameCode;      // the frame's code object
  int framePrevious;  // the calling frame
  int frameInstr;     // the instruction in progress (3.11, 3.12: prev_instr; 3.13: instr_ptr)
  int frameOwner;     // a char; FRAME_OWNED_BY_CSTACK (3) marks a shim frame; -1: none
  int codeFilename;   // co_filename
  int codeName;       // co_qualname (3.11+), co_name (3.10)
  int codeFirstLine;  // co_firstlineno, an int
  int codeBytecode;   // co_code_adaptive, where instruction pointers point; -1 for 3.10
  int asciiSize;      // sizeof(PyASCIIObject): a compact ASCII string's characters follow it
  int compactSize;    // sizeof(PyCompactUnicodeObject): other compact strings' characters follow it
};

constexpr Layout kLayouts[] = {
    {10, 24, -1, true, 32, 24, 96, -1, 104, 112, 40, -1, 48, 72},
    {11, 56, 8, false, 32, 48, 56, 69, 112, 128, 72, 184, 48, 72},
    {12, 56, 0, false, 0, 8, 56, 70, 112, 128, 68, 192, 40, 56},
    {13, 72, -1, false, 0, 8, 56, 70, 112, 128, 68, 200, 40, 56},
};

constexpr int kMaxDepth = 128;  // deeper stacks keep their innermost frames
constexpr uint8_t kOwnedByCStack = 3;
constexpr size_t kMaxText = 1024;  // a file or function name longer than this is cut

using GetThreadState = void* (*)();
using IsInitialized = int (*)();
using Addr2Line = int (*)(void*, int);

struct State {
  Status status = kNotPython;
  uint32_t hexVersion = 0;
  std::string text;
  const Layout* layout = nullptr;
  GetThreadState threadState = nullptr;
  IsInitialized isInitialized = nullptr;
  Addr2Line addr2line = nullptr;
  const void* codeType = nullptr;
  bool enabled = false;
};
State state;

struct RawFrame {
  const char* code;
  uint64_t instr;
};

template <typename T>
inline T at(const char* base, int offset) {
  T v;
  std::memcpy(&v, base + offset, sizeof v);
  return v;
}

inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

// The interned tables: touched only on a stack a thread has not met before, under one lock.
struct Interned {
  std::mutex lock;
  std::map<std::tuple<std::string, std::string, uint32_t>, uint32_t> frameIds;
  std::vector<std::tuple<std::string, std::string, uint32_t, uint32_t>> frames;  // file, function, line, first line
  std::map<std::vector<uint32_t>, uint32_t> stackIds;
  std::vector<std::pair<std::vector<uint32_t>, uint32_t>> stacks;  // frame ids innermost first, flags
  std::unordered_map<uint64_t, uint32_t> byKey;                    // a raw stack's hash -> its stack id
  uint32_t unreadable = 0;                                         // frames whose code object did not check
};
Interned& interned() {
  static Interned* t = new Interned();  // never destroyed: callbacks may run during exit
  return *t;
}

void appendUtf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xc0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xe0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  }
}

/** A str object's text, read from its compact representation; "?" for any other. */
std::string readString(const char* s) {
  const Layout& l = *state.layout;
  if (!s) return "?";
  const auto length = at<int64_t>(s, 16);
  const auto bits = at<uint32_t>(s, 32);
  const uint32_t kind = (bits >> 2) & 7, compact = (bits >> 5) & 1, ascii = (bits >> 6) & 1;
  if (!compact || length < 0) return "?";
  const size_t n = static_cast<size_t>(length) < kMaxText ? static_cast<size_t>(length) : kMaxText;
  if (ascii) return std::string(s + l.asciiSize, n);
  const char* data = s + l.compactSize;
  std::string out;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = kind == 1   ? static_cast<uint8_t>(data[i])
                 : kind == 2 ? at<uint16_t>(data, static_cast<int>(2 * i))
                 : kind == 4 ? at<uint32_t>(data, static_cast<int>(4 * i))
                             : '?';
    appendUtf8(out, c);
  }
  return out;
}

uint32_t internFrame(Interned& t, const RawFrame& f) {
  const Layout& l = *state.layout;
  // A code object has CPython's code type: anything else means the layout is not the one read.
  if (at<const void*>(f.code, 8) != state.codeType) {
    t.unreadable++;
    return 0;
  }
  int offset =
      l.frameObjects
          ? static_cast<int>(f.instr) * 2
          : static_cast<int>(static_cast<int64_t>(f.instr - reinterpret_cast<uint64_t>(f.code)) - l.codeBytecode);
  int line = offset < 0 ? 0 : state.addr2line(const_cast<char*>(f.code), offset);
  std::string file = readString(at<const char*>(f.code, l.codeFilename));
  std::string function = readString(at<const char*>(f.code, l.codeName));
  uint32_t first = static_cast<uint32_t>(at<int32_t>(f.code, l.codeFirstLine));
  auto key = std::make_tuple(file, function, static_cast<uint32_t>(line < 0 ? 0 : line));
  auto it = t.frameIds.find(key);
  if (it != t.frameIds.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(t.frames.size() + 1);
  t.frames.emplace_back(file, function, std::get<2>(key), first);
  t.frameIds.emplace(std::move(key), id);
  return id;
}

uint32_t internStack(const RawFrame* raw, int depth, bool truncated, uint64_t key) {
  Interned& t = interned();
  std::lock_guard<std::mutex> g(t.lock);
  auto known = t.byKey.find(key);
  if (known != t.byKey.end()) return known->second;
  std::vector<uint32_t> frames;
  frames.reserve(depth);
  for (int i = 0; i < depth; i++) frames.push_back(internFrame(t, raw[i]));
  auto it = t.stackIds.find(frames);
  uint32_t id;
  if (it != t.stackIds.end()) {
    id = it->second;
  } else {
    id = static_cast<uint32_t>(t.stacks.size() + 1);
    t.stacks.emplace_back(frames, truncated ? 1u : 0u);
    t.stackIds.emplace(std::move(frames), id);
  }
  t.byKey.emplace(key, id);
  return id;
}

const char* innermostFrame(const char* tstate) {
  const Layout& l = *state.layout;
  const char* p = at<const char*>(tstate, l.tstateFrame);
  if (p && l.cframeFrame >= 0) p = at<const char*>(p, l.cframeFrame);
  return p;
}

void say(const std::string& why, Status s) {
  state.status = s;
  state.text = why;
}

}  // namespace

void init() {
  auto sym = [](const char* name) { return dlsym(RTLD_DEFAULT, name); };
  auto* getThreadState = reinterpret_cast<GetThreadState>(sym("PyGILState_GetThisThreadState"));
  if (!getThreadState) return say("not a Python process", kNotPython);
  int major = 0, minor = 0, micro = 0;
  if (const auto* v = static_cast<const unsigned long*>(sym("Py_Version"))) {
    state.hexVersion = static_cast<uint32_t>(*v);
    major = (*v >> 24) & 0xff, minor = (*v >> 16) & 0xff, micro = (*v >> 8) & 0xff;
  } else if (auto* getVersion = reinterpret_cast<const char* (*)()>(sym("Py_GetVersion"))) {
    // 3.10 has no Py_Version; its version string starts "3.10.13 (".
    if (std::sscanf(getVersion(), "%d.%d.%d", &major, &minor, &micro) != 3) major = 0;
    state.hexVersion = static_cast<uint32_t>((major << 24) | (minor << 16) | (micro << 8));
  }
  std::string name = "CPython " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(micro);
  for (const Layout& l : kLayouts)
    if (major == 3 && l.minor == minor) state.layout = &l;
  state.threadState = getThreadState;
  state.isInitialized = reinterpret_cast<IsInitialized>(sym("Py_IsInitialized"));
  state.addr2line = reinterpret_cast<Addr2Line>(sym("PyCode_Addr2Line"));
  state.codeType = sym("PyCode_Type");
  const void* typeType = sym("PyType_Type");
  if (!state.layout) return say(name + ": stacks are read from CPython 3.10 to 3.13", kUnsupported);
  if (!state.addr2line || !state.codeType || !typeType || !state.isInitialized)
    return say(name + ": PyCode_Addr2Line, PyCode_Type, PyType_Type or Py_IsInitialized is not exported", kUnsupported);
  // A type object's type is `type`, at offset 8 in the default build; a free-threaded build puts
  // other fields before it, and its frames are laid out otherwise too.
  if (at<const void*>(static_cast<const char*>(state.codeType), 8) != typeType)
    return say(name + ": a build whose objects are laid out otherwise (free-threaded?)", kUnsupported);
  const char* off = std::getenv("SYNCSCOPE_CAPTURE_PYTHON");
  if (off && std::strcmp(off, "0") == 0) return say(name + ": stacks switched off", kSwitchedOff);
  say(name, kReading);
  state.enabled = true;
}

void setEnabled(bool on) { state.enabled = on && state.status == kReading; }

uint32_t currentStack(ThreadLog& log) {
  // Once finalization has begun, thread states are being freed: CUDA calls from exit handlers get none.
  if (!state.enabled || !state.isInitialized()) return 0;
  const char* tstate = static_cast<const char*>(state.threadState());
  if (!tstate) return 0;
  const Layout& l = *state.layout;
  RawFrame raw[kMaxDepth];
  int depth = 0;
  bool truncated = false;
  uint64_t key = 0x51f15e;
  for (const char* f = innermostFrame(tstate); f; f = at<const char*>(f, l.framePrevious)) {
    if (l.frameOwner >= 0 && at<uint8_t>(f, l.frameOwner) == kOwnedByCStack) continue;
    if (depth == kMaxDepth) {
      truncated = true;
      break;
    }
    const char* code = at<const char*>(f, l.frameCode);
    uint64_t instr =
        l.frameObjects ? static_cast<uint64_t>(at<int32_t>(f, l.frameInstr)) : at<uint64_t>(f, l.frameInstr);
    if (!code) continue;
    raw[depth++] = {code, instr};
    // The code object's file and first line too: a freed code object's address may be reused by
    // another, whose stack must not take the old one's lines. One multiply per frame: the mix
    // spreads every input bit before the next frame's are folded in.
    const uint64_t file = at<uint64_t>(code, l.codeFilename);
    const uint64_t first = static_cast<uint64_t>(at<uint32_t>(code, l.codeFirstLine));
    key = mix(key, reinterpret_cast<uint64_t>(code) ^ (instr * 0x9e3779b97f4a7c15ULL) ^ (file << 7) ^ (first << 48));
  }
  if (depth == 0) return 0;
  key = mix(key, static_cast<uint64_t>(depth));
  const uint32_t slot = static_cast<uint32_t>(key) & (kStackCacheSlots - 1);
  if (log.stackKeys[slot] == key) return log.stackIds[slot];
  uint32_t id = internStack(raw, depth, truncated, key);
  log.stackKeys[slot] = key;
  log.stackIds[slot] = id;
  return id;
}

void appendRecords(std::vector<uint8_t>& out) {
  auto put = [&out](RecordType type, const std::vector<uint8_t>& body) {
    RecordHeader h{type, 0, static_cast<uint32_t>(body.size())};
    auto* p = reinterpret_cast<const uint8_t*>(&h);
    out.insert(out.end(), p, p + sizeof h);
    out.insert(out.end(), body.begin(), body.end());
  };
  auto u32 = [](std::vector<uint8_t>& b, uint32_t v) {
    auto* p = reinterpret_cast<const uint8_t*>(&v);
    b.insert(b.end(), p, p + 4);
  };
  Interned& t = interned();
  std::lock_guard<std::mutex> g(t.lock);
  std::vector<uint8_t> body;
  u32(body, state.status);
  u32(body, state.hexVersion);
  u32(body, t.unreadable);
  body.insert(body.end(), state.text.begin(), state.text.end());
  put(kPython, body);
  for (size_t i = 0; i < t.frames.size(); i++) {
    const auto& [file, function, line, first] = t.frames[i];
    body.clear();
    u32(body, static_cast<uint32_t>(i + 1));
    u32(body, line);
    u32(body, first);
    u32(body, static_cast<uint32_t>(file.size()));
    body.insert(body.end(), file.begin(), file.end());
    body.insert(body.end(), function.begin(), function.end());
    put(kPyFrame, body);
  }
  for (size_t i = 0; i < t.stacks.size(); i++) {
    const auto& [frames, flags] = t.stacks[i];
    body.clear();
    u32(body, static_cast<uint32_t>(i + 1));
    u32(body, flags);
    for (uint32_t f : frames) u32(body, f);
    put(kPyStack, body);
  }
}

}  // namespace py
}  // namespace capture
