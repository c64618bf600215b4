/// @file session.hpp
/// @brief The in-process tracer for the judge: every shared-memory warp instruction the
///        process's kernels execute, with its kernel, pc, source line and lanes.
///
/// How it attaches: the Compute Sanitizer API must see the process's first CUDA call. Session()
/// subscribes in process (loading libbanklab_trace_inject.so) when no CUDA call has been made
/// yet; when the process was started with CUDA_INJECTION64_PATH naming that library, the
/// driver has already loaded it and Session talks to it through its C entry points instead.
/// Either way no re-exec is needed. Modules loaded any way (cudaLibraryLoadFromFile included)
/// are patched when they load.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "banklab/model.hpp"

namespace banklab::trace {

/// Instruction::source_banks of a lane that read no global memory (zero fill).
inline constexpr std::uint8_t kNoSourceBank = 0xff;

/// One distinct warp instruction. Identical warp instructions of one pc (same lanes, same
/// offsets) are merged, with `count` saying how many times it ran.
struct Instruction {
  std::string kernel;          ///< kernel (function) name as the module spells it (mangled)
  std::uint64_t pc = 0;        ///< offset of the instruction in its kernel's code
  std::string file;            ///< source file ("" without -lineinfo)
  int line = 0;                ///< source line (0 without -lineinfo)
  banklab::WarpAccess access;  ///< op, width, active lanes, offsets from the first __shared__ byte
  std::uint64_t count = 0;     ///< how many times this exact warp instruction ran
  /// cp.async recorded with its global side: lane i's source bank, (global address / 4) % 32,
  /// or kNoSourceBank for a lane that read nothing (a zero-filling copy, src-size 0: the callback
  /// gives it no source). Absent (trace files of the tracer before it kept sources): the model
  /// takes lane i's source at 16 * i.
  std::optional<std::array<std::uint8_t, kWarpSize>> source_banks;
};

/// Shared-memory instructions the model does not describe, counted per pc.
struct Unmodelled {
  std::string kernel;   ///< kernel name
  std::uint64_t pc = 0; ///< offset in the kernel's code
  std::string what;     ///< "bulk copy (...)", "distributed shared memory", "wgmma operand",
                        ///< "TMA load (...)", "TMA store (...)", "st.async / red.async (...)", or
                        ///< "invalid: <why>" (trace.cpp, kind_name())
  std::uint64_t count = 0;  ///< warp instructions
};

/// The tracer, in process. Create it before the process's first CUDA call.
class Session {
 public:
  /// Why tracing cannot work in this process, or "" when it can (API found and attached).
  static std::string unavailable_reason();
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  /// Forget the records so far.
  void clear();
  /// The warp instructions recorded since the last take/clear (call after
  /// cudaDeviceSynchronize()). Records a full device buffer could not hold are not here:
  /// dropped() says how many.
  std::vector<Instruction> take_instructions();
  /// The unmodelled instructions recorded since the last take/clear.
  std::vector<Unmodelled> take_unmodelled();
  /// Warp instructions executed but not recorded (device buffer full) since the last clear.
  std::uint64_t dropped() const;
};

}  // namespace banklab::trace
