#include "event_fields.h"

#include <cmath>
#include <cstring>

namespace syncscope::json {

namespace dom = simdjson::dom;

namespace {

/** What a parsed value is; its text points into the parser's memory, valid until the next parse. */
Val valOf(dom::element x) {
  Val v;
  // Every field set, so that a value copied is a value read.
  v.truth = false;
  v.num = 0;
  v.chars = nullptr;
  v.length = 0;
  switch (x.type()) {
    case dom::element_type::INT64:
      v.kind = Kind::Number;
      v.num = double(int64_t(x));
      break;
    case dom::element_type::UINT64:
      v.kind = Kind::Number;
      v.num = double(uint64_t(x));
      break;
    case dom::element_type::DOUBLE:
      v.kind = Kind::Number;
      v.num = double(x);
      break;
    case dom::element_type::STRING: {
      v.kind = Kind::String;
      std::string_view text(x);
      v.chars = text.data();
      v.length = text.size();
      break;
    }
    case dom::element_type::BOOL:
      v.kind = Kind::Boolean;
      v.truth = bool(x);
      break;
    case dom::element_type::NULL_VALUE:
      v.kind = Kind::Null;
      break;
    case dom::element_type::ARRAY:
      v.kind = Kind::Array;
      break;
    case dom::element_type::OBJECT:
      v.kind = Kind::Object;
      break;
  }
  return v;
}

/** product() in pytorch.ts, for Kineto's 3-vectors: an array's numbers multiplied (others count as 1). */
Val productOf(dom::element x) {
  Val v = valOf(x);
  if (v.kind != Kind::Array) return v;
  double p = 1;
  for (dom::element item : dom::array(x)) p = p * valOf(item).number(1);
  v.num = p;
  return v;
}

/** An event's args into `a`; an array is an object to JavaScript too, with none of these fields. */
void argsOf(dom::element x, Args &a) {
  a.clear();
  if (x.type() != dom::element_type::OBJECT) return;
  for (dom::key_value_pair f : dom::object(x)) {
    std::string_view k = f.key;
    if (k == "correlation") a.correlation = valOf(f.value);
    else if (k == "device") a.device = valOf(f.value);
    else if (k == "stream") a.stream = valOf(f.value);
    else if (k == "grid") a.grid = productOf(f.value);
    else if (k == "block") a.block = productOf(f.value);
    else if (k == "bytes") a.bytes = valOf(f.value);
    else if (k == "cuda_sync_kind") a.syncKind = valOf(f.value);
    else if (k == "wait_on_cuda_event_id") a.eventId = valOf(f.value);
    else if (k == "wait_on_cuda_event_record_corr_id") a.recordCorr = valOf(f.value);
    else if (k == "wait_on_stream") a.waitOnStream = valOf(f.value);
    else if (k == "name") a.name = valOf(f.value);
  }
}

}  // namespace

/** The fields of one event object; a key given twice keeps its last value, as JSON.parse does. */
void eventOf(dom::object o, Event &e) {
  for (dom::key_value_pair f : o) {
    std::string_view k = f.key;
    switch (k.size()) {
      case 2:
        if (k == "ph") e.ph = valOf(f.value);
        else if (k == "ts") e.ts = valOf(f.value);
        break;
      case 3:
        if (k == "cat") e.cat = valOf(f.value);
        else if (k == "pid") e.pid = valOf(f.value);
        else if (k == "tid") e.tid = valOf(f.value);
        else if (k == "dur") e.dur = valOf(f.value);
        break;
      case 4:
        if (k == "args") argsOf(f.value, e.args);
        else if (k == "name") e.name = valOf(f.value);
        break;
    }
  }
}

/**
 * Whether the JSON text holds an integer written `-0`: simdjson reads it as the integer 0,
 * JSON.parse as -0, and the two differ in a trace's lanes and times. `-0` inside a string (a name
 * like "worker-0") is no number: where one is found, the quotes before it tell.
 */
bool hasMinusZeroInteger(const char *text, size_t len) {
  const char *end = text + len;
  size_t scanned = 0;
  bool inString = false;  // at text[scanned]
  for (const char *p = text; (p = static_cast<const char *>(std::memchr(p, '-', size_t(end - p)))); p++) {
    if (end - p < 3 || p[1] != '0') continue;
    char next = p[2];
    if (next == '.' || next == 'e' || next == 'E' || (next >= '0' && next <= '9')) continue;
    for (size_t at = size_t(p - text); scanned < at; scanned++) {
      if (text[scanned] == '"') inString = !inString;
      else if (inString && text[scanned] == '\\') scanned++;
    }
    if (!inString) return true;
  }
  return false;
}

/** Math.round: halves go up, and what rounds to zero from below is -0. */
double jsRound(double x) {
  if (!std::isfinite(x) || x == 0) return x;
  if (x < 0 && x >= -0.5) return -0.0;
  double r = std::floor(x);
  return x - r >= 0.5 ? r + 1 : r;
}

/** A Uint32Array element's value for x (ToUint32). */
uint32_t toUint32(double x) {
  if (!std::isfinite(x)) return 0;
  double m = std::fmod(std::trunc(x), 4294967296.0);
  if (m < 0) m += 4294967296.0;
  return uint32_t(m);
}

}  // namespace syncscope::json
