// The traced launch against the layout the student declares (grader/judge/trace_layout.cpp): each
// traced shared-memory warp instruction's lane addresses must be those of one of the description's
// accesses, which the probe evaluated through the student's own access functions. Pure functions
// of the trace's records (no GPU): judge_unit_tests runs them over hand-made records.
#pragma once

#include <string>
#include <vector>

#include "banklab_trace/session.hpp"
#include "grader/gpu/trace.cuh"

namespace grader::gpu {

/// Which of several instances a message quotes: the smallest offsets (then mask), so that the
/// message is the same whatever order the warps ran in (alone or beside other judges).
bool quoted_before(const banklab::WarpAccess& a, const banklab::WarpAccess& b);

/// Traced instructions of a required kind (ldmatrix, stmatrix, ...) with an 8 x 8 matrix (or, for
/// other kinds, a warp) whose lanes' addresses, relative to its first lane's, are none of the
/// description's accesses of that kind: "" when every one is. `source` names the student's file in
/// the message ("" : the trace's own file name).
std::string matrices_not_described(const std::vector<banklab::trace::Instruction>& ins,
                                   const std::vector<RequiredKind>& required, const std::string& source);

/// Traced plain loads and stores (each op that `layout` describes and `required` does not) whose
/// lanes' addresses, as a set relative to its smallest, are those of none of `layout`'s accesses of
/// that op and width: "" when every one is. `layout`: one unit of work's instructions as the
/// student's access functions give them (Work::layout); `functions`: their names for the message
/// (the lab's tables, "tile_index"); `source`: as above. The message names the source line of the
/// smallest such instruction, its lanes' offsets and the description's access it should be.
std::string accesses_off_the_layout(const std::vector<banklab::trace::Instruction>& ins,
                                    const std::vector<grader::Instruction>& layout,
                                    const std::vector<RequiredKind>& required,
                                    const std::vector<std::string>& functions, const std::string& source);

}  // namespace grader::gpu
