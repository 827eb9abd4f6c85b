// The capture library's Python stack reader (python_stack.cc) without CUDA: a Python program loads
// this library with ctypes and reads its own stacks through it, as a CUDA call's callback would.
// test/runner/python-stack.test.ts runs test/runner/python-stack/probe.py with every CPython the
// machine has and decodes the records with core/import/capture-raw.ts.
#include <cstring>
#include <vector>

#include "python_stack.h"
#include "thread_log.h"

extern "C" {

__attribute__((visibility("default"))) void syncscope_stack_init(void) { capture::py::init(); }

/** The calling thread's stack id, as a callback stores it in its call's record. */
__attribute__((visibility("default"))) unsigned syncscope_stack_read(void) {
  return capture::py::currentStack(capture::threadLog());
}

__attribute__((visibility("default"))) void syncscope_stack_switch(int on) { capture::py::setEnabled(on != 0); }

/** Copies the kPython, kPyFrame and kPyStack records into `out` where they fit; returns their length. */
__attribute__((visibility("default"))) long syncscope_stack_records(unsigned char* out, long room) {
  std::vector<uint8_t> records;
  capture::py::appendRecords(records);
  if (static_cast<long>(records.size()) <= room) std::memcpy(out, records.data(), records.size());
  return static_cast<long>(records.size());
}
}
