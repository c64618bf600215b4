// The replay harness: one warp instruction of a lab kernel (its 32 byte offsets, as the
// student's access functions describe it), repeated in a shared-memory-bound loop on every SM
// and timed beside a conflict-free reference of the same op, width and mask. It gives the
// per-instruction figures (measured wavefronts, cycles per warp instruction); the verdict on the
// kernel that really runs comes from the trace (trace.cuh) and the whole-kernel timing
// (kernel_timing.cuh).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>

#include "banklab/cuda_check.cuh"
#include "banklab/model.hpp"
#include "grader/gpu/buffers.cuh"
#include "grader/gpu/timing.cuh"
#include "grader/grader.hpp"

namespace grader::gpu {

/// True when BANKLAB_PERF is set: the performance script (bench/gpu_perf.sh) asks the GPU tests
/// for extra figures (cycles per instruction, full-size transposes). Never changes a verdict.
inline bool perf_mode() { return std::getenv("BANKLAB_PERF") != nullptr; }

/// Instructions each warp issues per timed launch, and warps per block: enough that one
/// launch runs for milliseconds and the shared-memory pipe, not issue or launch, is the limit.
inline constexpr int kReplayIters = 4096;
inline constexpr int kReplayUnroll = 16;
inline constexpr int kReplayWarpsPerBlock = 32;

/// The conflict-free reference of the same op, width and mask: lane i at i * width.
struct ReferencePattern {
  banklab::Op op;
  int width;
  std::uint32_t mask;
  __host__ __device__ std::uint32_t offset(int lane) const {
    return static_cast<std::uint32_t>(lane) * static_cast<std::uint32_t>(width < 4 ? 4 : width);
  }
};

template <class P>
banklab::WarpAccess to_access(const P& p) {
  banklab::WarpAccess a;
  a.op = p.op;
  a.width = p.width;
  a.mask = p.mask;
  for (int lane = 0; lane < banklab::kWarpSize; ++lane)
    a.offset[static_cast<std::size_t>(lane)] = ((p.mask >> lane) & 1u) ? p.offset(lane) : 0u;
  return a;
}

namespace detail {

// One warp-wide instruction, repeated. The lane's offset comes from the pattern's offset()
// computed here, on the GPU, with the lab's own access function. Op and width are template
// parameters so that the loop holds nothing but the access and one XOR (runtime branches in
// the loop made a 1-wavefront access issue-bound at ~3 cycles on an H200). Inactive lanes skip
// the loop, so every access runs with exactly the pattern's mask. asm volatile keeps every
// access (ptxas would merge repeated plain ld.shared of one address): the compiler may neither
// hoist nor merge them.
template <banklab::Op kOp, int kWidth, class P>
__device__ unsigned replay_body(const P& p, int iters, unsigned char* smem) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  unsigned acc = threadIdx.x;
  if (!((p.mask >> lane) & 1u)) return acc;
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem)) + p.offset(lane);
  unsigned x = 0, y = 0, z = 0, w = 0;
  for (int i = 0; i < iters; i += kReplayUnroll) {
#pragma unroll
    for (int u = 0; u < kReplayUnroll; ++u) {
      if constexpr (kOp == banklab::Op::Store) {
        if constexpr (kWidth == 16)
          asm volatile("st.volatile.shared.v4.u32 [%0], {%1,%1,%1,%1};" ::"r"(addr), "r"(acc) : "memory");
        else if constexpr (kWidth == 8)
          asm volatile("st.volatile.shared.v2.u32 [%0], {%1,%1};" ::"r"(addr), "r"(acc) : "memory");
        else
          asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(addr), "r"(acc) : "memory");
      } else if constexpr (kWidth == 16) {
        asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(addr));
        acc ^= x ^ y ^ z ^ w;
      } else if constexpr (kWidth == 8) {
        asm volatile("ld.volatile.shared.v2.u32 {%0,%1}, [%2];" : "=r"(x), "=r"(y) : "r"(addr));
        acc ^= x ^ y;
      } else {
        asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(addr));
        acc ^= x;
      }
    }
  }
  return acc;
}

template <banklab::Op kOp, int kWidth, class P>
__global__ void __launch_bounds__(kReplayWarpsPerBlock * 32) replay(P p, int iters, unsigned* sink) {
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned acc = replay_body<kOp, kWidth>(p, iters, smem);
  if (acc == 0x9e3779b9u) sink[0] = acc;  // keeps the loads alive; practically never true
}

