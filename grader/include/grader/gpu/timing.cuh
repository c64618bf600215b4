// GPU timing: two launches interleaved (a, b, a, b, ...) in one process, median of many runs,
// so that clocks, other tenants and warm-up hit both alike.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "banklab/cuda_check.cuh"
#include "grader/watchdog.hpp"

namespace grader::gpu {

/// Times two launches interleaved (a, b, a, b, ...) with CUDA events; median of `reps` each.
struct Timing {
  double a_ms = 0;
  double b_ms = 0;
};

/// The most all the timed runs of one call may take: a kernel that never ends blocks in
/// cudaEventSynchronize, so a Watchdog ends the test's process instead of the judge's limit.
inline constexpr double kTimedRunsSeconds = 60.0;

/// `around_a(rep, after)`, when given, runs outside the timed region before (after = false) and
/// after (after = true) every run of `a`; rep -1 is the warm-up. `what` names `a` in the message
/// of the deadline.
inline Timing interleaved_median_ms(const std::function<void()>& a, const std::function<void()>& b,
                                    int reps = 31, const std::function<void(int, bool)>& around_a = {},
                                    const std::string& what = "the timed kernel") {
  const grader::Watchdog watchdog(kTimedRunsSeconds, what + ", timed beside its reference,");
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
  if (around_a) around_a(-1, false);
  a();  // warm up: module load, first-touch
  if (around_a) {
    CUDA_CHECK(cudaDeviceSynchronize());
    around_a(-1, true);
  }
  b();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> ta, tb;
  for (int i = 0; i < reps; ++i) {
    if (around_a) around_a(i, false);
    ta.push_back(time_one(a));
    if (around_a) around_a(i, true);
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

}  // namespace grader::gpu
