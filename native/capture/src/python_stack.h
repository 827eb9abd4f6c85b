// The calling thread's Python stack, read at a CUDA call without running Python and without the
// GIL. torch releases the GIL around most CUDA calls, so taking it in a callback could deadlock;
// instead the reader follows the thread's own frame chain, which cannot change while that thread
// is inside the call, and touches no reference count. Stacks are interned as (file, line,
// function) frames, so a call costs one stack id.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace capture {

struct ThreadLog;

namespace py {

/** What the reader made of the process, for the raw stream's kPython record. */
enum Status : uint32_t {
  kNotPython = 0,    // no CPython in the process
  kReading = 1,      // a supported CPython: calls carry stacks
  kUnsupported = 2,  // CPython of a version or build whose layout the reader does not know
  kSwitchedOff = 3,  // SYNCSCOPE_CAPTURE_PYTHON=0
};

/** Finds the interpreter and picks its layout; call once, before any callback. */
void init();

/** The calling thread's stack id (1, 2, ...), or 0 where it runs no Python or stacks are off. */
uint32_t currentStack(ThreadLog& log);

/** Stacks on or off, for the capture benchmark's switch: off costs one branch per call. */
void setEnabled(bool on);

/** Appends the kPython record, then every interned frame and stack, as raw records. */
void appendRecords(std::vector<uint8_t>& out);

}  // namespace py
}  // namespace capture
