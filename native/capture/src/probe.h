// SYNCSCOPE_CAPTURE_PROBE leaves parts of the capture out (a comma-separated list), only to
// measure what each part costs (bench/capture.bench.ts). Read once, at injection.
#pragma once
#include <cstdlib>
#include <cstring>
#include <atomic>

namespace capture {

// EXPERIMENT: parts of the callback's work switched at run time (syncscope_capture_enable's bits 8 and up).
enum : int { kVarEmpty = 1, kVarNoTs = 2, kVarPrefault = 4, kVarNoRecord = 8 };
extern std::atomic<int> variant;

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

}  // namespace capture
