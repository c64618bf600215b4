// The traced tier: the student's kernels, launched by the judge, run under the Compute
// Sanitizer tracer (tools/trace, no profiler permission needed); every shared-memory warp
// instruction they really executed is explained with the model, and must take the minimum.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "banklab/model.hpp"
#include "grader/grader.hpp"

#if defined(BANKLAB_HAVE_TRACE)
#include "banklab_trace/session.hpp"
#endif

/// Skip (fail in graded mode) when the tracer cannot run here.
#define BANKLAB_REQUIRE_TRACE()                                                   \
  do {                                                                           \
    const std::string banklab_reason_ = ::grader::gpu::trace_unavailable_reason(); \
    if (!banklab_reason_.empty()) GTEST_SKIP() << banklab_reason_;               \
  } while (0)

namespace grader::gpu {

/// Starts the tracer; banklab-judge calls it before the first CUDA call of a traced test.
void start_trace_session();

/// Why the tracer cannot run in this process ("" when it can).
std::string trace_unavailable_reason();

/// One line of the student's file as the trace saw it.
struct TracedLine {
  std::string kernel, file;
  int line = 0;
  long long instructions = 0, wavefronts = 0, minimum = 0;
  banklab::WarpAccess worst{};
  int worst_excess = -1;
};

/// Runs `launch` (which launches the student's kernels and synchronises) under the tracer and
/// passes when every shared-memory warp instruction took the model's minimum, and none was of a
/// kind the model does not cover. On failure: per source line, instructions, wavefronts against
/// the minimum, and the worst instance drawn with banklab explain.
///
/// `work_minimum` is what the work of the traced launch needs at full warps (the grader's own
/// description: every described instruction at its minimum, times the units of work launched);
/// the traced total must not exceed it, so splitting a warp's access into partial-warp
/// instructions, each at its own minimum, still fails. `work` says what was counted.
::testing::AssertionResult TracedSharedAccessesAreAtTheMinimum(const std::string& what,
                                                               const std::function<void()>& launch,
                                                               const std::string& hint, long long work_minimum,
                                                               const std::string& work);

/// Wavefronts that `units` repetitions of `per_unit` need, each instruction at the model's minimum.
inline long long work_minimum(const std::vector<grader::Instruction>& per_unit, long long units) {
  long long m = 0;
  for (const grader::Instruction& i : per_unit) m += banklab::minimum_wavefronts(i.access);
  return m * units;
}

}  // namespace grader::gpu
