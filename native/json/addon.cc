// The JavaScript face of the Kineto reader: readKineto(source, options) -> Promise. A separate addon
// from the GPU runtime's, loaded only when a trace is read, so that a machine without libsimdjson
// still runs scenarios on its GPU. node/native-kineto.ts is its only caller and documents the result.
#include <napi.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <string>

#include "arrange.h"
#include "waits.h"
#include "byte_source.h"
#include "hb_addon.h"
#include "kineto_reader.h"
#include "napi_arrays.h"

namespace {

using namespace syncscope::json;

/**
 * A column handed to JavaScript without a copy: an ArrayBuffer over the column's own block, freed
 * when JavaScript lets go of it. Where external buffers are not allowed (Electron's memory cage),
 * the block is copied into one V8 allocates.
 */
template <class T>
Napi::Value adopt(Napi::Env env, Column<T> &col) {
  size_t n = col.size();
  T *data = col.release();
  napi_value buffer = nullptr;
  napi_status status = napi_generic_failure;
  if (n > 0)
    status = napi_create_external_arraybuffer(
        env, data, n * sizeof(T), [](napi_env, void *d, void *) { std::free(d); }, nullptr, &buffer);
  if (status != napi_ok) {
    void *copy = nullptr;
    NAPI_THROW_IF_FAILED(env, napi_create_arraybuffer(env, n * sizeof(T), &copy, &buffer), Napi::Value());
    if (n > 0) std::memcpy(copy, data, n * sizeof(T));
    std::free(data);
  }
  return Napi::TypedArrayOf<T>::New(env, n, Napi::ArrayBuffer(env, buffer), 0);
}

Napi::Array strings(Napi::Env env, const std::deque<std::string> &list) {
  Napi::Array out = Napi::Array::New(env, list.size());
  uint32_t i = 0;
  for (const std::string &s : list) out.Set(i++, Napi::String::New(env, s.data(), s.size()));
  return out;
}

/** A byte column over a vector's copy (small per-name tables). */
Napi::Value bytes(Napi::Env env, const std::vector<uint8_t> &v, size_t length) {
  Napi::Uint8Array a = Napi::Uint8Array::New(env, length);
  std::copy(v.begin(), v.begin() + std::min(v.size(), length), a.Data());
  return a;
}

Napi::Object stagedObject(Napi::Env env, Staged &s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("strings", strings(env, s.strings.list()));
  o.Set("nameUse", bytes(env, s.nameUse, s.strings.list().size()));
  // The names stay here too, for the contexts that arrange() joins from them.
  o.Set("names", Napi::External<StringTable>::New(env, new StringTable(std::move(s.strings)),
                                                  [](Napi::Env, StringTable *t) { delete t; }));
  Napi::Object host = Napi::Object::New(env);
  host.Set("count", double(s.host.lane.size()));
  host.Set("lane", adopt(env, s.host.lane));
  host.Set("context", adopt(env, s.host.context));
  host.Set("begin", adopt(env, s.host.begin));
  host.Set("end", adopt(env, s.host.end));
  host.Set("name", adopt(env, s.host.name));
  host.Set("corr", adopt(env, s.host.corr));
  o.Set("host", host);
  Napi::Object gpu = Napi::Object::New(env);
  gpu.Set("count", double(s.gpu.lane.size()));
  gpu.Set("lane", adopt(env, s.gpu.lane));
  gpu.Set("kind", adopt(env, s.gpu.kind));
  gpu.Set("begin", adopt(env, s.gpu.begin));
  gpu.Set("end", adopt(env, s.gpu.end));
  gpu.Set("name", adopt(env, s.gpu.name));
  gpu.Set("corr", adopt(env, s.gpu.corr));
  gpu.Set("grid", adopt(env, s.gpu.grid));
  gpu.Set("block", adopt(env, s.gpu.block));
  gpu.Set("bytes", adopt(env, s.gpu.bytes));
  o.Set("gpu", gpu);
  Napi::Object lanes = Napi::Object::New(env);
  lanes.Set("thread", adopt(env, s.lanes.thread));
  lanes.Set("a", adopt(env, s.lanes.a));
  lanes.Set("b", adopt(env, s.lanes.b));
  o.Set("lanes", lanes);
  Napi::Object names = Napi::Object::New(env);
  names.Set("pid", adopt(env, s.threadNames.pid));
  names.Set("tid", adopt(env, s.threadNames.tid));
  Napi::Array nameList = Napi::Array::New(env, s.threadNames.name.size());
  for (uint32_t i = 0; i < s.threadNames.name.size(); i++) {
    const std::string &n = s.threadNames.name[i];
    nameList.Set(i, Napi::String::New(env, n.data(), n.size()));
  }
  names.Set("name", nameList);
  o.Set("threadNames", names);
  Napi::Object syncs = Napi::Object::New(env);
  syncs.Set("corr", adopt(env, s.syncs.corr));
  syncs.Set("kind", adopt(env, s.syncs.kind));
  syncs.Set("stream", adopt(env, s.syncs.stream));
  syncs.Set("device", adopt(env, s.syncs.device));
  syncs.Set("event", adopt(env, s.syncs.event));
  syncs.Set("recordCorr", adopt(env, s.syncs.recordCorr));
  syncs.Set("waitOnStream", adopt(env, s.syncs.waitOnStream));
  syncs.Set("kinds", strings(env, s.syncKinds.list()));
  o.Set("syncs", syncs);
  Napi::Object markers = Napi::Object::New(env);
  markers.Set("lane", adopt(env, s.markers.lane));
  markers.Set("time", adopt(env, s.markers.time));
  markers.Set("name", adopt(env, s.markers.name));
  markers.Set("after", adopt(env, s.markers.after));
  o.Set("markers", markers);
  Napi::Array unknown = Napi::Array::New(env, s.unknown.size());
  for (uint32_t i = 0; i < s.unknown.size(); i++) {
    Napi::Array pair = Napi::Array::New(env, 2);
    pair.Set(0u, Napi::String::New(env, s.unknown[i].first));
    pair.Set(1u, s.unknown[i].second);
    unknown.Set(i, pair);
  }
  o.Set("unknown", unknown);
  o.Set("malformed", s.malformed);
  o.Set("noDuration", s.noDuration);
  o.Set("events", s.events);
  o.Set("root", Napi::String::New(env, s.root.data(), s.root.size()));
  return o;
}

Category categoryNamed(Napi::Env env, const std::string &what) {
  static const char *const names[] = {"api", "context", "python", "kernel", "memcpy", "memset", "sync", "skip"};
  for (int i = 0; i < 8; i++)
    if (what == names[i]) return Category(i);
  throw Napi::TypeError::New(env, "readKineto(): unknown category kind " + what);
}

Vocabulary vocabularyOf(const Napi::Object &options) {
  Napi::Env env = options.Env();
  Vocabulary v;
  Napi::Array cats = options.Get("categories").As<Napi::Array>();
  for (uint32_t i = 0; i < cats.Length(); i++) {
    Napi::Array pair = cats.Get(i).As<Napi::Array>();
    v.categories.emplace_back(pair.Get(0u).As<Napi::String>().Utf8Value(),
                              categoryNamed(env, pair.Get(1u).As<Napi::String>().Utf8Value()));
  }
  v.beforeMarker = options.Get("beforeMarker").As<Napi::String>().Utf8Value();
  v.afterMarker = options.Get("afterMarker").As<Napi::String>().Utf8Value();
  return v;
}

/**
 * A read in flight: the promise it settles and what it found. The progress function's finalizer
 * settles the promise: it runs after every progress call the read made, so that JavaScript sees
 * them all, and can stop the read from any of them, before the answer.
 */
struct ReadJob {
  Napi::Promise::Deferred deferred;
  ReadResult result;
  std::string fault;  // an exception of the reader itself
  Napi::ObjectReference source, control;
  /** Set when a progress call cannot run JavaScript: the environment that asked is ending. */
  std::atomic<bool> abandoned{false};
};

/**
 * The calls into JavaScript below run from libuv's callbacks, where an exception cannot be thrown
 * on. They fail when the environment is ending (a worker thread terminated while it reads): then no
 * one waits for the answer, and the process that held the worker must live on.
 */
void settle(Napi::Env env, ReadJob *job) {
  try {
    Napi::HandleScope scope(env);
    if (!job->fault.empty()) {
      job->deferred.Reject(Napi::Error::New(env, job->fault).Value());
      return;
    }
    Napi::Object o = Napi::Object::New(env);
    if (job->result.staged) o.Set("staged", stagedObject(env, *job->result.staged));
    else if (job->result.cancelled) o.Set("cancelled", true);
    else o.Set("declined", job->result.declined);
    job->result.staged.reset();
    job->deferred.Resolve(o);
  } catch (const Napi::Error &) {
    // The environment is ending: the promise has no one to settle for.
  }
}

class ReadWorker : public Napi::AsyncWorker {
 public:
  ReadWorker(Napi::Env env, const Napi::Value &source, const Napi::Object &options)
      : Napi::AsyncWorker(env), vocabulary_(vocabularyOf(options)) {
    std::unique_ptr<ReadJob> job(new ReadJob{Napi::Promise::Deferred::New(env)});
    if (source.IsString()) {
      path_ = source.As<Napi::String>().Utf8Value();
    } else if (source.IsTypedArray() && source.As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array) {
      Napi::Uint8Array bytes = source.As<Napi::Uint8Array>();
      bytes_ = bytes.Data();
      size_ = bytes.ByteLength();
      job->source = Napi::Persistent(source.As<Napi::Object>());
    } else {
      throw Napi::TypeError::New(env, "readKineto(): the source is a path or a Uint8Array");
    }
    gzip_ = options.Get("gzip").ToBoolean();
    limit_ = options.Get("limit").ToNumber().DoubleValue();
    Napi::Value stop = options.Get("stop");
    if (stop.IsTypedArray() && stop.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array &&
        stop.As<Napi::Float64Array>().ElementLength() >= 1) {
      control_.stop = stop.As<Napi::Float64Array>().Data();
      job->control = Napi::Persistent(stop.As<Napi::Object>());
    }
    Napi::Value progress = options.Get("progress");
    Napi::Function onProgress = progress.IsFunction() ? progress.As<Napi::Function>()
                                                      : Napi::Function::New(env, [](const Napi::CallbackInfo &) {});
    promise_ = job->deferred.Promise();
    job_ = job.release();
    progress_ = Napi::ThreadSafeFunction::New(env, onProgress, "syncscope trace progress", 0, 1, job_,
                                              [](Napi::Env env, ReadJob *job) {
                                                settle(env, job);
                                                delete job;
                                              });
    control_.abandoned = &job_->abandoned;
    // The job outlives every progress call: its finalizer runs after the last one.
    ReadJob *read = job_;
    control_.onProgress = [this, read](double bytes) {
      progress_.NonBlockingCall(new double(bytes), [read](Napi::Env env, Napi::Function fn, double *b) {
        double taken = *b;
        delete b;
        if (!env || !fn) return;
        try {
          fn.Call({Napi::Number::New(env, taken)});
        } catch (const Napi::Error &) {
          read->abandoned = true;  // the environment is ending: the read stops at its next block
        }
      });
    };
  }
  Napi::Promise promise() { return promise_; }

