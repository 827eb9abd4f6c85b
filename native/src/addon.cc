// The JavaScript face of the runtime: available(), devices(), run(job) -> Promise, progress().
#include <napi.h>

#include "runtime.h"

namespace {

using namespace syncscope;

template <class T, class A>
std::vector<T> copyArray(const Napi::Object &o, const char *key) {
  Napi::Value v = o.Get(key);
  if (!v.IsTypedArray()) throw Napi::TypeError::New(o.Env(), std::string("run(): ") + key + " must be a typed array");
  A a = v.As<A>();
  return std::vector<T>(a.Data(), a.Data() + a.ElementLength());
}

Napi::Object deviceObject(Napi::Env env, const DeviceInfo &i, int index) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("index", index);
  o.Set("name", i.name);
  o.Set("sms", i.sms);
  o.Set("computeCapability", std::to_string(i.major) + "." + std::to_string(i.minor));
  o.Set("cudaDriverVersion", i.driverVersion);
  if (i.totalMem > 0) o.Set("totalMem", i.totalMem);
  return o;
}

const Driver &requireDriver(Napi::Env env) {
  std::string reason;
  const Driver *d = loadDriver(reason);
  if (!d) throw Napi::Error::New(env, reason);
  return *d;
}

class RunWorker : public Napi::AsyncWorker {
 public:
  RunWorker(Napi::Env env, const Driver &d, Job job)
      : Napi::AsyncWorker(env), d(d), job(std::move(job)), deferred(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise promise() { return deferred.Promise(); }

 protected:
  void Execute() override { execute(d, job, result); }
  void OnOK() override {
    Napi::Env env = Env();
    Napi::Object o = Napi::Object::New(env);
    auto f64 = [&](const std::vector<double> &v) {
      Napi::Float64Array a = Napi::Float64Array::New(env, v.size());
      std::copy(v.begin(), v.end(), a.Data());
      return a;
    };
    o.Set("records", f64(result.records));
    o.Set("calibration", f64(result.calibration));
    o.Set("device", deviceObject(env, result.device, result.device.ordinal));
    Napi::Array devices = Napi::Array::New(env, result.devices.size());
    for (size_t i = 0; i < result.devices.size(); i++) {
      Napi::Object dev = deviceObject(env, result.devices[i], result.devices[i].ordinal);
      dev.Set("device", result.devices[i].device);
      devices.Set(uint32_t(i), dev);
    }
    o.Set("devices", devices);
    if (result.failed) {
      Napi::Object f = Napi::Object::New(env);
      f.Set("name", result.failure.name);
      f.Set("api", result.failure.api);
      f.Set("detail", result.failure.detail);
      f.Set("step", result.failure.step);
      o.Set("failure", f);
    }
    deferred.Resolve(o);
  }
  void OnError(const Napi::Error &e) override { deferred.Reject(e.Value()); }

 private:
  const Driver &d;
  Job job;
  Result result;
  Napi::Promise::Deferred deferred;
};

Napi::Value Available(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  std::string reason;
  const Driver *d = loadDriver(reason);
  if (!d) {
    o.Set("ok", false);
    o.Set("reason", reason);
    return o;
  }
  std::string error;
  auto list = listDevices(*d, error);
  if (list.empty()) {
    o.Set("ok", false);
    o.Set("reason", error.empty() ? "no CUDA device: the NVIDIA driver reports none" : error);
    return o;
  }
  o.Set("ok", true);
  o.Set("devices", int(list.size()));
  o.Set("cudaDriverVersion", list[0].driverVersion);
  return o;
}

Napi::Value Devices(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const Driver &d = requireDriver(env);
  std::string error;
  auto list = listDevices(d, error);
  if (!error.empty()) throw Napi::Error::New(env, error);
  Napi::Array a = Napi::Array::New(env, list.size());
  for (size_t i = 0; i < list.size(); i++) a.Set(uint32_t(i), deviceObject(env, list[i], int(i)));
  return a;
}

// Every index the runtime follows, checked once here: the worker thread indexes its tables with
// them unchecked, so a malformed job from JavaScript must fail as a RangeError, not a crash.
std::string jobError(const Job &job) {
  const size_t nDev = job.devices.size(), nStreams = job.streams.size() / kStreamWidth;
  const size_t nEvents = job.events.size() / kEventWidth, nBuffers = job.buffers.size() / kBufferWidth;
  if (job.streams.size() % kStreamWidth || job.events.size() % kEventWidth || job.buffers.size() % kBufferWidth)
    return "stream, event or buffer arrays of the wrong width";
  auto device = [&](double d) { return d >= 0 && size_t(d) < nDev && job.devices[size_t(d)] >= 0; };
  auto below = [](int32_t i, size_t n) { return i >= 0 && size_t(i) < n; };
  for (size_t i = 0; i < nStreams; i++)
    if (!device(job.streams[i * kStreamWidth + 4]))
      return "stream " + std::to_string(i) + " is on a device that is not set up";
  for (size_t i = 0; i < nEvents; i++)
    if (!device(job.events[i * kEventWidth + 2]))
      return "event " + std::to_string(i) + " is on a device that is not set up";
  for (size_t i = 0; i < nBuffers; i++) {
    const double dev = job.buffers[i * kBufferWidth + 2];
    if (dev != -1 && !device(dev)) return "buffer " + std::to_string(i) + " is on a device that is not set up";
  }
  for (size_t i = 0; i + 1 < job.threads.size(); i++)
    if (job.threads[i] < 0 || job.threads[i] > job.threads[i + 1]) return "thread step ranges out of order";
  for (size_t g = 0; g < job.steps.size() / kStepWidth; g++) {
    const int32_t *s = &job.steps[g * kStepWidth];
    bool ok = s[kStepDevice] == -1 || device(s[kStepDevice]);
    switch (s[0]) {
      case OpLaunch:
        ok = ok && below(s[1], nStreams) && (s[2] == -1 || below(s[2], nBuffers));
        break;
      case OpRecord:
      case OpWait:
        ok = ok && below(s[1], nEvents) && below(s[2], nStreams);
        break;
      case OpQuery:
      case OpEventSync:
        ok = ok && below(s[1], nEvents);
        break;
      case OpStreamSync:
      case OpHostFunc:
        ok = ok && below(s[1], nStreams);
        break;
      case OpElapsed:
        ok = ok && below(s[1], nEvents) && below(s[2], nEvents);
        break;
      case OpCopy:
        ok = ok && below(s[1], nBuffers) && below(s[2], nBuffers) && below(s[4], nStreams);
        break;
      case OpMemset:
        ok = ok && below(s[1], nBuffers) && below(s[4], nStreams);
        break;
      case OpSetDevice:
        ok = ok && device(s[1]);
        break;
      case OpDeviceSync:
      case OpHostWork:
        break;
      default:
        ok = false;
    }
    if (!ok) return "step " + std::to_string(g) + " names a stream, event, buffer or device that does not exist";
    // A stream op runs in its stream's context and takes its end event from that device's pool.
    const int stream = s[0] == OpLaunch || s[0] == OpHostFunc ? s[1]
                       : s[0] == OpRecord || s[0] == OpWait   ? s[2]
                       : s[0] == OpCopy || s[0] == OpMemset   ? s[4]
                                                              : -1;
    if (stream >= 0 && s[kStepDevice] != job.streams[size_t(stream) * kStreamWidth + 4])
      return "step " + std::to_string(g) + " runs on device " + std::to_string(s[kStepDevice]) +
             " but its stream is on device " + std::to_string(job.streams[size_t(stream) * kStreamWidth + 4]);
  }
  return "";
}

Napi::Value RunJob(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "run(job): job must be an object");
  Napi::Object o = info[0].As<Napi::Object>();
  Job job;
  job.devices = copyArray<int32_t, Napi::Int32Array>(o, "devices");
  job.schedules = copyArray<int32_t, Napi::Int32Array>(o, "schedules");
  if (job.devices.empty() || job.schedules.size() != job.devices.size())
    throw Napi::RangeError::New(env, "run(job): devices and schedules must name the same devices");
  job.calibrationSamples = std::max(2, o.Get("calibrationSamples").ToNumber().Int32Value());
  job.streams = copyArray<int32_t, Napi::Int32Array>(o, "streams");
  job.events = copyArray<int32_t, Napi::Int32Array>(o, "events");
  job.threads = copyArray<int32_t, Napi::Int32Array>(o, "threads");
  job.steps = copyArray<int32_t, Napi::Int32Array>(o, "steps");
  job.buffers = copyArray<double, Napi::Float64Array>(o, "buffers");
  job.values = copyArray<double, Napi::Float64Array>(o, "values");
  if (!o.Get("bareSteps").IsUndefined()) job.bareSteps = copyArray<uint8_t, Napi::Uint8Array>(o, "bareSteps");
  const size_t steps = job.steps.size() / kStepWidth;
  if (job.steps.size() % kStepWidth || job.values.size() != steps || job.threads.size() < 2 ||
      size_t(job.threads.back()) != steps || (!job.bareSteps.empty() && job.bareSteps.size() != steps))
    throw Napi::RangeError::New(env, "run(job): inconsistent step arrays");
  const std::string bad = jobError(job);
  if (!bad.empty()) throw Napi::RangeError::New(env, "run(job): " + bad);
  // After the checks, so that a malformed job says so on any machine.
  const Driver &d = requireDriver(env);
  auto *w = new RunWorker(env, d, std::move(job));
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

Napi::Value Progress(const Napi::CallbackInfo &info) { return Napi::Number::New(info.Env(), double(stepsDone.load())); }

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("available", Napi::Function::New(env, Available));
  exports.Set("devices", Napi::Function::New(env, Devices));
  exports.Set("run", Napi::Function::New(env, RunJob));
  exports.Set("progress", Napi::Function::New(env, Progress));
  return exports;
}

}  // namespace

NODE_API_MODULE(syncscope, Init)
