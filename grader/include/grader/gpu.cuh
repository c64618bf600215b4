// The GPU tier of the grader: correctness checks and the conflict-free timing target.
//
// Every GPU test starts with BANKLAB_REQUIRE_GPU(): without a GPU (with no driver,
// cudaGetDeviceCount returns error 35) the test is skipped with the reason, never failed.
// CTest runs each test in its own process with a timeout, so a crash or a hang fails that
// test alone.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "banklab/cuda_check.cuh"
#include "banklab/model.hpp"
#include "banklab/pattern_io.hpp"

/// Skip the current test, with the reason, when no GPU can be used.
#define BANKLAB_REQUIRE_GPU()                                        \
  do {                                                               \
    const char* banklab_reason_ = ::banklab::no_gpu_reason();        \
    if (banklab_reason_[0] != '\0') GTEST_SKIP() << banklab_reason_; \
  } while (0)

namespace grader::gpu {

/// A device array that frees itself. poison() fills it with 0xFF bytes (NaN for floats), so an
/// element the kernel forgot to write can never look right.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&p_, bytes())); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  void upload(const std::vector<T>& v) {
    CUDA_CHECK(cudaMemcpy(p_, v.data(), std::min(bytes(), v.size() * sizeof(T)), cudaMemcpyHostToDevice));
  }
  void poison() { CUDA_CHECK(cudaMemset(p_, 0xFF, bytes())); }
  std::vector<T> download() const {
    std::vector<T> v(n_);
    CUDA_CHECK(cudaMemcpy(v.data(), p_, bytes(), cudaMemcpyDeviceToHost));
    return v;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

/// A seed that changes every run (printed by tests on failure so a run can be repeated).
inline std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

/// n random floats in [-1, 1), never all-zero data: zeros hide unwritten outputs.
inline std::vector<float> random_floats(std::size_t n, std::uint64_t seed = fresh_seed()) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

/// Passes when every element matches (bit-exact for the data-movement kernels of the labs).
/// On failure lists the first mismatches with index, expected and got.
template <class T>
::testing::AssertionResult AllMatch(const std::vector<T>& expected, const std::vector<T>& got,
                                    const char* what, int max_shown = 8) {
  if (expected.size() != got.size())
    return ::testing::AssertionFailure() << what << ": size " << got.size() << ", expected " << expected.size();
  std::size_t bad = 0;
  std::ostringstream os;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::memcmp(&expected[i], &got[i], sizeof(T)) == 0) continue;
    if (static_cast<int>(bad) < max_shown)
      os << "\n  index " << i << ": expected " << expected[i] << ", got " << got[i];
    ++bad;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << bad << " of " << expected.size()
                                       << " elements are wrong (NaN = never written):" << os.str();
}

/// Passes when the last launch started and ran to the end without an error.
inline ::testing::AssertionResult LaunchSucceeded(const char* what) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << " failed on the GPU: " << cudaGetErrorName(e) << " (" << cudaGetErrorString(e)
         << ")." << (e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure
                         ? " An index went outside an array: check the access function's bounds."
                         : "");
}

/// Waits for the last launch at most `seconds`. A kernel that never ends must fail its test, not
/// hang the grader: past the limit this prints the test's FAILED line and ends the process (a hung
/// kernel cannot be stopped from the host). CTest's timeout is the second line of defence.
inline ::testing::AssertionResult FinishesWithin(double seconds, const char* what) {
  const auto t0 = std::chrono::steady_clock::now();
  while (cudaStreamQuery(0) == cudaErrorNotReady) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) {
      const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
      std::printf("%s did not finish within %.0f s: a loop in the kernel never ends (or the GPU is "
                  "far too busy).\n[  FAILED  ] %s.%s (the kernel hangs)\n",
                  what, seconds, t->test_suite_name(), t->name());
      std::fflush(stdout);
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return ::testing::AssertionSuccess();
}

/// Times two launches interleaved (a, b, a, b, ...) with CUDA events; median of `reps` each.
struct Timing {
  double a_ms = 0;
  double b_ms = 0;
};

