// Instructor-only: the shared-memory instructions of a tiled transpose at the edges of a matrix
// whose sides are not multiples of 32. There the kernel's bounds checks leave lanes inactive:
// at the right edge (w columns left) a row write has lanes 0..w-1; at the bottom edge (h rows
// left) a column read has lanes 0..h-1. Same instructions as the full tile, fewer lanes: any
// layout whose full-tile accesses are conflict-free passes, and a layout that conflicts only
// among the first lanes (an even pad, no pad) fails.
#pragma once

#include <string>
#include <vector>

#include "grader/grader.hpp"

namespace instructor {

/// Every instruction of `table`, once for each count of active lanes 1..31 (lanes 0..n-1).
inline std::vector<grader::Instruction> with_leading_lanes(const grader::AccessTable& table, const std::string& what) {
  std::vector<grader::Instruction> out;
  for (int flat = 0; flat < table.count(); ++flat) {
    for (int n = 1; n < banklab::kWarpSize; ++n) {
      grader::Instruction in = grader::from_table(
          table, flat, what + " #" + std::to_string(flat) + " with only lanes 0-" + std::to_string(n - 1) + " active");
      in.access.mask = (1u << n) - 1u;
      for (int lane = n; lane < banklab::kWarpSize; ++lane) in.access.offset[static_cast<std::size_t>(lane)] = 0u;
      out.push_back(std::move(in));
    }
  }
  return out;
}

}  // namespace instructor
