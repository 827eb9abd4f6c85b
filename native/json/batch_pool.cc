#include "batch_pool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace syncscope::json {

namespace dom = simdjson::dom;

namespace {

/** The batch's text as one array: the run between brackets, and the padding simdjson reads past it. */
void bracket(Batch &b) {
  size_t length = b.runLength + 2;
  b.text.resize(length + simdjson::SIMDJSON_PADDING);
  b.text[0] = '[';
  std::memcpy(b.text.data() + 1, b.run, b.runLength);
  b.text[length - 1] = ']';
  std::memset(b.text.data() + length, ' ', simdjson::SIMDJSON_PADDING);
}

}  // namespace

Batch::Outcome parseBatch(Batch &b, dom::parser &parser, const Vocabulary &vocabulary,
                          const std::unordered_map<std::string_view, int> &categories) {
  bracket(b);
  size_t length = b.runLength + 2;
  // simdjson reads an integer written -0 as 0, JSON.parse as -0: such a file is the JavaScript reader's.
  if (hasMinusZeroInteger(b.text.data(), length)) {
    b.declined = "an integer written -0";
    return Batch::Outcome::Declined;
  }
  dom::element doc;
  dom::array list;
  if (parser.parse(b.text.data(), length, false).get(doc) || doc.get_array().get(list))
    return Batch::Outcome::NotEvents;
  for (dom::element e : list)
    if (e.type() != dom::element_type::OBJECT) return Batch::Outcome::NotEvents;
  try {
    if (b.staged) b.staged->clear();
    else b.staged = std::make_unique<Staged>();
    EventStager stager(*b.staged, vocabulary, categories);
    for (dom::element e : list) {
      Event event;
      eventOf(dom::object(e), event);
      stager.onEvent(event);
    }
  } catch (const Decline &d) {
    b.declined = d.why;
    return Batch::Outcome::Declined;
  } catch (const std::bad_alloc &) {
    b.declined = "out of memory";
    return Batch::Outcome::Declined;
  }
  return Batch::Outcome::Parsed;
}

BatchPool::BatchPool(unsigned helpers, size_t batchBytes, Parse parse)
    : batchBytes_(batchBytes), parse_(std::move(parse)) {
  try {
    for (unsigned i = 0; i < helpers; i++) threads_.emplace_back([this] { work(); });
  } catch (...) {
    stop();  // a thread the system would not start: those started end before the error goes on
    throw;
  }
}

BatchPool::~BatchPool() { stop(); }

void BatchPool::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_all();
  for (std::thread &t : threads_) t.join();
}

void BatchPool::submit(Batch *b) {
  b->outcome = Batch::Outcome::Pending;
  b->declined.clear();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(b);
  }
  queued_.notify_one();
}

void BatchPool::wait(Batch *b, dom::parser &parser) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (b->outcome == Batch::Outcome::Pending) {
    if (queue_.empty()) {
      finished_.wait(lock);
      continue;
    }
    // The waiting thread is one of the parsers: it takes the oldest queued batch, `b` or one before it.
    Batch *next = queue_.front();
    queue_.pop_front();
    lock.unlock();
    parse(next, parser);
    lock.lock();
  }
}

void BatchPool::parse(Batch *b, dom::parser &parser) {
  Batch::Outcome outcome;
  try {
    outcome = parse_(*b, parser);
  } catch (...) {
    // Nothing may leave a thread: the file is left to the JavaScript reader.
    b->declined = "a fault while parsing";
    outcome = Batch::Outcome::Declined;
  }
  // The outcome is published under the lock, so that wait() sees the rows with it.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    b->outcome = outcome;
  }
  finished_.notify_all();
}

void BatchPool::work() {
  dom::parser parser(batchBytes_);
  // Its memory up front. Where that fails, each parse tries again, and a batch it fails is read
  // event by event.
  simdjson::error_code allocated = parser.allocate(batchBytes_);
  (void)allocated;
  for (;;) {
    Batch *b;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      queued_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      // Batches still queued when the pool stops are of a read that ended: nobody reads them.
      if (stopping_) return;
      b = queue_.front();
      queue_.pop_front();
    }
    parse(b, parser);
  }
}

unsigned parseThreads() {
  unsigned threads = std::thread::hardware_concurrency();
  // SYNCSCOPE_PARSE_THREADS sets it (1 to 16): benchmarks compare one thread with many.
  if (const char *asked = std::getenv("SYNCSCOPE_PARSE_THREADS")) threads = unsigned(std::strtoul(asked, nullptr, 10));
  return std::clamp(threads, 1u, 16u);
}

}  // namespace syncscope::json
