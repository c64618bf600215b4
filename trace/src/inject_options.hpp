// The injection library's settings, read once from the environment (trace/README.md):
//   BANKLAB_TRACE_BUFFER_MB       device buffer of appended records (default 256)
//   BANKLAB_TRACE_MERGE           1: merge identical warp records on the device (format.hpp,
//                                 MergeEntry), 0: append every one; default kMergeByDefault
//   BANKLAB_TRACE_MERGE_ENTRIES   distinct records a launch's table holds (default 2^19: 108 MiB)
//   BANKLAB_TRACE_DEVICE          record (default) | empty | count: diagnostics that patch the same
//                                 instructions with a callback that does nothing, or that only
//                                 counts warp instructions (nothing is recorded; the report is empty)
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "banklab_trace/format.hpp"

namespace banklab::trace {

/// Device-side merging is on (BANKLAB_TRACE_MERGE=0 appends every record instead): on an H200 the
/// cuBLAS program's 3,770,656 warp records traced to 11,671,568 wavefronts, equal to ncu's
/// instruction-level count, with 0 dropped, in every merge run, also with a 64-entry table (the
/// fallback and the ring), at 0.05 of ncu's overhead against 0.64 appending
/// (bench/trace_overhead_device.sh, docs/perf/trace_overhead_h200.txt).
inline constexpr bool kMergeByDefault = true;

enum class DeviceMode { Record, Empty, Count };

struct InjectOptions {
  std::uint64_t buffer_records = 0;
  bool merge = kMergeByDefault;
  std::uint64_t merge_entries = std::uint64_t{1} << 19;
  DeviceMode mode = DeviceMode::Record;
};

inline const InjectOptions& inject_options() {
  static const InjectOptions o = [] {
    InjectOptions r;
    auto number = [](const char* name, long long fallback) {
      const char* e = std::getenv(name);
      const long long v = e ? std::atoll(e) : 0;
      return v > 0 ? v : fallback;
    };
    r.buffer_records = std::max<std::uint64_t>(
        1, (static_cast<std::uint64_t>(number("BANKLAB_TRACE_BUFFER_MB", 256)) << 20) / sizeof(DeviceRecord));
    if (const char* e = std::getenv("BANKLAB_TRACE_MERGE"); e && *e) r.merge = std::strcmp(e, "0") != 0;
    r.merge_entries = std::min<std::uint64_t>(static_cast<std::uint64_t>(number("BANKLAB_TRACE_MERGE_ENTRIES", 1 << 19)),
                                              std::uint64_t{1} << 30);
    if (const char* e = std::getenv("BANKLAB_TRACE_DEVICE")) {
      if (std::strcmp(e, "empty") == 0) r.mode = DeviceMode::Empty;
      if (std::strcmp(e, "count") == 0) r.mode = DeviceMode::Count;
    }
    return r;
  }();
  return o;
}

/// Slots of a table of `entries` entries: a power of two, at least twice as many.
inline std::uint64_t merge_slot_count(std::uint64_t entries) {
  std::uint64_t n = 2;
  while (n < 2 * entries) n <<= 1;
  return n;
}

}  // namespace banklab::trace
