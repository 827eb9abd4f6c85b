// Where the Kineto reader's bytes come from: a file read in blocks, bytes already in memory, or
// either of them gunzipped on the way. A source that fails says why in `fault`; the reader then
// declines the file, and the JavaScript reader reads it again to report the fault in its words.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace syncscope::json {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /** Up to `cap` bytes into `dst`; 0 at the end or on a fault (then `fault` is set). */
  virtual size_t read(uint8_t *dst, size_t cap) = 0;
  /** Bytes taken from the file or the memory so far (compressed bytes, for gzip). */
  virtual double taken() const = 0;
  /** About how many bytes `read` will give in all (0 when not known). */
  virtual double expected() const = 0;
  std::string fault;
};

class FileSource : public ByteSource {
 public:
  explicit FileSource(const std::string &path);
  ~FileSource() override;
  size_t read(uint8_t *dst, size_t cap) override;
  double taken() const override { return taken_; }
  double expected() const override { return size_; }

 private:
  int fd_ = -1;
  double size_ = 0;
  double taken_ = 0;
};

class MemorySource : public ByteSource {
 public:
  MemorySource(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  size_t read(uint8_t *dst, size_t cap) override;
  double taken() const override { return double(at_); }
  double expected() const override { return double(size_); }

 private:
  const uint8_t *data_;
  size_t size_;
  size_t at_ = 0;
};

/**
 * Gunzips another source. Stricter than Node's gunzip, which the JavaScript reader uses: members
 * may follow one another, but anything else after the last one (Node allows zero bytes) is a fault,
 * and so is text past `limit` bytes (a gzip bomb).
 */
class GzipSource : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> in, double limit);
  ~GzipSource() override;
  size_t read(uint8_t *dst, size_t cap) override;
  double taken() const override { return in_->taken(); }
  /** Traces compress about ten times. */
  double expected() const override { return 10 * in_->expected(); }

 private:
  bool refill();
  bool nextMember();
  std::unique_ptr<ByteSource> in_;
  double limit_;
  double out_ = 0;
  z_stream z_{};
  bool ready_ = false;
  bool ended_ = false;  // the last member ended and nothing follows
  std::vector<uint8_t> inBuf_;
};

}  // namespace syncscope::json
