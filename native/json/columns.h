// What the Kineto reader stages: the rows of a PyTorch profiler trace as columns, the strings they
// name, the lanes, syncs and markers, exactly as core/import/pytorch.ts stages them (its Staging
// class), so that one JavaScript build turns either reader's rows into the same Trace.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace syncscope::json {

// A growable column of plain values in one malloc'd block. realloc moves large blocks by remapping
// their pages, so growing never holds two copies, and `release` hands the block to JavaScript as
// an external ArrayBuffer (freed with std::free).
template <class T>
class Column {
 public:
  Column() = default;
  Column(const Column &) = delete;
  Column &operator=(const Column &) = delete;
  ~Column() { std::free(data_); }

  void push(T v) {
    if (size_ == capacity_) grow();
    data_[size_++] = v;
  }
  /** Appends `n` rows. */
  void append(const T *rows, size_t n) {
    if (!n) return;
    while (size_ + n > capacity_) grow();
    std::memcpy(data_ + size_, rows, n * sizeof(T));
    size_ += n;
  }
  /** Appends table[rows[i]] for each of `n` rows: ids of another table as this one's. */
  template <class Id, class Table>
  void appendMapped(const Id *rows, size_t n, const Table &table) {
    if (!n) return;
    while (size_ + n > capacity_) grow();
    for (size_t i = 0; i < n; i++) data_[size_ + i] = T(table[size_t(rows[i])]);
    size_ += n;
  }
  size_t size() const { return size_; }
  /** No rows, with the room kept. */
  void clear() { size_ = 0; }
  T operator[](size_t i) const { return data_[i]; }
  void set(size_t i, T v) { data_[i] = v; }
  const T *data() const { return data_; }
  /** Room for `n` rows, so that the column need not grow (and copy) until it has more; none where memory says no. */
  void reserve(size_t n) {
    if (n <= capacity_) return;
    void *d = std::realloc(data_, n * sizeof(T));
    if (!d) return;
    data_ = static_cast<T *>(d);
    capacity_ = n;
  }
  /** Puts the rows in `order`: row i becomes the row that was order[i]; no order leaves them as they are. */
  void permute(const std::vector<uint32_t> &order) {
    if (!size_ || order.empty()) return;
    T *next = static_cast<T *>(std::malloc(size_ * sizeof(T)));
    if (!next) throw std::bad_alloc();
    for (size_t i = 0; i < size_; i++) next[i] = data_[order[i]];
    std::free(data_);
    data_ = next;
    capacity_ = size_;
  }
  /** The block, trimmed to size; the column is empty afterwards. */
  T *release() {
    T *d = data_;
    if (d && size_ < capacity_) {
      void *trimmed = std::realloc(d, size_ ? size_ * sizeof(T) : sizeof(T));
      if (trimmed) d = static_cast<T *>(trimmed);
    }
    data_ = nullptr;
    size_ = capacity_ = 0;
    return d;
  }

 private:
  void grow() {
    size_t next = capacity_ ? capacity_ * 2 : 4096;
    void *d = std::realloc(data_, next * sizeof(T));
    if (!d) throw std::bad_alloc();
    data_ = static_cast<T *>(d);
    capacity_ = next;
  }
  T *data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Interns strings: index 0 is always "". Each string is stored once; the index maps views of the
// stored copies, which never move (a deque keeps its elements in place).
class StringTable {
 public:
  StringTable() { id(std::string_view()); }
  int32_t id(std::string_view s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    const std::string &kept = list_.emplace_back(s);
    int32_t i = int32_t(list_.size() - 1);
    ids_.emplace(std::string_view(kept), i);
    return i;
  }
  const std::deque<std::string> &list() const { return list_; }
  /** Only "" again. */
  void clear() {
    ids_.clear();
    list_.clear();
    id(std::string_view());
  }
  /** The id of `s`, or -1 when it is not in the table. */
  int32_t find(std::string_view s) const {
    auto it = ids_.find(s);
    return it == ids_.end() ? -1 : it->second;
  }

 private:
  std::deque<std::string> list_;
  std::unordered_map<std::string_view, int32_t> ids_;
};

/** HOST_ROWS.context in pytorch.ts. */
enum HostContext : uint8_t { kApi = 0, kContext = 1, kPython = 2 };
/** The op kinds the reader tells apart; JavaScript maps them to the trace's kinds. */
enum GpuKind : uint8_t { kKernel = 0, kMemcpy = 1, kMemset = 2 };

struct Staged {
  StringTable strings;
  struct Host {
    Column<uint32_t> lane;
    Column<uint8_t> context;
    Column<double> begin, end;
    Column<int32_t> name;
    Column<double> corr;
  } host;
  struct Gpu {
    Column<uint32_t> lane;
    Column<uint8_t> kind;
    Column<double> begin, end;
    Column<int32_t> name;
    Column<double> corr;
    Column<uint32_t> grid, block;
    Column<double> bytes;
  } gpu;
  /** Lanes in the order they were first seen: threads by (pid, tid), streams by (device, stream). */
  struct Lanes {
    Column<uint8_t> thread;
    Column<double> a, b;
  } lanes;
  /** thread_name metadata, in file order (the last one of a thread wins). */
  struct ThreadNames {
    Column<double> pid, tid;
    std::vector<std::string> name;
  } threadNames;
  /** cuda_sync events with a correlation id, in file order; kind indexes syncKinds. */
  struct Syncs {
    Column<double> corr, stream, device, event, recordCorr, waitOnStream;
    Column<int32_t> kind;
  } syncs;
  StringTable syncKinds;
  /** Call-site markers: not calls. */
  struct Markers {
    Column<uint32_t> lane;
    Column<double> time;
    Column<int32_t> name;
    Column<uint8_t> after;
  } markers;
  /** Events of categories nobody knows, by category, in the order first seen. */
  std::vector<std::pair<std::string, double>> unknown;
  double malformed = 0;
  double noDuration = 0;
  double events = 0;
  /** The text around the events array (the array itself left empty); empty for a bare array. */
  std::string root;
  /** By name id: 1 if an API call has the name, 2 if a Python frame has it (both: 3). */
  std::vector<uint8_t> nameUse;

  /** Nothing staged, with the room kept: a batch's rows, for the next batch. */
  void clear();
};

/**
 * Puts the calls and the ops in the order in which pytorch.ts's build reads them (sortedRows there):
 * calls by begin, an enclosing op before what it encloses (contexts first, then the longer), ops by
 * start; ties keep the file's order. The build's own sort then finds one sorted run.
 */
void timeOrder(Staged &s);

}  // namespace syncscope::json
