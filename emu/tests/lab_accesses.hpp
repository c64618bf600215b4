// The shared-memory accesses labs 00, 01, 06 and 07 describe (their lab.toml's [[instructions]]),
// computed from each kernel.cu's own access functions exactly as the lab's probe
// (labs/NN/judge/probe.cu) computes them for the judge: the work the GPU tier's traced test costs
// with the model.
#pragma once
#include <vector>

#include "banklab/model.hpp"

namespace banklab::emu::test {

/// The accesses of one unit of work (a tile of lab 00, 32 rows of lab 01, one block's step of k of
/// lab 06) that one source line of kernel.cu makes: its op, a piece of that line's text (which
/// tells it from the lab's other lines of the same op), its warp instructions.
struct Group {
  Op op;
  const char* marker;
  std::vector<WarpAccess> accesses;
};
struct Described {
  std::vector<Group> groups;
};
Described lab00_multiply_by_i(bool solution);
Described lab01_row_sums(bool solution);
Described lab06_gemm(bool solution);
Described lab07_gemm(bool solution);
/// Lab 07's mode and box as its kernel.cu declares them: what the judge's tensor maps are encoded with.
struct Lab07Maps {
  int swizzle_bytes, box_bytes, boxes_per_tile;
};
Lab07Maps lab07_maps(bool solution);

}  // namespace banklab::emu::test
