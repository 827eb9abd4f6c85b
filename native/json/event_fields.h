// One Kineto event as the reader sees it: the fields onEvent in core/import/pytorch.ts reads, each
// with its JSON type, taken from simdjson's DOM; and the few JavaScript operations on numbers that
// the reader must repeat exactly (Math.round, a Uint32Array's store).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string_view>

namespace syncscope::json {

enum class Kind : uint8_t { Missing, Null, Boolean, Number, String, Object, Array };

/**
 * A JSON value as far as the reader needs it: its type, and its number, string or truth. Only the
 * kind is set where a value is missing: events are read by the hundred thousand, and zeroing every
 * field of every event costs more than reading it.
 */
struct Val {
  Kind kind = Kind::Missing;
  bool truth;
  double num;  // for arrays read by productOf: the product of their numbers
  const char *chars;
  size_t length;
  std::string_view str() const { return {chars, length}; }
  bool is(std::string_view s) const { return kind == Kind::String && str() == s; }
  /** num() in pytorch.ts: a finite number, else the fallback (JSON numbers are finite). */
  double number(double fallback) const { return kind == Kind::Number ? num : fallback; }
};

struct Args {
  Val correlation, device, stream, grid, block, bytes, syncKind, eventId, recordCorr, waitOnStream, name;
  /** Every field missing again (args given twice: the last object is the args). */
  void clear() {
    for (Val *v : {&correlation, &device, &stream, &grid, &block, &bytes, &syncKind, &eventId, &recordCorr,
                   &waitOnStream, &name})
      v->kind = Kind::Missing;
  }
};

struct Event {
  Val ph, cat, name, pid, tid, ts, dur;
  Args args;
};

/**
 * The fields of one event object into `e`, made with none; a key given twice keeps its last value,
 * as JSON.parse does. Its text points into the parser's memory.
 */
void eventOf(simdjson::dom::object o, Event &e);

/**
 * Whether the JSON text holds an integer written `-0`: simdjson reads it as the integer 0,
 * JSON.parse as -0, and the two differ in a trace's lanes and times.
 */
bool hasMinusZeroInteger(const char *text, size_t len);

/** Math.round: halves go up, and what rounds to zero from below is -0. */
double jsRound(double x);

/** A Uint32Array element's value for x (ToUint32). */
uint32_t toUint32(double x);

}  // namespace syncscope::json
