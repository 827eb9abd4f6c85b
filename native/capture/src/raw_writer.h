// Writes everything captured so far as one raw stream. Each write is whole: it goes to a
// temporary file renamed over the target, so a reader never sees half a file.
#pragma once
#include <cstdint>
#include <string>

namespace capture {

struct WriteInfo {
  uint64_t startTimestamp;
  uint32_t cuptiApiVersion;
  int32_t cudaDriverVersion;
};

/** Returns an empty string on success, else what failed. */
std::string writeRaw(const std::string& path, const WriteInfo& info);

}  // namespace capture
