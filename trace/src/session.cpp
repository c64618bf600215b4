// banklab::trace::Session: the tracer in process, through libbanklab_trace_inject.so's C entry
// points (already loaded by the driver under CUDA_INJECTION64_PATH, else loaded here).
#include <dlfcn.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>

#include "banklab_trace/session.hpp"
#include "banklab_trace/trace.hpp"

#ifndef BANKLAB_TRACE_INJECT_PATH
#define BANKLAB_TRACE_INJECT_PATH "libbanklab_trace_inject.so"
#endif

namespace banklab::trace {
namespace {

struct Api {
  int (*attach)() = nullptr;
  const char* (*error)() = nullptr;
  void (*clear)() = nullptr;
  char* (*take)(std::size_t*) = nullptr;
  void (*release)(char*) = nullptr;
  std::string problem;  // why the library could not be used
};

const Api& api() {
  static const Api a = [] {
    Api r;
    // Injected by the driver already? Its symbols are then in the process.
    void* h = dlopen(BANKLAB_TRACE_INJECT_PATH, RTLD_NOW | RTLD_NOLOAD);
    if (!h) {
      const char* env = std::getenv("BANKLAB_TRACE_INJECT");
      h = dlopen(env && *env ? env : BANKLAB_TRACE_INJECT_PATH, RTLD_NOW | RTLD_GLOBAL);
    }
    if (!h) {
      const char* e = dlerror();
      r.problem = std::string("cannot load the tracer library: ") + (e ? e : "unknown error");
      return r;
    }
    r.attach = reinterpret_cast<int (*)()>(dlsym(h, "banklab_trace_attach"));
    r.error = reinterpret_cast<const char* (*)()>(dlsym(h, "banklab_trace_error"));
    r.clear = reinterpret_cast<void (*)()>(dlsym(h, "banklab_trace_clear"));
    r.take = reinterpret_cast<char* (*)(std::size_t*)>(dlsym(h, "banklab_trace_take"));
    r.release = reinterpret_cast<void (*)(char*)>(dlsym(h, "banklab_trace_free"));
    if (!r.attach || !r.error || !r.clear || !r.take || !r.release) {
      r.problem = "the tracer library lacks its entry points";
      return r;
    }
    if (r.attach() != 0) r.problem = std::string("the Compute Sanitizer API did not attach: ") + r.error();
    return r;
  }();
  return a;
}

struct Pulled {
  std::mutex mu;
  std::vector<Instruction> instructions;
  std::vector<Unmodelled> unmodelled;
  std::uint64_t dropped = 0;
};
Pulled& pulled() {
  static Pulled p;
  return p;
}

void pull() {
  const Api& a = api();
  if (!a.problem.empty()) return;
  std::size_t n = 0;
  char* data = a.take(&n);
  if (!data) return;
  std::istringstream in(std::string(data, n), std::ios::binary);
  a.release(data);
  TraceData d = read_trace(in);
  Pulled& p = pulled();
  decode(d, p.instructions, p.unmodelled);
  p.dropped += d.dropped;
}

}  // namespace

std::string Session::unavailable_reason() {
  const Api& a = api();
  if (!a.problem.empty()) return a.problem;
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
  if (devices == 0) return "no CUDA device";
  return "";
}

Session::Session() { (void)api(); }
Session::~Session() = default;

void Session::clear() {
  const Api& a = api();
  if (a.problem.empty()) a.clear();
  std::lock_guard<std::mutex> lock(pulled().mu);
  pulled().instructions.clear();
  pulled().unmodelled.clear();
  pulled().dropped = 0;
}

std::vector<Instruction> Session::take_instructions() {
  std::lock_guard<std::mutex> lock(pulled().mu);
  pull();
  std::vector<Instruction> out = std::move(pulled().instructions);
  pulled().instructions.clear();
  return out;
}

std::vector<Unmodelled> Session::take_unmodelled() {
  std::lock_guard<std::mutex> lock(pulled().mu);
  pull();
  std::vector<Unmodelled> out = std::move(pulled().unmodelled);
  pulled().unmodelled.clear();
  return out;
}

std::uint64_t Session::dropped() const {
  std::lock_guard<std::mutex> lock(pulled().mu);
  return pulled().dropped;
}

}  // namespace banklab::trace