 protected:
  void Execute() override {
    try {
      std::unique_ptr<ByteSource> source;
      if (bytes_) source = std::make_unique<MemorySource>(bytes_, size_);
      else source = std::make_unique<FileSource>(path_);
      if (gzip_) source = std::make_unique<GzipSource>(std::move(source), limit_);
      job_->result = readKineto(*source, control_, vocabulary_);
    } catch (const std::exception &e) {
      job_->fault = e.what();
    }
    progress_.Release();  // the finalizer settles the promise after the last progress call
  }
  void OnOK() override {}
  void OnError(const Napi::Error &) override {}

 private:
  Vocabulary vocabulary_;
  std::string path_;
  const uint8_t *bytes_ = nullptr;
  size_t size_ = 0;
  bool gzip_ = false;
  double limit_ = 0;
  ReadControl control_;
  ReadJob *job_ = nullptr;
  Napi::Promise promise_;
  Napi::ThreadSafeFunction progress_;
};

/** input.waits of arrange(): the tables resolveWaits reads besides the rows (native/json/waits.h). */
WaitsInput waitsInput(const Napi::Value &value, const ArrangeInput &in) {
  const char *caller = "arrange() waits";
  if (!value.IsObject()) throw Napi::TypeError::New(value.Env(), std::string(caller) + " is not an object");
  Napi::Object o = value.As<Napi::Object>();
  WaitsInput w;
  w.syncs = lengthOf(o, "syncCorr");
  w.syncCorr = column<double>(o, "syncCorr", w.syncs, caller);
  w.syncStream = column<double>(o, "syncStream", w.syncs, caller);
  w.syncDevice = column<double>(o, "syncDevice", w.syncs, caller);
  w.syncEvent = column<double>(o, "syncEvent", w.syncs, caller);
  w.syncRecordCorr = column<double>(o, "syncRecordCorr", w.syncs, caller);
  w.syncWaitOnStream = column<double>(o, "syncWaitOnStream", w.syncs, caller);
  w.streams = lengthOf(o, "streamLane");
  w.streamDevice = column<double>(o, "streamDevice", w.streams, caller);
  w.streamHandle = column<double>(o, "streamHandle", w.streams, caller);
  w.streamLane = column<int32_t>(o, "streamLane", w.streams, caller);
  w.onlyDevice = o.Get("onlyDevice").ToNumber().DoubleValue();
  w.kinds = lengthOf(o, "role");
  w.role = column<uint8_t>(o, "role", w.kinds, caller);
  w.asyncName = column<uint8_t>(o, "asyncName", in.names, caller);
  w.copies = size_t(o.Get("copies").ToNumber().Uint32Value());
  w.hostMemories = size_t(o.Get("hostMemories").ToNumber().Uint32Value());
  if (w.copies > 256 || w.hostMemories > 256)
    throw Napi::RangeError::New(o.Env(), std::string(caller) + ": more copy kinds or host memories than codes");
  w.blocks = column<uint8_t>(o, "blocks", w.copies * w.hostMemories * 2, caller);
  w.opCopy = column<uint8_t>(o, "opCopy", in.gpuCount, caller);
  w.opHostMemory = column<uint8_t>(o, "opHostMemory", in.gpuCount, caller);
  w.releasedNone = o.Get("releasedNone").ToNumber().Int32Value();
  w.releasedUnknown = o.Get("releasedUnknown").ToNumber().Int32Value();
  w.howExact = uint8_t(o.Get("howExact").ToNumber().Uint32Value());
  w.howDeduced = uint8_t(o.Get("howDeduced").ToNumber().Uint32Value());
  w.releaseEdge = uint8_t(o.Get("releaseEdge").ToNumber().Uint32Value());
  w.eventEdge = uint8_t(o.Get("eventEdge").ToNumber().Uint32Value());
  return w;
}

/** arrange(names, host, gpu, input, out): fills out's columns, returns what else it made (native/json/arrange.h). */
Napi::Value Arrange(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const StringTable &names = *info[0].As<Napi::External<StringTable>>().Data();
  Napi::Object host = info[1].As<Napi::Object>(), gpu = info[2].As<Napi::Object>(), o = info[3].As<Napi::Object>();
  ArrangeInput in;
  in.hostCount = size_t(host.Get("count").ToNumber().Int64Value());
  in.hostLane = column<uint32_t>(host, "lane", in.hostCount);
  in.hostContext = column<uint8_t>(host, "context", in.hostCount);
  in.hostBegin = column<double>(host, "begin", in.hostCount);
  in.hostEnd = column<double>(host, "end", in.hostCount);
  in.hostCorr = column<double>(host, "corr", in.hostCount);
  in.hostName = column<int32_t>(host, "name", in.hostCount);
  in.gpuCount = size_t(gpu.Get("count").ToNumber().Int64Value());
  in.gpuLane = column<uint32_t>(gpu, "lane", in.gpuCount);
  in.gpuBegin = column<double>(gpu, "begin", in.gpuCount);
  in.gpuEnd = column<double>(gpu, "end", in.gpuCount);
  in.gpuCorr = column<double>(gpu, "corr", in.gpuCount);
  in.laneMapCount = o.Get("laneMap").As<Napi::TypedArray>().ElementLength();
  in.laneMap = column<int32_t>(o, "laneMap", in.laneMapCount);
  in.laneCount = o.Get("laneDevice").As<Napi::TypedArray>().ElementLength();
  in.laneDevice = column<double>(o, "laneDevice", in.laneCount);
  in.t0 = o.Get("t0").ToNumber().DoubleValue();
  in.maxCorr = o.Get("maxCorr").ToNumber().DoubleValue();
  in.names = names.list().size();
  in.kindOfName = column<int8_t>(o, "kindOfName", in.names);
  in.roleTop = column<int8_t>(o, "roleTop", in.names);
  in.roleInner = column<int8_t>(o, "roleInner", in.names);
  in.contextKind = uint8_t(o.Get("contextKind").ToNumber().Int32Value());
  for (size_t r = 0; r < in.hostCount; r++)
    if (in.hostLane[r] >= in.laneMapCount || size_t(in.hostName[r]) >= in.names)
      throw Napi::RangeError::New(env, "arrange(): a row names a lane or a name that is not there");
  for (size_t r = 0; r < in.gpuCount; r++)
    if (in.gpuLane[r] >= in.laneMapCount) throw Napi::RangeError::New(env, "arrange(): an op's lane is not there");
  for (size_t l = 0; l < in.laneMapCount; l++)
    if (in.laneMap[l] < 0 || size_t(in.laneMap[l]) >= in.laneCount)
      throw Napi::RangeError::New(env, "arrange(): a lane maps to no lane");

  Napi::Object o2 = info[4].As<Napi::Object>();
  ArrangeOut out;
  out.opLane = column<uint32_t>(o2, "opLane", in.gpuCount);
  out.opStart = column<double>(o2, "opStart", in.gpuCount);
  out.opEnd = column<double>(o2, "opEnd", in.gpuCount);
  out.opCall = column<int32_t>(o2, "opCall", in.gpuCount);
  out.callLane = column<uint32_t>(o2, "callLane", in.hostCount);
  out.callKind = column<uint8_t>(o2, "callKind", in.hostCount);
  out.callDepth = column<uint8_t>(o2, "callDepth", in.hostCount);
  out.callBegin = column<double>(o2, "callBegin", in.hostCount);
  out.callEnd = column<double>(o2, "callEnd", in.hostCount);
  out.callCorr = column<double>(o2, "callCorr", in.hostCount);
  out.callName = column<int32_t>(o2, "callName", in.hostCount);
  out.callContext = column<int32_t>(o2, "callContext", in.hostCount);
  out.callStream = column<int32_t>(o2, "callStream", in.hostCount);
  out.edgeRoom = o2.Get("edgeKind").As<Napi::TypedArray>().ElementLength();
  out.edgeKind = column<uint8_t>(o2, "edgeKind", out.edgeRoom);
  out.edgeFrom = column<int32_t>(o2, "edgeFrom", out.edgeRoom);
  out.edgeTo = column<int32_t>(o2, "edgeTo", out.edgeRoom);
  out.launchEdge = uint8_t(o.Get("launchEdge").ToNumber().Int32Value());
  out.streamEdge = uint8_t(o.Get("streamEdge").ToNumber().Int32Value());

  WaitsInput w = waitsInput(o.Get("waits"), in);
  WaitsOut settled;
  settled.releasedBy = column<int32_t>(o2, "callReleasedBy", in.hostCount);
  settled.blockedNs = column<double>(o2, "callBlockedNs", in.hostCount);
  settled.unblockNs = column<double>(o2, "callUnblockNs", in.hostCount);
  settled.how = column<uint8_t>(o2, "callHow", in.hostCount);

  Arranged a;
  Waits waits;
  try {
    arrange(in, names, out, a);
    resolveWaits(w, in, out, a, settled, waits);
  } catch (const std::length_error &e) {
    throw Napi::RangeError::New(env, e.what());
  } catch (const std::bad_alloc &) {
    throw Napi::RangeError::New(env, "arrange(): out of memory");
  }
  Napi::Object made = Napi::Object::New(env);
  made.Set("calls", double(a.calls));
  made.Set("edges", double(a.edges));
  made.Set("strings", strings(env, a.strings));
  made.Set("siteCall", adopt(env, a.siteCall));
  made.Set("siteNode", adopt(env, a.siteNode));
  made.Set("nodeParent", adopt(env, a.nodeParent));
  made.Set("nodeName", adopt(env, a.nodeName));
  Napi::Object counts = Napi::Object::New(env);
  counts.Set("unknown", waits.unknown);
  counts.Set("noRecord", waits.noRecord);
  counts.Set("skew", waits.skew);
  counts.Set("noSync", waits.noSync);
  counts.Set("eventCall", adopt(env, waits.eventCall));
  counts.Set("eventIndex", adopt(env, waits.eventIndex));
  counts.Set("events", adopt(env, waits.events));
  made.Set("waits", counts);
  return made;
}

Napi::Value ReadKineto(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[1].IsObject())
    throw Napi::TypeError::New(env, "readKineto(source, options): options is an object");
  auto *w = new ReadWorker(env, info[0], info[1].As<Napi::Object>());
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("readKineto", Napi::Function::New(env, ReadKineto));
  exports.Set("arrange", Napi::Function::New(env, Arrange));
  exportHappensBefore(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(syncscope_json, Init)
