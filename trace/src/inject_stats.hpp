// Where the tracer's time goes inside the traced process (BANKLAB_TRACE_STATS): seconds spent in
// each part of the injection library's host side and how often, printed at exit on stderr
// (bench/trace_overhead_device.sh reads these lines). BANKLAB_TRACE_STATS=2 also prints one line
// per launch. Kernel time under the patch is inside `sync`.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace banklab::trace {

struct Stats {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double attach = 0, module_loaded = 0, patch_file = 0, patch = 0, context = 0, launch_begin = 0,
         sync = 0, copy = 0, merge = 0, write = 0;
  std::uint64_t modules = 0, module_bytes = 0, patched = 0, launches = 0, records = 0,
                written_modules = 0, written_bytes = 0;
  // How the warp instructions came back: merged on the device (entries copied, warp instructions
  // they stand for), appended to the device buffer, through the overflow ring; counted only
  // (BANKLAB_TRACE_DEVICE=count).
  std::uint64_t entries = 0, merged = 0, appended = 0, ring = 0, counted = 0;
};

inline Stats& stats() {
  static Stats* s = new Stats;  // never destroyed: callbacks may run during exit
  return *s;
}

/// 0: off; 1: the summary at exit; 2: also one line per launch.
inline int stats_level() {
  static const int level = [] {
    const char* e = std::getenv("BANKLAB_TRACE_STATS");
    if (!e || !*e || std::strcmp(e, "0") == 0) return 0;
    return std::strcmp(e, "2") == 0 ? 2 : 1;
  }();
  return level;
}
inline bool stats_on() { return stats_level() > 0; }

/// Adds the seconds from construction to destruction to `slot`.
struct Timer {
  double* slot;
  std::chrono::steady_clock::time_point t0;
  explicit Timer(double& s) : slot(stats_on() ? &s : nullptr), t0(std::chrono::steady_clock::now()) {}
  ~Timer() {
    if (slot) *slot += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline void print_stats() {
  if (!stats_on()) return;
  const Stats& t = stats();
  const double ours = t.attach + t.module_loaded + t.patch + t.context + t.launch_begin + t.sync + t.copy + t.merge + t.write;
  auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
  std::fprintf(stderr,
               "banklab trace stats: %.3f s from attach to exit; attach %.3f; %llu modules loaded (%.1f MB) %.3f; "
               "%llu patched %.3f (patch file %.3f); context buffers %.3f; %llu launches: begin %.3f, "
               "sync (kernels under the patch) %.3f, copy %.3f, merge %.3f (%llu records); "
               "trace file %.3f (%llu modules, %.1f MB); tracer total %.3f; "
               "warp instructions: merged on the device %llu in %llu entries, appended %llu, through the ring %llu, "
               "counted only %llu\n",
               seconds_since(t.start), t.attach, u(t.modules), t.module_bytes / 1e6, t.module_loaded, u(t.patched),
               t.patch, t.patch_file, t.context, u(t.launches), t.launch_begin, t.sync, t.copy, t.merge, u(t.records),
               t.write, u(t.written_modules), t.written_bytes / 1e6, ours, u(t.merged), u(t.entries), u(t.appended),
               u(t.ring), u(t.counted));
}

}  // namespace banklab::trace
