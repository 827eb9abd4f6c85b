#include "event_stager.h"

#include <cmath>
#include <cstring>

namespace syncscope::json {

namespace {

/** Kineto times are µs; beyond 2^53 one cannot be a time (isTime in pytorch.ts). */
constexpr double kMaxTimeUs = 9007199254740992.0;

uint64_t bitsOf(double v) {
  if (v == 0) v = 0;  // -0 -> 0
  uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return !prefix.empty() && s.substr(0, prefix.size()) == prefix;
}

/** Ids in `later`'s table as ids in `table`, entered in `later`'s order (the order they were first met). */
std::vector<int32_t> idsIn(StringTable &table, const StringTable &later) {
  std::vector<int32_t> ids;
  ids.reserve(later.list().size());
  for (const std::string &s : later.list()) ids.push_back(table.id(s));
  return ids;
}

}  // namespace

/** textOf() in pytorch.ts; JavaScript's text of a number is left to the JavaScript reader. */
std::string_view EventStager::textOf(const Val &v, std::string_view fallback) {
  switch (v.kind) {
    case Kind::String:
      return v.str();
    case Kind::Boolean:
      return v.truth ? "true" : "false";
    case Kind::Number:
      decline("a name or category that is a number");
    default:
      return fallback;
  }
}

uint32_t EventStager::lane(bool thread, double a, double b) {
  LaneKey key{bitsOf(a), bitsOf(b)};
  auto &map = thread ? threadLanes_ : streamLanes_;
  auto it = map.find(key);
  if (it != map.end()) return it->second;
  uint32_t id = uint32_t(s_.lanes.thread.size());
  s_.lanes.thread.push(thread ? 1 : 0);
  s_.lanes.a.push(a);
  s_.lanes.b.push(b);
  map.emplace(key, id);
  return id;
}

/** CATEGORY[raw] ?? CATEGORY[raw.toLowerCase()]; -1 for a category nobody knows. */
int EventStager::category(std::string_view raw) {
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

void EventStager::onEvent(const Event &e) {
  Staged &s = s_;
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
    unknownCategory(rawCat, 1);
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

bool EventStager::isMarker(int32_t name) const {
  const std::string &text = s_.strings.list()[name];
  return startsWith(text, vocabulary_.beforeMarker) || startsWith(text, vocabulary_.afterMarker);
}

void EventStager::threadName(const Event &e) {
  if (!e.name.is("thread_name")) return;
  // The JavaScript reader keys thread names by the text of pid and tid: text that looks like a
  // number (a string, or an array of one) could name a lane; other kinds never can.
  for (const Val *v : {&e.pid, &e.tid}) {
    if (v->kind == Kind::String || v->kind == Kind::Array) decline("a thread_name whose pid or tid is not a number");
    if (v->kind != Kind::Number) return;
  }
  std::string_view name = textOf(e.args.name, "");
  s_.threadNames.pid.push(e.pid.num);
  s_.threadNames.tid.push(e.tid.num);
  s_.threadNames.name.emplace_back(name);
}

void EventStager::unknownCategory(std::string_view raw, double count) {
  auto it = unknownIndex_.find(std::string(raw));
  if (it != unknownIndex_.end()) {
    s_.unknown[it->second].second += count;
    return;
  }
  unknownIndex_.emplace(std::string(raw), s_.unknown.size());
  s_.unknown.emplace_back(std::string(raw), count);
}

void EventStager::sync(const Event &e, double corr) {
  Staged &s = s_;
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

void EventStager::op(const Event &e, int cat, double begin, double end, int32_t name, double corr) {
  Staged::Gpu &g = s_.gpu;
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

void EventStager::append(const Staged &later) {
  Staged &s = s_;
  // Strings and lanes are entered in the order `later` first met them, as staging its events here would.
  std::vector<int32_t> name = idsIn(s.strings, later.strings);
  std::vector<int32_t> syncKind = idsIn(s.syncKinds, later.syncKinds);
  std::vector<uint32_t> laneOf(later.lanes.thread.size());
  for (size_t l = 0; l < laneOf.size(); l++)
    laneOf[l] = lane(later.lanes.thread[l], later.lanes.a[l], later.lanes.b[l]);

  for (size_t n = 0; n < later.nameUse.size(); n++) {
    if (!later.nameUse[n]) continue;
    size_t id = size_t(name[n]);
    if (s.nameUse.size() <= id) s.nameUse.resize(id + 1);
    s.nameUse[id] |= later.nameUse[n];
  }
  const Staged::Host &h = later.host;
  size_t n = h.lane.size();
  s.host.lane.appendMapped(h.lane.data(), n, laneOf);
  s.host.context.append(h.context.data(), n);
  s.host.begin.append(h.begin.data(), n);
  s.host.end.append(h.end.data(), n);
  s.host.name.appendMapped(h.name.data(), n, name);
  s.host.corr.append(h.corr.data(), n);
  const Staged::Gpu &g = later.gpu;
  n = g.lane.size();
  s.gpu.lane.appendMapped(g.lane.data(), n, laneOf);
  s.gpu.kind.append(g.kind.data(), n);
  s.gpu.begin.append(g.begin.data(), n);
  s.gpu.end.append(g.end.data(), n);
  s.gpu.name.appendMapped(g.name.data(), n, name);
  s.gpu.corr.append(g.corr.data(), n);
  s.gpu.grid.append(g.grid.data(), n);
  s.gpu.block.append(g.block.data(), n);
  s.gpu.bytes.append(g.bytes.data(), n);
  const Staged::Syncs &y = later.syncs;
  n = y.corr.size();
  s.syncs.corr.append(y.corr.data(), n);
  s.syncs.kind.appendMapped(y.kind.data(), n, syncKind);
  s.syncs.stream.append(y.stream.data(), n);
  s.syncs.device.append(y.device.data(), n);
  s.syncs.event.append(y.event.data(), n);
  s.syncs.recordCorr.append(y.recordCorr.data(), n);
  s.syncs.waitOnStream.append(y.waitOnStream.data(), n);
  const Staged::Markers &m = later.markers;
  n = m.lane.size();
  s.markers.lane.appendMapped(m.lane.data(), n, laneOf);
  s.markers.time.append(m.time.data(), n);
  s.markers.name.appendMapped(m.name.data(), n, name);
  s.markers.after.append(m.after.data(), n);
  const Staged::ThreadNames &t = later.threadNames;
  for (size_t r = 0; r < t.pid.size(); r++) {
    s.threadNames.pid.push(t.pid[r]);
    s.threadNames.tid.push(t.tid[r]);
    s.threadNames.name.push_back(t.name[r]);
  }
  for (const auto &[raw, count] : later.unknown) unknownCategory(raw, count);
  s.malformed += later.malformed;
  s.noDuration += later.noDuration;
  s.events += later.events;
}

}  // namespace syncscope::json