// The same, one block on one SM, timed with the SM's own clock.
template <banklab::Op kOp, int kWidth, class P>
__global__ void __launch_bounds__(kReplayWarpsPerBlock * 32) replay_clocked(P p, int iters, unsigned* sink, long long* cycles) {
  extern __shared__ __align__(16) unsigned char smem[];
  __syncthreads();
  const long long t0 = clock64();
  const unsigned acc = replay_body<kOp, kWidth>(p, iters, smem);
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
  if (acc == 0x9e3779b9u) sink[0] = acc;
}

// Calls F<Op, Width>::run(p, args...) for the pattern's runtime op and width.
template <template <banklab::Op, int> class F, class P, class... A>
auto dispatch(const P& p, A... args) {
  using banklab::Op;
  const bool st = p.op == Op::Store;
  switch (p.width) {
    case 16: return st ? F<Op::Store, 16>::run(p, args...) : F<Op::Load, 16>::run(p, args...);
    case 8: return st ? F<Op::Store, 8>::run(p, args...) : F<Op::Load, 8>::run(p, args...);
    default: return st ? F<Op::Store, 4>::run(p, args...) : F<Op::Load, 4>::run(p, args...);
  }
}

template <class P>
std::uint32_t smem_bytes_for(const P& p) {
  std::uint32_t top = 0;
  for (int lane = 0; lane < banklab::kWarpSize; ++lane)
    if ((p.mask >> lane) & 1u)
      top = std::max(top, p.offset(lane) + static_cast<std::uint32_t>(p.width < 4 ? 4 : p.width));
  return std::max<std::uint32_t>((top + 15u) & ~15u, 16u);
}

template <banklab::Op kOp, int kWidth>
struct Launcher {
  template <class P>
  static std::function<void()> run(const P& p, unsigned* sink, int blocks) {
    const std::uint32_t smem = smem_bytes_for(p);
    CUDA_CHECK(cudaFuncSetAttribute(replay<kOp, kWidth, P>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem)));
    return [=] {
      replay<kOp, kWidth, P><<<blocks, kReplayWarpsPerBlock * 32, smem>>>(p, kReplayIters, sink);
      CUDA_CHECK(cudaGetLastError());
    };
  }
};

