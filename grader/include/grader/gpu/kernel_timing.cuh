// The whole-kernel timing target: the student's own kernel, launched by the judge, timed
// interleaved with the judge's conflict-free reference of the same work in one process, median
// of many runs. It passes when the student's kernel is at most 10 % slower.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>

#include "grader/gpu/buffers.cuh"
#include "grader/gpu/student.cuh"
#include "grader/gpu/timing.cuh"

namespace grader::gpu {

/// How much slower than the reference the student's kernel may be.
inline constexpr double kKernelTimingTolerance = 0.10;
/// Timed runs of each kernel (median).
inline constexpr int kKernelTimingReps = 31;

/// Every run of the student's kernel is judged as it runs: before each (the warm-up and every
/// timed run, outside the timed region) `poison` fills the student's output with NaN and the
/// student's kernels are loaded anew (fresh_student_module(): no `__device__` state survives from
/// the run before), and after each `verify` checks the output against the grader's oracle (the
/// reference writes an output of its own). A kernel cannot tell a checked run from another, or
/// skip work when its output already holds the answer. Both kernels start every timed run with a
/// clean L2 (the poisoning and the checks touch only the student's buffers). A lab whose valid
/// kernels differ from the reference by more than kKernelTimingTolerance for reasons it does not
/// teach passes its own `tolerance`, and `why_tolerance` says why in the message.
inline ::testing::AssertionResult KernelMeetsTimingTarget(const std::string& what, const std::function<void()>& student,
                                                          const std::function<void()>& reference,
                                                          const std::function<void()>& poison,
                                                          const std::function<::testing::AssertionResult()>& verify,
                                                          double tolerance = kKernelTimingTolerance,
                                                          const std::string& why_tolerance = "") {
  ::testing::AssertionResult outputs = ::testing::AssertionSuccess();
  // Seconds spent around the timed runs, printed when BANKLAB_TIMING_PHASES is set (the throughput
  // benchmark's breakdown, bench/gpu_throughput.py): poisoning, the fresh module, the checks.
  using clock = std::chrono::steady_clock;
  double poison_s = 0, module_s = 0, verify_s = 0;
  auto since = [](clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); };
  const clock::time_point t_all = clock::now();
  const double waited_before = detail::gpu_lock_waited_s();
  auto around = [&](int rep, bool after) {
    clock::time_point t0 = clock::now();
    if (!after) {
      poison();
      CUDA_CHECK(cudaDeviceSynchronize());
      poison_s += since(t0);
      t0 = clock::now();
      CUDA_CHECK(fresh_student_module());
      CUDA_CHECK(cudaDeviceSynchronize());
      module_s += since(t0);
      return;
    }
    if (!outputs) return;
    CUDA_CHECK(cudaDeviceSynchronize());
    if (auto ok = verify(); !ok)
      outputs = ::testing::AssertionFailure() << what << ": the output of timed run " << (rep < 0 ? 0 : rep + 1)
                                              << (rep < 0 ? " (the warm-up)" : "") << " is wrong: " << ok.message();
    verify_s += since(t0);
  };
  const Timing t = interleaved_median_ms(student, reference, kKernelTimingReps, around, what, true);
  if (const char* phases = std::getenv("BANKLAB_TIMING_PHASES"); phases != nullptr && phases[0] != '\0') {
    // A path: the line is appended there (a grade keeps no test's output), else printed.
    std::FILE* to = phases[0] == '/' ? std::fopen(phases, "a") : nullptr;
    const double all_s = since(t_all);
    std::fprintf(to ? to : stdout,
                 "[ PHASES   ] %s: %.3f s in all; poisoning %.3f s, fresh modules %.3f s, output checks %.3f s, "
                 "the rest (timed runs, L2 cleaning, the lock) %.3f s; waits for the lock, in any of them, %.3f s\n",
                 what.c_str(), all_s, poison_s, module_s, verify_s, all_s - poison_s - module_s - verify_s,
                 detail::gpu_lock_waited_s() - waited_before);
    if (to) std::fclose(to);
    std::fflush(stdout);
  }
  if (!outputs) return outputs;
  const double ratio = t.a_ms / t.b_ms;
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(3);
  os << what << ": your kernel " << t.a_ms << " ms, the grader's conflict-free kernel for the same work "
     << t.b_ms << " ms (median of " << kKernelTimingReps << " runs each, interleaved): ";
  os.precision(2);
  os << ratio << "x; target: at most " << 1.0 + tolerance << "x" << why_tolerance << ".";
  std::printf("[ TIMING   ] %s\n", os.str().c_str());
  std::fflush(stdout);
  if (ratio <= 1.0 + tolerance) return ::testing::AssertionSuccess() << os.str();
  return ::testing::AssertionFailure()
         << os.str() << "\n  Your kernel pays for something the reference does not: usually bank conflicts. The "
         << "Layout tests and the traced test of this lab show which instructions.";
}

}  // namespace grader::gpu
