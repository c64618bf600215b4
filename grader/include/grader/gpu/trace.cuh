// The traced tier: the student's kernels, launched by the judge, run under the Compute
// Sanitizer tracer (tools/trace, no profiler permission needed); every shared-memory warp
// instruction they really executed is explained with the model, and must take the minimum.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "banklab/model.hpp"
#include "banklab/pattern_io.hpp"
#include "grader/grader.hpp"
#include "grader/lab_description.hpp"

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

/// An instruction kind the lab asks its kernel to use (the lab's description names it for the
/// kernel), and how many warp instructions of it the traced work needs at least.
struct RequiredKind {
  banklab::Op op = banklab::Op::LoadMatrix;
  long long count = 0;     ///< at least this many in the traced launch
  std::string described;   ///< the description's instructions of this kind ("a_ldmatrix, b_ldmatrix")
  std::string hint;        ///< what to do instead, for the message
};

/// Runs `launch` (which launches the student's kernels and synchronises) under the tracer and
/// passes when every shared-memory warp instruction took the model's minimum, and none was of a
/// kind the model does not cover. On failure: per source line, instructions, wavefronts against
/// the minimum, and the worst instance drawn with banklab explain.
///
/// The traced launch is one of several: `launch` runs first 1 to 3 times (chosen at random)
/// untraced, then once traced; each is a judged call of the student's launcher, on a fresh module
/// of the student's kernels (student.cuh), with the buffers and sizes of the correctness check
/// whose launch it is. Nothing tells the traced launch from the others.
///
/// `work_minimum` is what the work of the traced launch needs at full warps (the grader's own
/// description: every described instruction at its minimum, times the units of work launched);
/// the traced total must not exceed it, so splitting a warp's access into partial-warp
/// instructions, each at its own minimum, still fails. `work` says what was counted.
/// `required`: the instruction kinds the lab asks for (described_kinds()); the trace must hold at
/// least that many of each, so conflict-free loads of another kind do not stand in for them.
::testing::AssertionResult TracedSharedAccessesAreAtTheMinimum(const std::string& what,
                                                               const std::function<void()>& launch,
                                                               const std::string& hint, long long work_minimum,
                                                               const std::string& work,
                                                               const std::vector<RequiredKind>& required = {});

/// The kinds beyond plain loads and stores (ldmatrix, stmatrix, cp.async, atomics) that the lab's
/// description names for `kernel`, each needed `units` times per described instruction (the
/// probe's table of that instruction says how many there are per unit of work). `hint` goes into
/// every kind's message.
template <std::size_t N>
std::vector<RequiredKind> described_kinds(const grader_desc::Instruction (&described)[N], const std::string& kernel,
                                          long long units, const std::string& hint) {
  std::vector<RequiredKind> kinds;
  for (const grader_desc::Instruction& d : described) {
    banklab::Op op = banklab::Op::Load;
    if (kernel != d.kernel || banklab::parse_op(d.op, op) || op == banklab::Op::Load || op == banklab::Op::Store)
      continue;
    const long long per_unit = std::max(1, grader::answers().access(d.name).count());
    auto it = std::find_if(kinds.begin(), kinds.end(), [op](const RequiredKind& k) { return k.op == op; });
    if (it == kinds.end()) it = kinds.insert(kinds.end(), RequiredKind{op, 0, "", hint});
    it->count += per_unit * units;
    it->described += (it->described.empty() ? "" : ", ") + std::string(d.name);
  }
  return kinds;
}

/// Wavefronts that `units` repetitions of `per_unit` need, each instruction at the model's minimum.
inline long long work_minimum(const std::vector<grader::Instruction>& per_unit, long long units) {
  long long m = 0;
  for (const grader::Instruction& i : per_unit) m += banklab::minimum_wavefronts(i.access);
  return m * units;
}

}  // namespace grader::gpu