template <banklab::Op kOp, int kWidth>
struct Clocked {
  // Best of `reps` runs of one block of 32 warps: cycles per warp instruction.
  template <class P>
  static double run(const P& p, unsigned* sink, long long* cycles, int reps) {
    const std::uint32_t smem = smem_bytes_for(p);
    CUDA_CHECK(cudaFuncSetAttribute(replay_clocked<kOp, kWidth, P>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    double best = 1e300;
    TimedRunLock gpu_lock;  // the GPU alone for each clocked run (grader/gpu/gpu_lock.hpp)
    for (int r = 0; r < reps; ++r) {
      const TimedRunLock::Held alone = gpu_lock.hold();
      replay_clocked<kOp, kWidth, P><<<1, kReplayWarpsPerBlock * 32, smem>>>(p, kReplayIters, sink, cycles);
      CUDA_CHECK(cudaGetLastError());
      long long c = 0;
      CUDA_CHECK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
      best = std::min(best, static_cast<double>(c) / (static_cast<double>(kReplayIters) * kReplayWarpsPerBlock));
    }
    return best;
  }
};

template <class P>
std::function<void()> replay_launcher(const P& p, unsigned* sink, int blocks) {
  return dispatch<Launcher>(p, sink, blocks);
}

}  // namespace detail

/// What the timing harness measured for one pattern.
struct TimingResult {
  double pattern_ms = 0, reference_ms = 0;
  int predicted = 0, minimum = 0, reference = 0;  ///< wavefronts by the model
  /// Wavefronts per instruction implied by the timing: reference wavefronts x time ratio.
  double measured_wavefronts() const { return reference * pattern_ms / reference_ms; }
};

/// Replay `p` and its conflict-free reference on the GPU, interleaved, median of `reps` runs.
template <class P>
TimingResult time_pattern(const P& p, int reps = 21) {
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  DeviceBuffer<unsigned> sink(1);
  const ReferencePattern ref{p.op, p.width, p.mask};
  // Two blocks of 32 warps per SM (when shared memory allows) keep every SM's pipe busy.
  const int blocks = 2 * sms;
  auto run_p = detail::replay_launcher(p, sink.get(), blocks);
  auto run_r = detail::replay_launcher(ref, sink.get(), blocks);
  const Timing t = interleaved_median_ms(run_p, run_r, reps, {}, "the replayed access pattern");
  TimingResult r;
  r.pattern_ms = t.a_ms;
  r.reference_ms = t.b_ms;
  r.predicted = banklab::count_wavefronts(to_access(p));
  r.minimum = banklab::minimum_wavefronts(to_access(p));
  r.reference = banklab::count_wavefronts(to_access(ref));
  return r;
}

/// Cycles per warp instruction: 32 warps of one block on one SM replay `p`; elapsed clock64()
/// cycles / (iterations x warps), minimum of `reps` runs. The SM serves one wavefront per clock,
/// so this equals the instruction's wavefronts when the pattern is shared-memory bound.
template <class P>
double cycles_per_warp_instruction(const P& p, int reps = 5) {
  DeviceBuffer<unsigned> sink(1);
  DeviceBuffer<long long> cycles(1);
  return detail::dispatch<detail::Clocked>(p, sink.get(), cycles.get(), reps);
}


/// A warp instruction given by its 32 byte offsets (from the probe's access tables).
struct TablePattern {
  banklab::Op op = banklab::Op::Load;
  int width = 4;
  std::uint32_t mask = 0xffffffffu;
  std::uint32_t off[banklab::kWarpSize] = {};
  __host__ __device__ std::uint32_t offset(int lane) const { return off[lane]; }
};

inline TablePattern pattern_of(const banklab::WarpAccess& a) {
  TablePattern p;
  p.op = a.op;
  p.width = a.width;
  p.mask = a.mask;
  for (int lane = 0; lane < banklab::kWarpSize; ++lane) p.off[lane] = a.offset[static_cast<std::size_t>(lane)];
  return p;
}

/// The conflict-free timing target: passes when the pattern's measured cost relative to the
/// reference is within 10 % of the model's minimum relative to the reference.
template <class P>
::testing::AssertionResult MeetsTimingTarget(const P& p, const std::string& what) {
  const TimingResult r = time_pattern(p);
  const double measured_ratio = r.pattern_ms / r.reference_ms;
  const double target_ratio = static_cast<double>(r.minimum) / r.reference;
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(2);
  os << what << ": measured " << r.measured_wavefronts() << " wavefronts per instruction ("
     << r.pattern_ms << " ms vs " << r.reference_ms << " ms for the conflict-free reference of "
     << r.reference << "), model predicts " << r.predicted << ", minimum " << r.minimum
     << "; target: at most " << 1.10 * target_ratio << "x the reference, measured "
     << measured_ratio << "x.";
  std::printf("[ TIMING   ] %s\n", os.str().c_str());
  if (perf_mode()) {
    const double c = cycles_per_warp_instruction(p);
    std::printf("[ CYCLES   ] %s: %.3f cycles per warp instruction, model %d wavefronts, minimum %d, "
                "cycles/minimum %.3f\n", what.c_str(), c, r.predicted, r.minimum, c / r.minimum);
  }
  std::fflush(stdout);
  if (measured_ratio <= 1.10 * target_ratio) return ::testing::AssertionSuccess() << os.str();
  // A prediction asks about this access and it is over its minimum (the stub's layout: its count is
  // the prediction's answer; grader::asked_about): the verdict names the predictions in place of the
  // figures. (The [ TIMING ] line above is the measurement's log, which the benchmarks read.)
  if (const std::string asked = grader::asked_about(to_access(p)); !asked.empty() && r.predicted > r.minimum)
    return ::testing::AssertionFailure()
           << what << ": slower than its timing target (at most 1.10 times the time of its conflict-free "
           << "reference, the model's minimum for its width and lanes): the kernel pays for bank conflicts. It "
           << grader::left_to_predictions(banklab::analyze(to_access(p)), asked)
           << "  Check yourself: " << grader::self_check_command(banklab::to_string(p.op), p.width);
  return ::testing::AssertionFailure()
         << os.str() << "\n  The kernel pays for bank conflicts the model predicts: "
         << r.predicted << " wavefronts where " << r.minimum << " would do. See it: "
         << grader::explain_command(to_access(p));
}


/// The timing target for one instruction of the kernel, as the student's file describes it.
inline ::testing::AssertionResult MeetsTimingTarget(const grader::Instruction& in) {
  if (!in.invalid.empty())
    return ::testing::AssertionFailure() << in.what << ": not a valid shared-memory access: " << in.invalid;
  return MeetsTimingTarget(pattern_of(in.access), in.what);
}

/// The timing target for warp `warp`'s instruction of one of the kernel's instructions (a list of
/// one per warp, as the description's dims give it for the graded variant): a variant whose tile
/// has fewer warps times its last, never an instruction past the list's end.
inline ::testing::AssertionResult MeetsTimingTarget(const std::vector<grader::Instruction>& per_warp, std::size_t warp) {
  if (per_warp.empty()) return ::testing::AssertionFailure() << "no instruction to time: the description lists none";
  return MeetsTimingTarget(per_warp[std::min(warp, per_warp.size() - 1)]);
}

}  // namespace grader::gpu
