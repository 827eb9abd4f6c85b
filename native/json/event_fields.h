// One Kineto event as the reader sees it: the fields onEvent in core/import/pytorch.ts reads, each
// with its JSON type, taken from simdjson's DOM; and the few JavaScript operations on numbers that
// the reader must repeat exactly (Math.round, a Uint32Array's store).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string_view>

namespace syncscope::json {

enum class Kind : uint8_t { Missing, Null, Boolean, Number, String, Object, Array };

/** A JSON value as far as the reader needs it: its type, and its number, string or truth. */
struct Val {
  Kind kind = Kind::Missing;
  bool truth = false;
  double num = 0;  // for arrays read by productOf: the product of their numbers
  std::string_view str;
  bool is(std::string_view s) const { return kind == Kind::String && str == s; }
  /** num() in pytorch.ts: a finite number, else the fallback (JSON numbers are finite). */
  double number(double fallback) const { return kind == Kind::Number ? num : fallback; }
};

struct Args {
  Val correlation, device, stream, grid, block, bytes, syncKind, eventId, recordCorr, waitOnStream, name;
};

struct Event {
  Val ph, cat, name, pid, tid, ts, dur;
  Args args;
};

/** The fields of one event object; a key given twice keeps its last value, as JSON.parse does. Its text points into the
 * parser's memory. */
Event eventOf(simdjson::dom::object o);

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
