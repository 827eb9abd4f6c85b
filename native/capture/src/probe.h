// Measurement switches, only in the capture benchmark's build of the library
// (SYNCSCOPE_CAPTURE_MEASURE=ON, build/Release/libsyncscope_capture_measure.so): a run with parts
// switched off records less than the program did, so the shipped library has none of them.
//
// SYNCSCOPE_CAPTURE_PROBE leaves parts of the capture out (a comma-separated list), only to
// measure what each part costs (bench/capture.bench.ts). Read once, at injection.
#pragma once
#include <cstdlib>
#include <cstring>

namespace capture {

#ifdef SYNCSCOPE_CAPTURE_MEASURE
inline bool probe(const char* part) {
  static const char* list = std::getenv("SYNCSCOPE_CAPTURE_PROBE");
  if (!list) return false;
  const size_t n = std::strlen(part);
  for (const char* p = list; (p = std::strstr(p, part)) != nullptr; p += n) {
    const bool starts = p == list || p[-1] == ',';
    const bool ends = p[n] == '\0' || p[n] == ',';
    if (starts && ends) return true;
  }
  return false;
}
#else
constexpr bool probe(const char*) { return false; }
#endif

}  // namespace capture
