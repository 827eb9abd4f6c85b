#include "hb_addon.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "happens_before.h"
#include "napi_arrays.h"

namespace syncscope::json {

namespace {

using syncscope::hb::ClockGraph;
using syncscope::hb::CrossLaneInput;
using syncscope::hb::LaneOrderInput;
using syncscope::hb::LaneView;

size_t count(const Napi::Object &o, const char *key) {
  double n = o.Get(key).ToNumber().DoubleValue();
  if (!(n >= 0 && n < 2147483647.0))
    throw Napi::RangeError::New(o.Env(), std::string("happens-before: ") + key + " is not a count");
  return size_t(n);
}

/** A typed array the engine makes, holding a copy of `v`. */
template <class T>
Napi::TypedArrayOf<T> copyOf(Napi::Env env, const std::vector<T> &v) {
  Napi::TypedArrayOf<T> a = Napi::TypedArrayOf<T>::New(env, v.size());
  if (!v.empty()) std::memcpy(a.Data(), v.data(), v.size() * sizeof(T));
  return a;
}

/** SparseRows in csr.ts: its five arrays as the fields of `out`. */
void setSparseRows(Napi::Env env, Napi::Object out, const syncscope::hb::SparseRows &rows) {
  out.Set("has", copyOf(env, rows.has));
  out.Set("before", copyOf(env, rows.before));
  out.Set("keys", copyOf(env, rows.keys));
  out.Set("start", copyOf(env, rows.start));
  out.Set("ids", copyOf(env, rows.ids));
}

/** Lanes per node in the narrowest signed array that holds every lane and -1 (laneIds in graph.ts). */
Napi::Value laneIds(Napi::Env env, const std::vector<int32_t> &lane, size_t lanes) {
  auto fill = [&](auto a) {
    for (size_t i = 0; i < lane.size(); i++) a.Data()[i] = lane[i];
    return a;
  };
  if (lanes <= 0x7f) return fill(Napi::Int8Array::New(env, lane.size()));
  if (lanes <= 0x7fff) return fill(Napi::Int16Array::New(env, lane.size()));
  return copyOf(env, lane);
}

/** o.lane, an Int8, Int16 or Int32 array of `n` lanes, widened; each -1 or below `lanes`. */
std::vector<int32_t> lanesOf(const Napi::Object &o, size_t n, size_t lanes) {
  Napi::Value v = o.Get("lane");
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().ElementLength() < n)
    throw Napi::TypeError::New(o.Env(), "happens-before: lane is not a typed array of the nodes");
  Napi::TypedArray a = v.As<Napi::TypedArray>();
  std::vector<int32_t> out(n);
  switch (a.TypedArrayType()) {
    case napi_int8_array:
      std::copy_n(a.As<Napi::Int8Array>().Data(), n, out.begin());
      break;
    case napi_int16_array:
      std::copy_n(a.As<Napi::Int16Array>().Data(), n, out.begin());
      break;
    case napi_int32_array:
      std::copy_n(a.As<Napi::Int32Array>().Data(), n, out.begin());
      break;
    default:
      throw Napi::TypeError::New(o.Env(), "happens-before: lane is not an Int8, Int16 or Int32 array");
  }
  for (int32_t l : out)
    if (l < -1 || (l >= 0 && size_t(l) >= lanes))
      throw Napi::RangeError::New(o.Env(), "happens-before: a node's lane is not there");
  return out;
}

void check(Napi::Env env, bool ok, const char *what) {
  if (!ok) throw Napi::RangeError::New(env, std::string("happens-before: ") + what);
}

/** The graph's lanes: `lane` widened into `lanes`, the rest read in place, every index checked. */
LaneView laneView(const Napi::Object &g, std::vector<int32_t> &lanes) {
  Napi::Env env = g.Env();
  LaneView v;
  v.calls = count(g, "calls");
  v.nodes = count(g, "nodes");
  v.lanes = count(g, "lanes");
  check(env, v.calls <= v.nodes, "more calls than nodes");
  lanes = lanesOf(g, v.nodes, v.lanes);
  v.lane = lanes.data();
  v.laneStart = column<int32_t>(g, "laneStart", v.lanes + 1, "happens-before");
  const size_t placed = size_t(v.laneStart[v.lanes]);
  check(env, v.laneStart[0] == 0, "the lanes do not start at 0");
  for (size_t l = 0; l < v.lanes; l++) check(env, v.laneStart[l] <= v.laneStart[l + 1], "the lanes' starts go back");
  check(env, placed <= v.nodes, "more placed nodes than nodes");
  v.order = column<int32_t>(g, "order", placed, "happens-before");
  v.seq = column<int32_t>(g, "seq", v.nodes, "happens-before");
  for (size_t l = 0; l < v.lanes; l++)
    for (int32_t k = v.laneStart[l]; k < v.laneStart[l + 1]; k++) {
      const int32_t x = v.order[k];
      check(env, x >= 0 && size_t(x) < v.nodes && lanes[x] == int32_t(l) && v.seq[x] == k - v.laneStart[l] + 1,
            "the lane order does not match the lanes and positions");
    }
  return v;
}

/** hbLaneOrder(input): laneOrder in graph.ts. */
Napi::Value LaneOrderOf(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Object o = info[0].As<Napi::Object>();
  LaneOrderInput in;
  in.calls = count(o, "calls");
  in.ops = count(o, "ops");
  in.lanes = count(o, "lanes");
  in.callLane = column<uint32_t>(o, "callLane", in.calls, "hbLaneOrder()");
  in.callKind = column<uint8_t>(o, "callKind", in.calls, "hbLaneOrder()");
  in.callBegin = column<double>(o, "callBegin", in.calls, "hbLaneOrder()");
  in.opLane = column<uint32_t>(o, "opLane", in.ops, "hbLaneOrder()");
  in.opStart = column<double>(o, "opStart", in.ops, "hbLaneOrder()");
  in.opCall = column<int32_t>(o, "opCall", in.ops, "hbLaneOrder()");
  in.contextKind = uint8_t(o.Get("contextKind").ToNumber().Int32Value());
  for (size_t j = 0; j < in.ops; j++)
    check(env, in.opCall[j] < int64_t(in.calls), "an op names a call that is not there");
  // The order and the positions in arrays the engine made, zeroed, written once.
  Napi::Int32Array order = Napi::Int32Array::New(env, in.calls + in.ops),
                   seq = Napi::Int32Array::New(env, in.calls + in.ops);
  syncscope::hb::LaneOrder r;
  r.order = order.Data();
  r.seq = seq.Data();
  syncscope::hb::laneOrder(in, r);
  Napi::Object out = Napi::Object::New(env);
  out.Set("order", Napi::Int32Array::New(env, size_t(r.start[in.lanes]), order.ArrayBuffer(), 0));
  out.Set("start", copyOf(env, r.start));
  out.Set("seq", seq);
  out.Set("lane", laneIds(env, r.lane, in.lanes));
  if (!r.launcher.empty()) out.Set("launcher", copyOf(env, r.launcher));
  out.Set("callOrderFrom", double(r.callOrderFrom));
  out.Set("callOrderTo", double(r.callOrderTo));
  return out;
}

/** hbCrossLanes(graph, input): crossLaneEdges in graph.ts. */
Napi::Value CrossLanes(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Object g = info[0].As<Napi::Object>(), o = info[1].As<Napi::Object>();
  std::vector<int32_t> lanes;
  const LaneView v = laneView(g, lanes);
  const int64_t C = int64_t(v.calls), O = int64_t(v.nodes - v.calls);
  const char *caller = "hbCrossLanes()";
  CrossLaneInput in;
  in.opCall = column<int32_t>(o, "opCall", size_t(O), caller);
  in.edges = count(o, "edges");
  in.edgeKind = column<uint8_t>(o, "edgeKind", in.edges, caller);
  in.edgeFrom = column<int32_t>(o, "edgeFrom", in.edges, caller);
  in.edgeTo = column<int32_t>(o, "edgeTo", in.edges, caller);
  in.edgeKinds = count(o, "edgeKinds");
  in.launchEdge = uint8_t(o.Get("launchEdge").ToNumber().Int32Value());
  in.releaseEdge = uint8_t(o.Get("releaseEdge").ToNumber().Int32Value());
  in.eventEdge = uint8_t(o.Get("eventEdge").ToNumber().Int32Value());
  in.eventOrderings = lengthOf(o, "eventFrom");
  in.eventFrom = column<int32_t>(o, "eventFrom", in.eventOrderings, caller);
  in.eventTo = column<int32_t>(o, "eventTo", in.eventOrderings, caller);
  in.waitRows = lengthOf(o, "waitKeys");
  in.waitKeys = column<int32_t>(o, "waitKeys", in.waitRows, caller);
  in.waitStart = column<int32_t>(o, "waitStart", in.waitRows + 1, caller);
  const size_t waitIds = lengthOf(o, "waitIds");
  in.waitIds = column<int32_t>(o, "waitIds", waitIds, caller);
  auto isCall = [&](int64_t x) { return x >= 0 && x < C; };
  auto isOp = [&](int64_t x) { return x >= 0 && x < O; };
  for (int64_t j = 0; j < O; j++) check(env, in.opCall[j] < C, "an op names a call that is not there");
  for (size_t k = 0; k < in.edges; k++) {
    const uint8_t kind = in.edgeKind[k];
    check(env, kind < in.edgeKinds, "an edge of no known kind");
    const bool ok = kind == in.launchEdge    ? isCall(in.edgeFrom[k]) && isOp(in.edgeTo[k])
                    : kind == in.releaseEdge ? isOp(in.edgeFrom[k]) && isCall(in.edgeTo[k])
                                             : isOp(in.edgeFrom[k]) && isOp(in.edgeTo[k]);
    check(env, ok, "an edge joins a node that is not there");
  }
  for (size_t k = 0; k < in.eventOrderings; k++)
    check(env, isOp(in.eventFrom[k]) && isOp(in.eventTo[k]), "an event ordering joins an op that is not there");
  check(env, in.waitStart[0] == 0 && size_t(in.waitStart[in.waitRows]) == waitIds,
        "the waits' rows do not cover their ops");
  for (size_t r = 0; r < in.waitRows; r++) {
    check(env, isCall(in.waitKeys[r]) && in.waitStart[r] <= in.waitStart[r + 1], "a wait's row is not one");
    for (int32_t q = in.waitStart[r]; q < in.waitStart[r + 1]; q++)
      check(env, isOp(in.waitIds[q]), "a wait awaits an op that is not there");
  }
  std::vector<int32_t> edgeCounts;
  syncscope::hb::SparseRows rows = syncscope::hb::crossLanes(v, in, edgeCounts);
  Napi::Object out = Napi::Object::New(env);
  setSparseRows(env, out, rows);
  out.Set("edgeCounts", copyOf(env, edgeCounts));
  return out;
}

/** hbBind(input): bindEvents in bindings.ts, its per-call columns biased as stored there. */
Napi::Value Bind(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Object o = info[0].As<Napi::Object>();
  const char *caller = "hbBind()";
  syncscope::hb::BindInput in;
  in.calls = count(o, "calls");
  in.ops = count(o, "ops");
  in.lanes = count(o, "lanes");
  in.strings = count(o, "strings");
  const size_t C = in.calls, O = in.ops, L = in.lanes;
  in.kind = column<uint8_t>(o, "kind", C, caller);
  in.answer = column<uint8_t>(o, "answer", C, caller);
  in.device = column<uint8_t>(o, "device", C, caller);
  in.event = column<int32_t>(o, "event", C, caller);
  in.event2 = column<int32_t>(o, "event2", C, caller);
  in.stream = column<int32_t>(o, "stream", C, caller);
  in.releasedBy = column<int32_t>(o, "releasedBy", C, caller);
  in.lane = column<uint32_t>(o, "lane", C, caller);
  in.blockedNs = column<double>(o, "blockedNs", C, caller);
  in.opCall = column<int32_t>(o, "opCall", O, caller);
  in.opLane = column<uint32_t>(o, "opLane", O, caller);
  in.opKind = column<uint8_t>(o, "opKind", O, caller);
  in.copyKind = column<uint8_t>(o, "copyKind", O, caller);
  in.laneDevice = column<int32_t>(o, "laneDevice", L, caller);
  in.streams = lengthOf(o, "streamLane");
  in.streamLane = column<int32_t>(o, "streamLane", in.streams, caller);
  in.streamDevice = column<int32_t>(o, "streamDevice", in.streams, caller);
  in.timed = lengthOf(o, "timeOrder");
  in.timeOrder = column<int32_t>(o, "timeOrder", in.timed, caller);
  Napi::Object k = o.Get("kinds").As<Napi::Object>();
  auto kindOf = [&](const char *name) { return uint8_t(k.Get(name).ToNumber().Int32Value()); };
  in.streamWaitKind = kindOf("streamWait");
  in.eventSyncKind = kindOf("eventSync");
  in.queryKind = kindOf("query");
  in.elapsedKind = kindOf("elapsed");
  in.streamSyncKind = kindOf("streamSync");
  in.deviceSyncKind = kindOf("deviceSync");
  in.recordKind = kindOf("record");
  in.memcpyKind = kindOf("memcpy");
  in.memsetKind = kindOf("memset");
  in.eventRecordOp = kindOf("eventRecordOp");
  in.dtoh = kindOf("dtoh");
  in.ready = kindOf("ready");
  // Event ids are string ids: one far past the strings would make a table of its size.
  constexpr int32_t kMostEvents = 1 << 26;
  for (size_t i = 0; i < C; i++) {
    check(env, in.stream[i] >= -1 && in.stream[i] < int64_t(L), "a call targets a stream that is not there");
    check(env, in.event[i] < kMostEvents && in.event2[i] < kMostEvents, "a call names an event far past the strings");
  }
  for (size_t j = 0; j < O; j++)
    check(env, in.opCall[j] < int64_t(C) && (in.opCall[j] < 0 || in.opLane[j] < L), "an issued op is on no lane");
  for (size_t q = 0; q < in.streams; q++)
    check(env, in.streamLane[q] >= 0 && size_t(in.streamLane[q]) < L, "a stream is not one of the lanes");
  for (size_t t = 0; t < in.timed; t++)
    check(env, in.timeOrder[t] >= 0 && size_t(in.timeOrder[t]) < C, "the time order names a call that is not there");
  // The per-call columns in arrays the engine made, zeroed: bindEvents writes only what is not 0.
  Napi::Int32Array opsStart = Napi::Int32Array::New(env, C + 1), opsOf = Napi::Int32Array::New(env, O),
                   bound = Napi::Int32Array::New(env, C), recordOp = Napi::Int32Array::New(env, C),
                   replaced = Napi::Int32Array::New(env, C), consumers = Napi::Int32Array::New(env, C);
  syncscope::hb::Bound b;
  b.opsStart = opsStart.Data();
  b.opsOf = opsOf.Data();
  b.bound = bound.Data();
  b.recordOp = recordOp.Data();
  b.replaced = replaced.Data();
  b.consumers = consumers.Data();
  syncscope::hb::bindEvents(in, b);
  Napi::Object out = Napi::Object::New(env);
  out.Set("opsStart", opsStart);
  out.Set("opsOf", Napi::Int32Array::New(env, b.opsOfCount, opsOf.ArrayBuffer(), 0));
  out.Set("biasedBound", bound);
  out.Set("biasedRecordOp", recordOp);
  out.Set("biasedReplaced", replaced);
  out.Set("consumers", consumers);
  out.Set("bound2", copyOf(env, b.bound2));
  out.Set("waits", copyOf(env, b.waits));
  out.Set("syncCopies", copyOf(env, b.syncCopies));
  out.Set("eventFrom", copyOf(env, b.eventFrom));
  out.Set("eventTo", copyOf(env, b.eventTo));
  Napi::Object awaits = Napi::Object::New(env);
  setSparseRows(env, awaits, b.awaits);
  out.Set("awaits", awaits);
  return out;
}

/** hbStreamWork(input): gpuWorkByLane and the overlaps of nonBlockingByOverlap in stream-flags.ts. */
Napi::Value StreamWorkOf(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Object o = info[0].As<Napi::Object>();
  const char *caller = "hbStreamWork()";
  syncscope::hb::StreamWorkInput in;
  in.ops = count(o, "ops");
  in.lanes = count(o, "lanes");
  in.kind = column<uint8_t>(o, "kind", in.ops, caller);
  in.lane = column<uint32_t>(o, "lane", in.ops, caller);
  in.start = column<double>(o, "start", in.ops, caller);
  in.end = column<double>(o, "end", in.ops, caller);
  in.kinds = lengthOf(o, "isWork");
  in.isWork = column<uint8_t>(o, "isWork", in.kinds, caller);
  in.pairs = lengthOf(o, "pairs") / 2;
  in.pairs2 = column<int32_t>(o, "pairs", 2 * in.pairs, caller);
  in.overlapNs = o.Get("overlapNs").ToNumber().DoubleValue();
  // A lane far past the listed ones would make a table of its size.
  for (size_t j = 0; j < in.ops; j++)
    check(env, in.lane[j] < in.lanes + (1u << 16), "an op's lane is far past the lanes");
  const syncscope::hb::StreamWork w = syncscope::hb::streamWork(in);
  Napi::Object out = Napi::Object::New(env);
  out.Set("start", copyOf(env, w.start));
  out.Set("ids", copyOf(env, w.ids));
  out.Set("overlapped", copyOf(env, w.overlapped));
  return out;
}

/** hbHoldCandidates(input): holdCandidates in legacy-timing.ts. */
Napi::Value HoldCandidates(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Object o = info[0].As<Napi::Object>();
  const char *caller = "hbHoldCandidates()";
  syncscope::hb::HoldInput in;
  in.ops = lengthOf(o, "ops");
  in.others = lengthOf(o, "others");
  in.op = column<int32_t>(o, "ops", in.ops, caller);
  in.other = column<int32_t>(o, "others", in.others, caller);
  const size_t O = lengthOf(o, "start"), C = lengthOf(o, "callEnd");
  in.start = column<double>(o, "start", O, caller);
  in.end = column<double>(o, "end", O, caller);
  in.kind = column<uint8_t>(o, "kind", O, caller);
  in.call = column<int32_t>(o, "call", O, caller);
  in.callEnd = column<double>(o, "callEnd", C, caller);
  in.callBlockedNs = column<double>(o, "callBlockedNs", C, caller);
  in.kernelKind = uint8_t(o.Get("kernelKind").ToNumber().Int32Value());
  in.maxStartGapNs = o.Get("maxStartGapNs").ToNumber().DoubleValue();
  in.minDelayNs = o.Get("minDelayNs").ToNumber().DoubleValue();
  in.holdRatio = o.Get("holdRatio").ToNumber().DoubleValue();
  auto checkOps = [&](const int32_t *ids, size_t n) {
    for (size_t q = 0; q < n; q++) {
      const int32_t j = ids[q];
      check(env, j >= 0 && size_t(j) < O && in.call[j] < int64_t(C), "a stream's op is not there");
    }
  };
  checkOps(in.op, in.ops);
  checkOps(in.other, in.others);
  std::vector<int32_t> ops;
  std::vector<double> delays;
  syncscope::hb::holdCandidates(in, ops, delays);
  Napi::Object out = Napi::Object::New(env);
  out.Set("ops", copyOf(env, ops));
  out.Set("delayNs", copyOf(env, delays));
  return out;
}

/** The graph as the clocks read it, every launcher and predecessor checked to be on a lane. */
ClockGraph clockGraph(const Napi::Object &g, std::vector<int32_t> &lanes) {
  Napi::Env env = g.Env();
  ClockGraph c;
  c.lanes = laneView(g, lanes);
  const LaneView &v = c.lanes;
  const size_t O = v.nodes - v.calls;
  c.launcher = column<int32_t>(g, "launcher", O, "happens-before");
  for (size_t j = 0; j < O; j++) {
    const int32_t l = c.launcher[j];
    check(env, l < 0 || (size_t(l) < v.calls && lanes[l] >= 0), "a launcher is not a call on a lane");
  }
  Napi::Object preds = g.Get("preds").As<Napi::Object>();
  const size_t words = (v.nodes >> 5) + 1;
  c.predHas = column<int32_t>(preds, "has", words, "happens-before");
  c.predBefore = column<int32_t>(preds, "before", words, "happens-before");
  const size_t rows = lengthOf(preds, "keys");
  c.predStart = column<int32_t>(preds, "start", rows + 1, "happens-before");
  const size_t ids = lengthOf(preds, "ids");
  c.predIds = column<int32_t>(preds, "ids", ids, "happens-before");
  int32_t marked = 0;
  for (size_t w = 0; w < words; w++) {
    check(env, c.predBefore[w] == marked, "the predecessors' rows are not counted");
    marked += __builtin_popcount(uint32_t(c.predHas[w]));
  }
  check(env, size_t(marked) == rows && c.predStart[0] == 0 && size_t(c.predStart[rows]) == ids,
        "the predecessors' rows do not cover their ids");
  for (size_t r = 0; r < rows; r++) check(env, c.predStart[r] <= c.predStart[r + 1], "a predecessors' row goes back");
  for (size_t q = 0; q < ids; q++)
    check(env, c.predIds[q] >= 0 && size_t(c.predIds[q]) < v.nodes && lanes[c.predIds[q]] >= 0,
          "a predecessor is not a node on a lane");
  return c;
}

/** hbClockRows(graph): countRows in hb.ts. */
Napi::Value ClockRows(const Napi::CallbackInfo &info) {
  std::vector<int32_t> lanes;
  const ClockGraph g = clockGraph(info[0].As<Napi::Object>(), lanes);
  return Napi::Number::New(info.Env(), double(syncscope::hb::clockRows(g)));
}

/** hbClocks(graph, rowCount): vectorClocks in hb.ts, with room for rowCount rows. */
Napi::Value Clocks(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  std::vector<int32_t> lanes;
  const ClockGraph g = clockGraph(info[0].As<Napi::Object>(), lanes);
  const double asked = info[1].ToNumber().DoubleValue();
  const size_t L = g.lanes.lanes;
  check(env, asked >= 1 && asked * double(L) < 2147483647.0, "no room for the clocks' rows");
  const size_t rowCount = size_t(asked);
  // Zeroed by the engine, its pages untouched until a row is made.
  Napi::ArrayBuffer rowBuffer = Napi::ArrayBuffer::New(env, rowCount * L * sizeof(int32_t));
  Napi::Int32Array rowOf = Napi::Int32Array::New(env, g.lanes.nodes);
  size_t used;
  try {
    used = syncscope::hb::vectorClocks(g, static_cast<int32_t *>(rowBuffer.Data()), rowCount, rowOf.Data());
  } catch (const std::length_error &e) {
    throw Napi::RangeError::New(env, e.what());
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("rows", Napi::Int32Array::New(env, used * L, rowBuffer, 0));
  out.Set("rowOf", rowOf);
  return out;
}

}  // namespace

void exportHappensBefore(Napi::Env env, Napi::Object exports) {
  exports.Set("hbLaneOrder", Napi::Function::New(env, LaneOrderOf));
  exports.Set("hbBind", Napi::Function::New(env, Bind));
  exports.Set("hbStreamWork", Napi::Function::New(env, StreamWorkOf));
  exports.Set("hbHoldCandidates", Napi::Function::New(env, HoldCandidates));
  exports.Set("hbCrossLanes", Napi::Function::New(env, CrossLanes));
  exports.Set("hbClockRows", Napi::Function::New(env, ClockRows));
  exports.Set("hbClocks", Napi::Function::New(env, Clocks));
}

}  // namespace syncscope::json
