// The tracer's seam: banklab::trace::Session (banklab_trace/session.hpp) for a process linked
// against the shim. The judge's traced check (grader/judge/trace_check.cpp) is the same code in
// both links; here its Session is the emulator's EmuTrace, which records every shared-memory warp
// instruction of the launches made while a Session is alive, in the tracer's own format, decoded
// by the tracer's own code. Nothing is ever dropped (no device buffer to fill). TMA copies are not
// recorded here: the Compute Sanitizer API of the course's H200 has no TMA patch points, so the
// GPU's tracer gives the judge none (docs/perf/trace_cublas_hopper.md), and the judge must see the
// same trace on both devices (lab 07's loads are TMA's; its H200 traces hold only its LDSM).
#include "banklab_trace/session.hpp"

#include <mutex>

#include "state.hpp"

namespace banklab::trace {

using emu::shim::State;
using emu::shim::state;

std::string Session::unavailable_reason() { return ""; }

Session::Session() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> g(s.lock);
  s.trace.clear();
  s.trace.set_records_tma(false);
  s.tracing = true;
}

Session::~Session() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> g(s.lock);
  s.tracing = false;
}

void Session::clear() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> g(s.lock);
  s.trace.clear();
}

std::vector<Instruction> Session::take_instructions() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> g(s.lock);
  return s.trace.take_instructions();
}

std::vector<Unmodelled> Session::take_unmodelled() {
  State& s = state();
  std::lock_guard<std::recursive_mutex> g(s.lock);
  return s.trace.take_unmodelled();
}

std::uint64_t Session::dropped() const {
  State& s = state();
  std::lock_guard<std::recursive_mutex> g(s.lock);
  return s.trace.dropped();
}

}  // namespace banklab::trace