inline Timing interleaved_median_ms(const std::function<void()>& a, const std::function<void()>& b,
                                    int reps = 31) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  auto time_one = [&](const std::function<void()>& f) {
    CUDA_CHECK(cudaEventRecord(start));
    f();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return static_cast<double>(ms);
  };
  a();  // warm up: module load, first-touch
  b();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> ta, tb;
  for (int i = 0; i < reps; ++i) {
    ta.push_back(time_one(a));
    tb.push_back(time_one(b));
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  auto median = [](std::vector<double>& v) {
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  return {median(ta), median(tb)};
}

// ---- the shared-memory-bound replay harness --------------------------------------------------

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
    for (int r = 0; r < reps; ++r) {
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
  const Timing t = interleaved_median_ms(run_p, run_r, reps);
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

/// Print the model's prediction for one launch of a kernel, for the `ncu` tests to compare
/// with Nsight Compute's counts (see grader/run_gpu_tool.py).
inline void announce_model_prediction(const char* kernel, long long ld_wavefronts, long long st_wavefronts) {
  std::printf("[ MODEL    ] kernel=%s ld=%lld st=%lld\n", kernel, ld_wavefronts, st_wavefronts);
  std::fflush(stdout);
}

/// True when BANKLAB_PERF is set: the performance script (bench/gpu_perf.sh) asks the GPU tests
/// for extra figures (cycles per instruction, full-size transposes). Never changes a verdict.
inline bool perf_mode() { return std::getenv("BANKLAB_PERF") != nullptr; }

namespace detail {
// The fair baseline for a tiled transpose (as in cuda-samples' transpose.cu): the same 32x8
// thread blocks moving a 32x32 tile, four rows per thread, both sides coalesced.
inline constexpr int kCopyTile = 32;
inline constexpr int kCopyBlockRows = 8;
template <int Tile, int BlockRows>  // a template, so the header may be included anywhere
__global__ void copy_tiled(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = static_cast<int>(blockIdx.x) * Tile + static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(blockIdx.y) * Tile + static_cast<int>(threadIdx.y);
  // All loads first, then all stores: like the transpose, each thread keeps Tile / BlockRows loads
  // in flight (interleaved load/store pairs would leave one, and make the baseline slow).
  float v[Tile / BlockRows];
#pragma unroll
  for (int j = 0; j < Tile / BlockRows; ++j) v[j] = in[static_cast<long>(y + j * BlockRows) * n + x];
#pragma unroll
  for (int j = 0; j < Tile / BlockRows; ++j) out[static_cast<long>(y + j * BlockRows) * n + x] = v[j];
}
}  // namespace detail

/// A transpose (or any n x n float kernel) timed against the tiled copy of the same size,
/// interleaved, median of `reps`. Prints "[ BANDWIDTH] ..." with both bandwidths and the fraction.
/// Returns transpose bandwidth / copy bandwidth.
inline double fraction_of_copy_bandwidth(const char* what, const std::function<void()>& launch,
                                         const float* in, float* out, int n, int reps = 21) {
  const dim3 grid(static_cast<unsigned>(n / detail::kCopyTile), static_cast<unsigned>(n / detail::kCopyTile));
  const dim3 block(detail::kCopyTile, detail::kCopyBlockRows);
  auto copy = [=] {
    detail::copy_tiled<detail::kCopyTile, detail::kCopyBlockRows><<<grid, block>>>(in, out, n);
    CUDA_CHECK(cudaGetLastError());
  };
  const Timing t = interleaved_median_ms(launch, copy, reps);
  const double bytes = 2.0 * static_cast<double>(n) * n * sizeof(float);
  const double gbs = bytes / (t.a_ms * 1e6), copy_gbs = bytes / (t.b_ms * 1e6);
  std::printf("[ BANDWIDTH] %s: %dx%d floats, %.1f GB/s vs tiled copy %.1f GB/s = %.1f %% of copy\n",
              what, n, n, gbs, copy_gbs, 100.0 * gbs / copy_gbs);
  std::fflush(stdout);
  return gbs / copy_gbs;
}

/// The transpose of `in` (`height` rows of `width`): out[c * height + r] = in[r * width + c].
inline std::vector<float> cpu_transpose(const std::vector<float>& in, int width, int height) {
  std::vector<float> out(in.size());
  for (std::size_t r = 0; r < static_cast<std::size_t>(height); ++r)
    for (std::size_t c = 0; c < static_cast<std::size_t>(width); ++c)
      out[c * height + r] = in[r * width + c];
  return out;
}

/// Runs `launch(out, in, width, height)` once on fresh random input with poisoned output and
/// checks every element against a CPU transpose; a hang, a crash or a wrong element fails.
template <class Launch>
::testing::AssertionResult TransposesCorrectly(const char* what, Launch launch, int width, int height) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  const std::vector<float> in = random_floats(n);
  DeviceBuffer<float> d_in(n), d_out(n);
  d_in.upload(in);
  d_out.poison();
  launch(d_out.get(), d_in.get(), width, height);
  FinishesWithin(20.0, what);
  if (auto ok = LaunchSucceeded(what); !ok) return ok;
  const std::string name = std::string(what) + " of a " + std::to_string(height) + " x " +
                           std::to_string(width) + " matrix (out[c * height + r] = in[r * width + c])";
  return AllMatch(cpu_transpose(in, width, height), d_out.download(), name.c_str());
}

/// Times an n x n float transpose `launch(out, in, n, n)` against the tiled copy (printing the
/// fraction of copy bandwidth; the 85 % target lives in bench/gpu_perf.sh, not in a test), then
/// checks that it still transposes correctly. n is 16384 under BANKLAB_PERF, 4096 otherwise.
template <class Launch>
::testing::AssertionResult TransposeMeasuredBesideACopy(const char* what, Launch launch) {
  const int n = perf_mode() ? 16384 : 4096;
  {
    const std::size_t count = static_cast<std::size_t>(n) * n;
    DeviceBuffer<float> d_in(count), d_out(count);
    d_in.upload(random_floats(count));
    float* out = d_out.get();
    const float* in = d_in.get();
    fraction_of_copy_bandwidth(what, [=] { launch(out, in, n, n); }, in, out, n);
  }
  return TransposesCorrectly(what, launch, n, n);
}

/// The conflict-free timing target: passes when the pattern's measured cost relative to the
/// reference is within 10 % of the model's minimum relative to the reference.
template <class P>
::testing::AssertionResult MeetsTimingTarget(const P& p, const char* what) {
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
                "cycles/minimum %.3f\n", what, c, r.predicted, r.minimum, c / r.minimum);
  }
  std::fflush(stdout);
  if (measured_ratio <= 1.10 * target_ratio) return ::testing::AssertionSuccess() << os.str();
  return ::testing::AssertionFailure()
         << os.str() << "\n  The kernel pays for bank conflicts the model predicts: "
         << r.predicted << " wavefronts where " << r.minimum << " would do. See it: "
         << "banklab explain --line \"" << banklab::format_access_line(to_access(p)) << "\"";
}

}  // namespace grader::gpu
