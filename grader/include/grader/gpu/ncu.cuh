// What the model predicts for one launch of a student's kernel, printed for the optional Nsight
// Compute cross-check (grader/run_gpu_tool.py --tool ncu): ncu's shared wavefront count of a
// busy kernel is a lower bound check only (it counts extra wavefronts that no instruction
// explains), never a verdict on the student.
#pragma once

#include <cstdio>
#include <vector>

#include "grader/grader.hpp"

namespace grader::gpu {

/// Prints "[ MODEL    ] kernel=NAME ld=N st=M" (M = -1: the stores are not described).
inline void announce_model_prediction(const char* kernel, long long ld_wavefronts, long long st_wavefronts) {
  std::printf("[ MODEL    ] kernel=%s ld=%lld st=%lld\n", kernel, ld_wavefronts, st_wavefronts);
  std::fflush(stdout);
}

/// The model's wavefronts for `copies` copies of a list of described instructions.
inline void announce_model_prediction(const char* kernel, const std::vector<Instruction>& per_copy, long long copies,
                                      bool stores_described = true) {
  announce_model_prediction(kernel, copies * total_wavefronts(per_copy, banklab::Op::Load),
                            stores_described ? copies * total_wavefronts(per_copy, banklab::Op::Store) : -1);
}

}  // namespace grader::gpu
