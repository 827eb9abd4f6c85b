#include "kineto_reader.h"

#include <simdjson.h>

#include "batch_pool.h"
#include "event_fields.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

namespace syncscope::json {

namespace {

namespace dom = simdjson::dom;

/** MAX_EVENT_BYTES in core/import/scan.ts: the largest event, and the largest text around the events. */
constexpr size_t kMaxEventBytes = size_t(64) << 20;
/**
 * Bytes read from the source at once, and the buffer's size unless one event needs more: at least
 * this, and one batch for each parsing thread.
 */
constexpr size_t kBlock = size_t(4) << 20;
/** Events parsed as one document: small enough that simdjson's index of it stays in cache. */
constexpr size_t kBatch = size_t(256) << 10;
/**
 * The largest text parsed at once: simdjson's DOM parser holds several bytes of index and tape
 * per byte of it. Larger events (real ones are a few hundred bytes) are left to the JavaScript reader.
 */
constexpr size_t kMaxParsed = size_t(16) << 20;
constexpr size_t kPad = simdjson::SIMDJSON_PADDING;
/**
 * A batch parsed on a thread was no run of events (its end was guessed wrong): the reader reads
 * again from its first event, one event at a time.
 */
struct Rewind {
  size_t at;
};

bool isSpace(uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

enum class Mode { Start, Root, Between, Event, Done };

class Reader {
 public:
  Reader(ByteSource &source, const ReadControl &control, const Vocabulary &vocabulary)
      : source_(source), control_(control), vocabulary_(vocabulary), staged_(new Staged()) {
    for (const auto &[name, cat] : vocabulary.categories) categories_.emplace(name, cat);
    stager_ = std::make_unique<EventStager>(*staged_, vocabulary_, categories_);
  }
  // The pool's threads read the buffer: they stop before it is freed.
  ~Reader() {
    pool_.reset();
    std::free(mem_);
  }

  ReadResult run() {
    ReadResult result;
    try {
      readAll();
      if (cancelled_) {
        result.cancelled = true;
        return result;
      }
      result.staged = std::move(staged_);
    } catch (const Decline &d) {
      result.declined = d.why;
    } catch (const std::bad_alloc &) {
      // The JavaScript reader checks what the process may still allocate, and says so in its words.
      result.declined = "out of memory";
    }
    return result;
  }

 private:
  uint8_t *data() { return mem_; }

  void readAll() {
    // A small file is one batch or a few: threads it would not use are not started.
    threads_ = unsigned(std::min<double>(parseThreads(), 1 + source_.expected() / kBatch));
    reserve(std::max(kBlock, threads_ * kBatch));
    reserveRows(source_.expected());
    for (;;) {
      if (control_.cancelled()) {
        cancelled_ = true;
        return;
      }
      compact();
      if (end_ == cap_) reserve(cap_ * 2);  // one event fills the buffer
      size_t n = source_.read(data() + end_, cap_ - end_);
      if (!source_.fault.empty()) decline(source_.fault);
      control_.progress(source_.taken());
      end_ += n;
      consume(n == 0);
      if (n == 0) break;
    }
    finish();
  }

  /**
   * Room for the rows a source of this size may hold (events are rarely under 128 bytes), so that
   * the columns grow without copying; room never written to costs no memory.
   */
  void reserveRows(double bytes) {
    size_t rows = size_t(std::min(bytes, 4e9) / 128);
    Staged::Host &h = staged_->host;
    Staged::Gpu &g = staged_->gpu;
    for (auto *c : {&h.begin, &h.end, &h.corr, &g.begin, &g.end, &g.corr, &g.bytes}) c->reserve(rows);
    for (auto *c : {&h.lane, &g.lane, &g.grid, &g.block}) c->reserve(rows);
    for (auto *c : {&h.context, &g.kind}) c->reserve(rows);
    h.name.reserve(rows);
    g.name.reserve(rows);
  }

  void reserve(size_t cap) {
    void *m = std::realloc(mem_, cap + kPad);
    if (!m) decline("out of memory for a block of the file");
    mem_ = static_cast<uint8_t *>(m);
    std::memset(mem_ + cap, ' ', kPad);
    cap_ = cap;
  }

  /** Moves what is not consumed yet (an event begun in this block) to the front of the buffer. */
  void compact() {
    if (begin_ == 0) return;
    std::memmove(data(), data() + begin_, end_ - begin_);
    end_ -= begin_;
    if (mode_ == Mode::Event) {
      eventStart_ -= begin_;
      scanAt_ -= begin_;
    }
    exactUntil_ = 0;
    begin_ = 0;
  }

  /**
   * Reads the buffer from where it was left. Batches found in it are parsed on threads, from the
   * buffer itself, while it is read, and their rows appended before it returns: the buffer is
   * neither moved nor written while they parse, and a batch that was no run of events is read
   * again from it.
   */
  void consume(bool atEnd) {
    size_t i = begin_;
    for (;;) {
      try {
        scan(i);
        settle();
        if (atEnd && mode_ == Mode::Event) decline("the file ends inside an event");
        break;
      } catch (const Rewind &r) {
        i = r.at;
        mode_ = Mode::Between;
        needComma_ = false;
        exactUntil_ = end_;
      }
    }
    begin_ = mode_ == Mode::Event ? eventStart_ : end_;
  }

  void scan(size_t i) {
    const uint8_t *b = data();
    while (i < end_) {
      if (mode_ == Mode::Event) {
        i = scanEvent();
        if (mode_ == Mode::Event) break;
        continue;
      }
      uint8_t c = b[i];
      switch (mode_) {
        case Mode::Between:
          i = between(i, c);
          break;
        case Mode::Root:
          root(c);
          i++;
          break;
        case Mode::Start:
          start(c);
          i++;
          break;
        default:  // Done
          if (!isSpace(c)) decline("text after the end of the trace");
          i++;
      }
    }
  }

  /**
   * Stages the events of the batches sent so far, in file order. A batch that declines the file
   * declines it only once the batches before it are staged, as reading them in order would.
   */
  void settle() {
    while (!pending_.empty()) {
      Batch &b = *pending_.front();
      pool_->wait(&b, dom_);
      if (b.outcome != Batch::Outcome::Parsed) {
        Rewind rewind{b.start};
        std::string why = b.outcome == Batch::Outcome::Declined ? b.declined : std::string();
        dropPending();
        if (!why.empty()) decline(why);
        throw rewind;
      }
      stager_->append(*b.staged);
      spare_.push_back(std::move(pending_.front()));
      pending_.pop_front();
    }
  }

  /** Waits for the batches sent and keeps them for later ones; their events are not staged. */
  void dropPending() {
    for (auto &b : pending_) {
      pool_->wait(b.get(), dom_);
      spare_.push_back(std::move(b));
    }
    pending_.clear();
  }

  /** Sends the events at b[start, next) to be parsed, as a batch that `pending_` holds. */
  void sendBatch(size_t start, size_t next) {
    if (!pool_)
      pool_ = std::make_unique<BatchPool>(threads_ - 1, kBatch + 2, [this](Batch &b, dom::parser &parser) {
        return parseBatch(b, parser, vocabulary_, categories_);
      });
    std::unique_ptr<Batch> b;
    if (spare_.empty()) {
      b = std::make_unique<Batch>();
    } else {
      b = std::move(spare_.back());
      spare_.pop_back();
    }
    b->run = reinterpret_cast<const char *>(data() + start);
    b->runLength = next - start;
    b->start = start;
    pool_->submit(b.get());
    pending_.push_back(std::move(b));
  }

  void finish() {
    if (mode_ == Mode::Start) decline("the file is empty");
    if (mode_ != Mode::Done) decline("the file ends inside the trace");
    if (!sawEvents_) decline("no traceEvents array");
    timeOrder(*staged_);
  }

  void start(uint8_t c) {
    if (isSpace(c) || c == 0xef || c == 0xbb || c == 0xbf) return;  // a UTF-8 byte order mark, as scan.ts skips it
    if (c == '[') {
      // A bare array of events: its root is {}.
      mode_ = Mode::Between;
      depth_ = 1;
      sawEvents_ = true;
      eventsAtOpen_ = staged_->events;
      return;
    }
    if (c != '{') decline("not a JSON trace");
    mode_ = Mode::Root;
    depth_ = 1;
    keepRoot(c);
  }

  void keepRoot(uint8_t c) {
    if (staged_->root.size() >= kMaxEventBytes) decline("the text around the events is over the limit");
    staged_->root.push_back(char(c));
  }

  /** The text around the events array, byte by byte, finding the array as scan.ts does. */
  void root(uint8_t c) {
    keepRoot(c);
    if (inString_) {
      if (escaped_) escaped_ = false;
      else if (c == '\\') escaped_ = true;
      else if (c == '"') {
        inString_ = false;
        if (depth_ == 1) keyState_ = keyValid_ && key_ == "traceEvents" ? 1 : 0;
        return;
      }
      // Keys are plain ASCII: an escape or a long string is none of them.
      if (keyValid_) {
        if (c == '\\' || key_.size() > 64) keyValid_ = false;
        else key_.push_back(char(c));
      }
      return;
    }
    if (isSpace(c)) return;
    if (c == '"') {
      inString_ = true;
      keyValid_ = depth_ == 1;
      key_.clear();
      return;
    }
    if (depth_ == 1 && c == ':' && keyState_ == 1) {
      keyState_ = 2;
      return;
    }
    if (c == '[' && depth_ == 1 && keyState_ == 2) {
      if (sawEvents_) decline("a second traceEvents array");
      sawEvents_ = true;
      mode_ = Mode::Between;
      depth_ = 2;
      needComma_ = false;
      keyState_ = 0;
      eventsAtOpen_ = staged_->events;
      return;
    }
    keyState_ = 0;
    if (c == '{' || c == '[') depth_++;
    else if ((c == '}' || c == ']') && --depth_ == 0) mode_ = Mode::Done;
  }

  /** In the events array, between events. Returns the index of the next byte to read. */
  size_t between(size_t i, uint8_t c) {
    if (isSpace(c)) return i + 1;
    if (c == '{' && !needComma_) {
      if (i >= exactUntil_) {
        size_t next = batch(i);
        if (next) return next;
      }
      mode_ = Mode::Event;
      eventStart_ = scanAt_ = i;
      eventDepth_ = 0;
      eventString_ = eventEscaped_ = false;
      return i;
    }
    if (c == ',' && needComma_) {
      needComma_ = false;
      return i + 1;
    }
    if (c == ']' && (needComma_ || staged_->events == eventsAtOpen_)) {
      settle();  // the text after the events is kept only once they are all staged
      depth_--;
      mode_ = depth_ == 0 ? Mode::Done : Mode::Root;
      if (mode_ == Mode::Root) keepRoot(c);
      return i + 1;
    }
    settle();
    decline("unexpected text in the events array");
  }

  /**
   * The last `}` in b[from, to) that is followed by `,{` or `]` (white space allowed between), as an
   * event's end is; 0 if none of the last few is. Only a successful parse proves the guess.
   */
  size_t guessEnd(size_t from, size_t to) {
    const uint8_t *b = data();
    size_t e = to;
    for (int tries = 0; tries < 64; tries++) {
      const void *p = memrchr(b + from, '}', e - from);
      if (!p) return 0;
      e = size_t(static_cast<const uint8_t *>(p) - b);
      if (e <= from) return 0;
      size_t j = e + 1;
      while (j < end_ && isSpace(b[j])) j++;
      if (j >= end_) continue;
      if (b[j] == ']') return e;
      if (b[j] != ',') continue;
      j++;
      while (j < end_ && isSpace(b[j])) j++;
      if (j < end_ && b[j] == '{') return e;
    }
    return 0;
  }

  /**
   * The fast path: the events from b[i] to a guessed event end, sent to be parsed as one array.
   * `[` + text from an event's `{` + `]` is valid JSON only when the text ends where an event ends,
   * so a successful parse proves the guess; the reader goes on as if it will succeed, and reads
   * again from b[i] if it does not (Rewind). Returns the index after the last event, or 0 when the
   * events must be read one by one.
   */
  size_t batch(size_t i) {
    size_t cut = guessEnd(i, std::min(end_, i + kBatch));
    if (!cut) return 0;
    sendBatch(i, cut + 1);
    needComma_ = true;
    return cut + 1;
  }

  /**
   * Parses one event's text. simdjson's DOM parser checks all of it, as JSON.parse would, before
   * the reader takes anything from it.
   */
  bool parsed(const char *text, size_t len, dom::element &doc) {
    if (hasMinusZeroInteger(text, len)) decline("an integer written -0");
    return !dom_.parse(text, len, false).get(doc);
  }

  /** Mode::Event: an event read byte by byte, until its `}`. Returns the index after what it read. */
  size_t scanEvent() {
    const uint8_t *b = data();
    size_t j = scanAt_;
    int d = eventDepth_;
    bool inStr = eventString_, esc = eventEscaped_;
    for (; j < end_; j++) {
      uint8_t c = b[j];
      if (inStr) {
        if (esc) esc = false;
        else if (c == '\\') esc = true;
        else if (c == '"') inStr = false;
      } else if (c == '"') inStr = true;
      else if (c == '{' || c == '[') d++;
      else if ((c == '}' || c == ']') && --d == 0) break;
    }
    if (j - eventStart_ >= kMaxEventBytes) {
      settle();
      decline("an event over the limit");
    }
    if (j == end_) {
      scanAt_ = j;
      eventDepth_ = d;
      eventString_ = inStr;
      eventEscaped_ = esc;
      return j;
    }
    parseOne(eventStart_, j + 1);
    mode_ = Mode::Between;
    needComma_ = true;
    return j + 1;
  }

  void parseOne(size_t from, size_t to) {
    settle();
    if (to - from > kMaxParsed) decline("an event larger than the reader parses at once");
    dom::element doc;
    if (!parsed(reinterpret_cast<const char *>(data() + from), to - from, doc) ||
        doc.type() != dom::element_type::OBJECT)
      decline("a malformed trace event");
    Event event;
    eventOf(dom::object(doc), event);
    stager_->onEvent(event);
  }

  ByteSource &source_;
  const ReadControl &control_;
  const Vocabulary &vocabulary_;
  std::unique_ptr<Staged> staged_;
  /** The reading thread's parser: for events read one by one, and for the batches it parses while it waits. */
  dom::parser dom_{kMaxParsed};

  uint8_t *mem_ = nullptr;
  size_t cap_ = 0;
  size_t begin_ = 0, end_ = 0;
  /** In this block, events before here that a batch could not read are read one by one. */
  size_t exactUntil_ = 0;
  bool cancelled_ = false;

  Mode mode_ = Mode::Start;
  int depth_ = 0;
  bool sawEvents_ = false;
  bool needComma_ = false;
  double eventsAtOpen_ = 0;
  bool inString_ = false, escaped_ = false;
  bool keyValid_ = false;
  std::string key_;
  int keyState_ = 0;  // 1: read "traceEvents" at the root; 2: and its ':'

  size_t eventStart_ = 0, scanAt_ = 0;
  int eventDepth_ = 0;
  bool eventString_ = false, eventEscaped_ = false;

  std::unordered_map<std::string_view, int> categories_;
  std::unique_ptr<EventStager> stager_;

  unsigned threads_ = 1;
  /** Batches sent and not staged yet, in file order; batches kept for reuse (each holds a parser). */
  std::deque<std::unique_ptr<Batch>> pending_;
  std::vector<std::unique_ptr<Batch>> spare_;
  /** Declared last, so that its threads stop before the batches they parse are freed. */
  std::unique_ptr<BatchPool> pool_;
};

}  // namespace

ReadResult readKineto(ByteSource &source, const ReadControl &control, const Vocabulary &vocabulary) {
  if (!source.fault.empty()) {
    ReadResult r;
    r.declined = source.fault;
    return r;
  }
  return Reader(source, control, vocabulary).run();
}

}  // namespace syncscope::json
