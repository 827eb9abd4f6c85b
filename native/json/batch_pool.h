// Runs of events parsed on worker threads. Parsing (simdjson's DOM, then the fields of each event)
// is most of a read's cost and needs nothing but the run's text, so the reader hands runs to a pool
// of threads and stages their events itself, in file order, so that the result does not depend on
// which thread finished first.
#pragma once

#include <simdjson.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "event_stager.h"

namespace syncscope::json {

/** One run of events: its text as an array, and once parsed, the rows of its events or why it has none. */
struct Batch {
  enum class Outcome { Pending, Parsed, NotEvents, Declined };

  /** `[` + the run's text + `]`, with simdjson's padding after it. */
  void setText(const char *run, size_t len);

  /** Where the run's first event begins in the reader's buffer. */
  size_t start = 0;
  std::vector<char> text;
  size_t textLength = 0;
  /** Parsed: the rows of its events, with strings and lanes of its own (EventStager::append). */
  std::unique_ptr<Staged> staged;
  Outcome outcome = Outcome::Pending;
  /** Declined: why. NotEvents: the text is not an array of objects (the run's end was guessed wrong). */
  std::string declined;
};

/** Parses a batch's text with `parser` and stages its events; the caller publishes the outcome. */
Batch::Outcome parseBatch(Batch &b, simdjson::dom::parser &parser, const Vocabulary &vocabulary,
                          const std::unordered_map<std::string_view, int> &categories);

class BatchPool {
 public:
  using Parse = std::function<Batch::Outcome(Batch &, simdjson::dom::parser &)>;
  /**
   * Each thread parses with a parser of its own, made for batches of up to `batchBytes`: parsers
   * reused by one thread stay in its cache, and a parser per batch would not.
   */
  BatchPool(unsigned threads, size_t batchBytes, Parse parse);
  ~BatchPool();
  BatchPool(const BatchPool &) = delete;
  BatchPool &operator=(const BatchPool &) = delete;

  unsigned threads() const { return unsigned(threads_.size()); }
  void submit(Batch *b);
  /** Blocks until `b` is parsed. */
  void wait(const Batch *b);

 private:
  void work();
  /** Stops the threads once each has finished the batch it parses; batches still queued are not parsed. */
  void stop();

  size_t batchBytes_;
  Parse parse_;
  std::mutex mutex_;
  std::condition_variable queued_, finished_;
  std::deque<Batch *> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

/**
 * Threads for parsing: one per core, at most 16 (a read's serial part bounds what more would give),
 * or as many as SYNCSCOPE_PARSE_THREADS says.
 */
unsigned parseThreads();

}  // namespace syncscope::json
