// The shim's state (state.hpp): the emulated device's address range, reserved so that no host
// pointer is ever one of its addresses, and the limits a test process runs under, from its
// environment (docs/dev/EMULATOR.md, "Confinement").
#include "state.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <stdexcept>

#include "banklab_emu/shim.h"

namespace banklab::emu::shim {
namespace {

// A positive integer from the environment, else `fallback` (an unreadable value keeps it).
std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return (*end || n == 0) ? fallback : n;
}

constexpr std::uint64_t kDefaultDeviceBytes = 4ull << 30;  // 4 GiB: the judge's largest test (lab 04's timing) needs 0.2
// A launch's warp instructions: the GPU harness gives a kernel 20 s (FinishesWithin); at the
// emulator's 1.5 to 2.5 M warp instructions a second on one core (EMULATOR.md) 50 M is 20 to 35 s,
// and the judged launches of labs 00 to 05 run far fewer.
constexpr std::uint64_t kDefaultMaxWarpInstructions = 50'000'000;

}  // namespace

State& state(bool start) {
  // Never destroyed: nvcc's registration code unregisters the judge's fatbins at exit, after
  // static objects may have gone.
  static State* s = new State;
  if (!start || s->device) return *s;
  // Started at the first call after the program's registration code (which runs before main(),
  // before a test may set the environment): the limits are read now, once.
  std::lock_guard<std::recursive_mutex> g(s->lock);
  if (s->device) return *s;
  const std::uint64_t bytes = env_number("BANKLAB_EMU_MAX_DEVICE_BYTES", kDefaultDeviceBytes);
  // Address space only (PROT_NONE, no memory behind it): allocations take addresses from it, so a
  // device address is never a host one, and a host pointer handed to a kernel faults as on a GPU.
  const std::uint64_t span = 2 * bytes + (1ull << 30);
  void* base = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED)
    s->device = std::make_unique<Device>(0, 0, 0);  // every cudaMalloc fails: out of memory
  else
    s->device = std::make_unique<Device>(reinterpret_cast<std::uint64_t>(base), span, bytes);
  s->max_warp_instructions = env_number("BANKLAB_EMU_MAX_WARP_INSTRUCTIONS", kDefaultMaxWarpInstructions);
  return *s;
}

std::shared_ptr<const Module> module_of(State& s, const std::string& ptx, std::string& why) {
  if (auto it = s.parsed.find(ptx); it != s.parsed.end()) return it->second;
  try {
    auto m = std::make_shared<const Module>(parse_ptx(ptx));
    s.parsed.emplace(ptx, m);
    return m;
  } catch (const std::exception& e) {
    why = e.what();
    return nullptr;
  }
}

}  // namespace banklab::emu::shim

extern "C" {

const char* banklab_emu_device(void) { return "banklab emulator: sm_90 PTX run warp by warp on the CPU"; }

const char* banklab_emu_take_not_judged(void) {
  thread_local std::string out;
  banklab::emu::shim::State& s = banklab::emu::shim::state();
  std::lock_guard<std::recursive_mutex> g(s.lock);
  out = std::move(s.not_judged);
  s.not_judged.clear();
  return out.c_str();
}

unsigned long long banklab_emu_warp_instructions(void) {
  banklab::emu::shim::State& s = banklab::emu::shim::state();
  std::lock_guard<std::recursive_mutex> g(s.lock);
  return s.warp_instructions;
}

}  // extern "C"
