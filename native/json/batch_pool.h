// Runs of events parsed on several threads. Parsing (simdjson's DOM, then the fields of each event)
// is most of a read's cost and needs nothing but the run's text, so the reader hands runs to a pool
// of threads, parses queued runs itself while it waits, and appends their rows in file order, so
// that the result does not depend on which thread finished first.
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

/** One run of events: where its text is, and once parsed, the rows of its events or why it has none. */
struct Batch {
  enum class Outcome { Pending, Parsed, NotEvents, Declined };

  /**
   * The run's text, in the reader's buffer, which stays in place and unchanged until the run is
   * parsed; and where it begins there.
   */
  const char *run = nullptr;
  size_t runLength = 0, start = 0;
  /** `[` + the run's text + `]`, with simdjson's padding after it: made by the thread that parses it. */
  std::vector<char> text;
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
   * `helpers` threads besides the one that waits; each parses with a parser of its own, made for
   * batches of up to `batchBytes`: parsers reused by one thread stay in its cache, and a parser per
   * batch would not.
   */
  BatchPool(unsigned helpers, size_t batchBytes, Parse parse);
  ~BatchPool();
  BatchPool(const BatchPool &) = delete;
  BatchPool &operator=(const BatchPool &) = delete;

  void submit(Batch *b);
  /** Until `b` is parsed, parses the batches queued before it with `parser`, then waits for the rest. */
  void wait(Batch *b, simdjson::dom::parser &parser);

 private:
  void work();
  /** Parses `b` and publishes its outcome; called without the lock. */
  void parse(Batch *b, simdjson::dom::parser &parser);
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
 * Threads that parse: one per core, at most 16 (a read's serial part bounds what more would give),
 * or as many as SYNCSCOPE_PARSE_THREADS says; the reading thread is one of them.
 */
unsigned parseThreads();

}  // namespace syncscope::json
