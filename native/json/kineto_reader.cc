#include "kineto_reader.h"

#include <simdjson.h>

#include "event_fields.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

namespace syncscope::json {

namespace {

namespace dom = simdjson::dom;

/** MAX_EVENT_BYTES in core/import/scan.ts: the largest event, and the largest text around the events. */
constexpr size_t kMaxEventBytes = size_t(64) << 20;
/** Bytes read from the source at once, and the buffer's size unless one event needs more. */
constexpr size_t kBlock = size_t(4) << 20;
/** Events parsed as one document: small enough that simdjson's index of it stays in cache. */
constexpr size_t kBatch = size_t(1) << 20;
/**
 * The largest text parsed at once: simdjson's DOM parser holds several bytes of index and tape
 * per byte of it. Larger events (real ones are a few hundred bytes) are left to the JavaScript reader.
 */
constexpr size_t kMaxParsed = size_t(16) << 20;
/** Room before the data: a batch writes its '[' into the byte before its first event. */
constexpr size_t kHead = 64;
constexpr size_t kPad = simdjson::SIMDJSON_PADDING;
/** Kineto times are µs; beyond 2^53 one cannot be a time (isTime in pytorch.ts). */
constexpr double kMaxTimeUs = 9007199254740992.0;

/** The reader declines the file; the JavaScript reader reads it instead. */
struct Decline {
  std::string why;
};
[[noreturn]] void decline(std::string why) { throw Decline{std::move(why)}; }

bool isSpace(uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/** Lanes by (pid, tid) or (device, stream); -0 and 0 are one key, as in a JavaScript Map. */
struct LaneKey {
  uint64_t a, b;
  bool operator==(const LaneKey &o) const { return a == o.a && b == o.b; }
};
struct LaneKeyHash {
  size_t operator()(const LaneKey &k) const { return std::hash<uint64_t>()(k.a * 0x9E3779B97F4A7C15ull ^ k.b); }
};
uint64_t bitsOf(double v) {
  if (v == 0) v = 0;  // -0 -> 0
  uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

enum class Mode { Start, Root, Between, Event, Done };

class Reader {
 public:
  Reader(ByteSource &source, const ReadControl &control, const Vocabulary &vocabulary)
      : source_(source), control_(control), vocabulary_(vocabulary), staged_(new Staged()) {
    for (const auto &[name, cat] : vocabulary.categories) categories_.emplace(name, cat);
  }
  ~Reader() { std::free(mem_); }

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
  uint8_t *data() { return mem_ + kHead; }

  void readAll() {
    reserve(kBlock);
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
    void *m = std::realloc(mem_, kHead + cap + kPad);
    if (!m) decline("out of memory for a block of the file");
    mem_ = static_cast<uint8_t *>(m);
    std::memset(mem_ + kHead + cap, ' ', kPad);
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

  void consume(bool atEnd) {
    uint8_t *b = data();
    size_t i = begin_;
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
    begin_ = mode_ == Mode::Event ? eventStart_ : end_;
    if (atEnd && mode_ == Mode::Event) decline("the file ends inside an event");
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
      depth_--;
      mode_ = depth_ == 0 ? Mode::Done : Mode::Root;
      if (mode_ == Mode::Root) keepRoot(c);
      return i + 1;
    }
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
   * The fast path: the events from b[i] to a guessed event end, parsed in place as one array (the
   * bytes before and after them become its brackets while it is parsed). `[` + text from an event's
   * `{` + `]` is valid JSON only when the text ends where an event ends, so a successful parse
   * proves the guess. Returns the index after the last event, or 0 when the events must be read one
   * by one (a wrong guess, or a fault that reading them one by one will find).
   */
  size_t batch(size_t i) {
    uint8_t *b = data();
    size_t cut = guessEnd(i, std::min(end_, i + kBatch));
    if (!cut) return 0;
    uint8_t before = b[i - 1], after = b[cut + 1];
    b[i - 1] = '[';
    b[cut + 1] = ']';
    bool ok = parseBatch(reinterpret_cast<const char *>(b + i - 1), cut + 3 - i);
    b[i - 1] = before;
    b[cut + 1] = after;
    if (!ok) {
      exactUntil_ = end_;
      return 0;
    }
    needComma_ = true;
    return cut + 1;
  }

  /**
   * Parses text as one document: an array of events (a batch) or one event. simdjson's DOM parser
   * checks all of it, as JSON.parse would, before the reader takes any event from it.
   */
  bool parsed(const char *text, size_t len, dom::element &doc) {
    if (hasMinusZeroInteger(text, len)) decline("an integer written -0");
    return !dom_.parse(text, len, false).get(doc);
  }

  /** Stages the events of a batch; false, with none staged, when it is not an array of objects. */
  bool parseBatch(const char *text, size_t len) {
    dom::element doc;
    dom::array events;
    if (!parsed(text, len, doc) || doc.get_array().get(events)) return false;
    for (dom::element e : events)
      if (e.type() != dom::element_type::OBJECT) return false;
    for (dom::element e : events) onEvent(eventOf(dom::object(e)));
    return true;
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
    if (j - eventStart_ >= kMaxEventBytes) decline("an event over the limit");
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
    if (to - from > kMaxParsed) decline("an event larger than the reader parses at once");
    dom::element doc;
    if (!parsed(reinterpret_cast<const char *>(data() + from), to - from, doc) ||
        doc.type() != dom::element_type::OBJECT)
      decline("a malformed trace event");
    onEvent(eventOf(dom::object(doc)));
  }

  // ---- what an event means: onEvent in core/import/pytorch.ts, step by step ----

  /** textOf() in pytorch.ts; JavaScript's text of a number is left to the JavaScript reader. */
  std::string_view textOf(const Val &v, std::string_view fallback) {
    switch (v.kind) {
      case Kind::String:
        return v.str;
      case Kind::Boolean:
        return v.truth ? "true" : "false";
      case Kind::Number:
        decline("a name or category that is a number");
      default:
        return fallback;
    }
  }

  uint32_t lane(bool thread, double a, double b) {
    LaneKey key{bitsOf(a), bitsOf(b)};
    auto &map = thread ? threadLanes_ : streamLanes_;
    auto it = map.find(key);
    if (it != map.end()) return it->second;
    uint32_t id = uint32_t(staged_->lanes.thread.size());
    staged_->lanes.thread.push(thread ? 1 : 0);
    staged_->lanes.a.push(a);
    staged_->lanes.b.push(b);
    map.emplace(key, id);
    return id;
  }

  /** CATEGORY[raw] ?? CATEGORY[raw.toLowerCase()]; -1 for a category nobody knows. */
  int category(std::string_view raw) {
    auto it = categories_.find(raw);
    if (it != categories_.end()) return it->second;
    std::string lower(raw);
    for (char &ch : lower) {
      // toLowerCase maps a few non-ASCII letters to ASCII ones (the Kelvin sign to k): left to JavaScript.
      if (uint8_t(ch) >= 0x80) decline("a category that is not ASCII");
      if (ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
    }
    it = categories_.find(lower);
    return it == categories_.end() ? -1 : it->second;
  }

  void onEvent(const Event &e) {
    Staged &s = *staged_;
    s.events++;
    if (e.ph.is("M")) {
      threadName(e);
      return;
    }
    if (!e.ph.is("X")) return;
    // typeof for what is not text: "undefined", and "object" for null, objects and arrays.
    std::string_view rawCat = textOf(e.cat, e.cat.kind == Kind::Missing ? "undefined" : "object");
    int cat = category(rawCat);
    if (cat == kSkip) return;
    if (cat < 0) {
      unknownCategory(rawCat);
      return;
    }
    bool noDur = e.dur.kind == Kind::Missing || e.dur.kind == Kind::Null;
    double dur = noDur ? 0 : e.dur.num;
    if (e.ts.kind != Kind::Number || std::fabs(e.ts.num) > kMaxTimeUs ||
        (!noDur && (e.dur.kind != Kind::Number || std::fabs(dur) > kMaxTimeUs || dur < 0))) {
      s.malformed++;
      return;
    }
    if (e.dur.kind == Kind::Missing) s.noDuration++;
    double begin = jsRound(e.ts.num * 1000);
    double end = begin + jsRound(dur * 1000);
    int32_t name = s.strings.id(textOf(e.name, ""));
    double corr = e.args.correlation.number(-1);
    if (cat == kSync) {
      sync(e, corr);
    } else if (cat == kContextCat && isMarker(name)) {
      s.markers.lane.push(lane(true, e.pid.number(0), e.tid.number(0)));
      s.markers.time.push(begin);
      s.markers.name.push(name);
      s.markers.after.push(startsWith(s.strings.list()[name], vocabulary_.afterMarker) ? 1 : 0);
    } else if (cat == kApiCat || cat == kContextCat || cat == kPythonCat) {
      if (cat != kContextCat) {
        if (s.nameUse.size() <= size_t(name)) s.nameUse.resize(size_t(name) + 1);
        s.nameUse[size_t(name)] |= cat == kApiCat ? 1 : 2;
      }
      s.host.lane.push(lane(true, e.pid.number(0), e.tid.number(0)));
      s.host.context.push(cat == kApiCat ? kApi : cat == kContextCat ? kContext : kPython);
      s.host.begin.push(begin);
      s.host.end.push(end);
      s.host.name.push(name);
      s.host.corr.push(corr);
    } else {
      op(e, cat, begin, end, name, corr);
    }
  }

  static bool startsWith(std::string_view s, std::string_view prefix) {
    return !prefix.empty() && s.substr(0, prefix.size()) == prefix;
  }
  bool isMarker(int32_t name) {
    const std::string &text = staged_->strings.list()[name];
    return startsWith(text, vocabulary_.beforeMarker) || startsWith(text, vocabulary_.afterMarker);
  }

  void threadName(const Event &e) {
    if (!e.name.is("thread_name")) return;
    // The JavaScript reader keys thread names by the text of pid and tid: text that looks like a
    // number (a string, or an array of one) could name a lane; other kinds never can.
    for (const Val *v : {&e.pid, &e.tid}) {
      if (v->kind == Kind::String || v->kind == Kind::Array) decline("a thread_name whose pid or tid is not a number");
      if (v->kind != Kind::Number) return;
    }
    std::string_view name = textOf(e.args.name, "");
    Staged &s = *staged_;
    s.threadNames.pid.push(e.pid.num);
    s.threadNames.tid.push(e.tid.num);
    s.threadNames.name.emplace_back(name);
  }

  void unknownCategory(std::string_view raw) {
    auto it = unknownIndex_.find(std::string(raw));
    if (it != unknownIndex_.end()) {
      staged_->unknown[it->second].second++;
      return;
    }
    unknownIndex_.emplace(std::string(raw), staged_->unknown.size());
    staged_->unknown.emplace_back(std::string(raw), 1);
  }

  void sync(const Event &e, double corr) {
    Staged &s = *staged_;
    const Val &kind =
        e.args.syncKind.kind == Kind::Missing || e.args.syncKind.kind == Kind::Null ? e.name : e.args.syncKind;
    double stream = e.args.stream.number(-1), device = e.args.device.number(-1);
    int32_t kindId = s.syncKinds.id(textOf(kind, ""));
    if (corr >= 0) {
      s.syncs.corr.push(corr);
      s.syncs.kind.push(kindId);
      s.syncs.stream.push(stream);
      s.syncs.device.push(device);
      s.syncs.event.push(e.args.eventId.number(-1));
      s.syncs.recordCorr.push(e.args.recordCorr.number(-1));
      s.syncs.waitOnStream.push(e.args.waitOnStream.number(-1));
    }
    if (stream >= 0 && device >= 0) lane(false, device, stream);
  }

  void op(const Event &e, int cat, double begin, double end, int32_t name, double corr) {
    Staged::Gpu &g = staged_->gpu;
    const Args &a = e.args;
    g.lane.push(lane(false, a.device.number(e.pid.number(0)), a.stream.number(e.tid.number(0))));
    g.kind.push(cat == kKernelCat ? kKernel : cat == kMemcpyCat ? kMemcpy : kMemset);
    g.begin.push(begin);
    g.end.push(end);
    g.name.push(name);
    g.corr.push(corr);
    bool kernel = cat == kKernelCat;
    g.grid.push(kernel ? toUint32(a.grid.kind == Kind::Array ? a.grid.num : a.grid.number(0)) : 0);
    g.block.push(kernel ? toUint32(a.block.kind == Kind::Array ? a.block.num : a.block.number(0)) : 0);
    g.bytes.push(a.bytes.number(0));
  }

  ByteSource &source_;
  const ReadControl &control_;
  const Vocabulary &vocabulary_;
  std::unique_ptr<Staged> staged_;
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

  std::unordered_map<LaneKey, uint32_t, LaneKeyHash> threadLanes_, streamLanes_;
  std::unordered_map<std::string, size_t> unknownIndex_;
  std::unordered_map<std::string_view, int> categories_;
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
