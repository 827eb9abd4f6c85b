#include "byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace syncscope::json {

namespace {
constexpr size_t kCompressedBlock = 1 << 20;
}

FileSource::FileSource(const std::string &path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    fault = std::string("cannot open the file: ") + std::strerror(errno);
    return;
  }
  struct stat st;
  if (::fstat(fd_, &st) == 0) size_ = double(st.st_size);
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
}

FileSource::~FileSource() {
  if (fd_ >= 0) ::close(fd_);
}

size_t FileSource::read(uint8_t *dst, size_t cap) {
  if (fd_ < 0) return 0;
  size_t got = 0;
  while (got < cap) {
    ssize_t n = ::read(fd_, dst + got, cap - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      fault = std::string("cannot read the file: ") + std::strerror(errno);
      return 0;
    }
    if (n == 0) break;
    got += size_t(n);
  }
  taken_ += double(got);
  return got;
}

size_t MemorySource::read(uint8_t *dst, size_t cap) {
  size_t n = std::min(cap, size_ - at_);
  std::memcpy(dst, data_ + at_, n);
  at_ += n;
  return n;
}

GzipSource::GzipSource(std::unique_ptr<ByteSource> in, double limit)
    : in_(std::move(in)), limit_(limit), inBuf_(kCompressedBlock) {
  if (!in_->fault.empty()) {
    fault = in_->fault;
    return;
  }
  // 16 + MAX_WBITS: a gzip header and trailer, as Node's gunzip expects.
  if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) {
    fault = "zlib could not start";
    return;
  }
  ready_ = true;
}

GzipSource::~GzipSource() {
  if (ready_) inflateEnd(&z_);
}

bool GzipSource::refill() {
  size_t n = in_->read(inBuf_.data(), inBuf_.size());
  if (!in_->fault.empty()) fault = in_->fault;
  z_.next_in = inBuf_.data();
  z_.avail_in = unsigned(n);
  return n > 0;
}

/** After a member's end: another member begins, or the input ends; anything else is a fault. */
bool GzipSource::nextMember() {
  if (z_.avail_in == 0 && !refill()) {
    ended_ = fault.empty();
    return false;
  }
  if (z_.next_in[0] != 0x1f || (z_.avail_in > 1 && z_.next_in[1] != 0x8b)) {
    fault = "bytes after the gzip stream";
    return false;
  }
  if (inflateReset(&z_) != Z_OK) {
    fault = "zlib could not start the next member";
    return false;
  }
  return true;
}

size_t GzipSource::read(uint8_t *dst, size_t cap) {
  if (!ready_ || ended_ || !fault.empty()) return 0;
  z_.next_out = dst;
  z_.avail_out = unsigned(cap);
  while (z_.avail_out > 0) {
    if (z_.avail_in == 0 && !refill()) {
      if (fault.empty()) fault = "the gzip stream is cut short";
      return 0;
    }
    int r = inflate(&z_, Z_NO_FLUSH);
    if (r == Z_STREAM_END) {
      if (!nextMember()) break;
      continue;
    }
    if (r != Z_OK && r != Z_BUF_ERROR) {
      fault = std::string("not a valid gzip stream: ") + (z_.msg ? z_.msg : "zlib error");
      return 0;
    }
  }
  if (!fault.empty()) return 0;
  size_t n = cap - z_.avail_out;
  out_ += double(n);
  if (out_ > limit_) {
    fault = "decompressed size over the limit";
    return 0;
  }
  return n;
}

}  // namespace syncscope::json
