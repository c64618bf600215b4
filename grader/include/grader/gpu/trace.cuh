// The traced tier: the student's kernels, launched by the judge, run under the Compute
// Sanitizer tracer (trace/, no profiler permission needed); every shared-memory warp
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
  /// The predictions that ask about one of its instructions over the minimum (grader::asked_about):
  /// then its message states none of its wavefronts or minimums.
  std::string asked;
};

/// An instruction kind the lab asks its kernel to use (the lab's description names it for the
/// kernel), and how many warp instructions of it the traced work needs at least.
struct RequiredKind {
  banklab::Op op = banklab::Op::LoadMatrix;
  long long count = 0;     ///< at least this many in the traced launch
  std::string described;   ///< the description's instructions of this kind ("a_ldmatrix, b_ldmatrix")
  std::string hint;        ///< what to do instead, for the message
  /// The description's accesses of this kind (one unit of work's): every traced instruction of the
  /// kind must be one of them, moved as a whole (the tile's base is the kernel's).
  std::vector<banklab::WarpAccess> accesses;
};

/// What one kind of shared-memory instruction (one op) of the work costs at full warps.
struct KindWork {
  long long instructions = 0;  ///< warp instructions
  long long wavefronts = 0;    ///< each at the model's minimum
  long long lane_bytes = 0;    ///< bytes the active lanes name (lanes x width): wider vectors need fewer instructions, not fewer bytes
};

/// The work of a traced launch, per kind of instruction: the traced launch must take exactly its
/// wavefronts of each kind, and name at least its bytes.
struct Work {
  std::map<banklab::Op, KindWork> kinds;
  /// One unit of work's instructions as the student's access functions give them (the probe's
  /// tables): every traced instruction of an op they describe must have the lane addresses of one
  /// of them (trace_layout.cpp), so that the kernel runs the layout the CPU tier judged.
  std::vector<grader::Instruction> layout;
  long long wavefronts() const {
    long long w = 0;
    for (const auto& [op, k] : kinds) w += k.wavefronts;
    return w;
  }
  Work& operator+=(const Work& o) {
    for (const auto& [op, k] : o.kinds) {
      KindWork& m = kinds[op];
      m.instructions += k.instructions;
      m.wavefronts += k.wavefronts;
      m.lane_bytes += k.lane_bytes;
    }
    layout.insert(layout.end(), o.layout.begin(), o.layout.end());
    return *this;
  }
  friend Work operator+(Work a, const Work& b) { return a += b; }
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
/// description: every described instruction at its minimum, times the units of work launched),
/// per kind of instruction. The traced wavefronts of each kind must equal it exactly: more means
/// a warp's access split into partial-warp instructions (each at its own minimum) or repeated;
/// fewer, or fewer bytes named by the lanes than the work's, means part of the work went around
/// shared memory (a kernel that tells the traced launch apart can only take its clean path).
/// `work` says what was counted.
/// `required`: the instruction kinds the lab asks for (described_kinds()); the trace must hold at
/// least that many of each, so conflict-free loads of another kind do not stand in for them, and
/// each traced instruction of such a kind must be one of the description's accesses (moved by the
/// tile's base), so an ldmatrix of other rows does not stand in for the operands' loads.
/// Likewise every traced plain load and store of an op that `work_minimum.layout` describes must
/// touch the addresses of one of its accesses (as a set, moved by the tile's base): a kernel that
/// stages through another layout than its access functions' (and moves the data between lanes
/// some other way) fails, the message naming its source line and the access it should be.
::testing::AssertionResult TracedSharedAccessesAreAtTheMinimum(const std::string& what,
                                                               const std::function<void()>& launch,
                                                               const std::string& hint, const Work& work_minimum,
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
    if (it == kinds.end()) it = kinds.insert(kinds.end(), RequiredKind{op, 0, "", hint, {}});
    it->count += per_unit * units;
    it->described += (it->described.empty() ? "" : ", ") + std::string(d.name);
    const grader::AccessTable& table = grader::answers().access(d.name);
    for (int i = 0; i < table.count(); ++i) it->accesses.push_back(grader::from_table(table, i, d.name).access);
  }
  return kinds;
}

/// Whose layout `per_unit` is: the student's (the probe's access tables: the traced addresses
/// must be theirs) or the grader's own formula (counted, its addresses not required).
enum class Layout { Students, Counted };

/// What `units` repetitions of `per_unit` need, per kind, each instruction at the model's minimum;
/// with Layout::Students, `per_unit` is also the layout every traced instruction must follow.
inline Work work_minimum(const std::vector<grader::Instruction>& per_unit, long long units,
                         Layout layout = Layout::Students) {
  Work w;
  if (layout == Layout::Students) w.layout = per_unit;
  for (const grader::Instruction& i : per_unit) {
    KindWork& k = w.kinds[i.access.op];
    k.instructions += units;
    k.wavefronts += banklab::minimum_wavefronts(i.access) * units;
    k.lane_bytes += static_cast<long long>(__builtin_popcount(i.access.mask)) * i.access.width * units;
  }
  return w;
}

}  // namespace grader::gpu
