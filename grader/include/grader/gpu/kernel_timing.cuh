// The whole-kernel timing target: the student's own kernel, launched by the judge, timed
// interleaved with the judge's conflict-free reference of the same work in one process, median
// of many runs. It passes when the student's kernel is at most 10 % slower.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <sstream>
#include <string>

#include "grader/gpu/buffers.cuh"
#include "grader/gpu/timing.cuh"

namespace grader::gpu {

/// How much slower than the reference the student's kernel may be.
inline constexpr double kKernelTimingTolerance = 0.10;
/// Timed runs of each kernel (median).
inline constexpr int kKernelTimingReps = 31;

/// The output of the student's timed runs is checked too: `poison` fills the student's output
/// with NaN before the warm-up, a run chosen at random and the last run, and `verify` checks it
/// against the grader's oracle after each of them (the reference writes an output of its own).
inline ::testing::AssertionResult KernelMeetsTimingTarget(const std::string& what, const std::function<void()>& student,
                                                          const std::function<void()>& reference,
                                                          const std::function<void()>& poison,
                                                          const std::function<::testing::AssertionResult()>& verify) {
  const int checked = static_cast<int>(fresh_seed() % (kKernelTimingReps - 1));
  ::testing::AssertionResult outputs = ::testing::AssertionSuccess();
  auto around = [&](int rep, bool after) {
    if (rep != -1 && rep != checked && rep != kKernelTimingReps - 1) return;
    if (!after) {
      poison();
      CUDA_CHECK(cudaDeviceSynchronize());
      return;
    }
    if (!outputs) return;
    CUDA_CHECK(cudaDeviceSynchronize());
    if (auto ok = verify(); !ok)
      outputs = ::testing::AssertionFailure() << what << ": the output of timed run " << (rep < 0 ? 0 : rep + 1)
                                              << (rep < 0 ? " (the warm-up)" : "") << " is wrong: " << ok.message();
  };
  const Timing t = interleaved_median_ms(student, reference, kKernelTimingReps, around, what);
  if (!outputs) return outputs;
  const double ratio = t.a_ms / t.b_ms;
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(3);
  os << what << ": your kernel " << t.a_ms << " ms, the grader's conflict-free kernel for the same work "
     << t.b_ms << " ms (median of " << kKernelTimingReps << " runs each, interleaved): ";
  os.precision(2);
  os << ratio << "x; target: at most " << 1.0 + kKernelTimingTolerance << "x.";
  std::printf("[ TIMING   ] %s\n", os.str().c_str());
  std::fflush(stdout);
  if (ratio <= 1.0 + kKernelTimingTolerance) return ::testing::AssertionSuccess() << os.str();
  return ::testing::AssertionFailure()
         << os.str() << "\n  Your kernel pays for something the reference does not: usually bank conflicts. The "
         << "Layout tests and the traced test of this lab show which instructions.";
}

}  // namespace grader::gpu
