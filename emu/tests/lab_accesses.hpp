// The shared-memory accesses labs 00 and 01 describe (their lab.toml's [[instructions]]), computed
// from each kernel.cu's own access functions exactly as the lab's probe (labs/NN/judge/probe.cu)
// computes them for the judge: the work the GPU tier's traced test costs with the model.
#pragma once
#include <vector>

#include "banklab/model.hpp"

namespace banklab::emu::test {

/// One unit of work (a tile of lab 00, 32 rows of lab 01): the store steps, then the load steps.
struct Described {
  std::vector<WarpAccess> stores, loads;
};
Described lab00_multiply_by_i(bool solution);
Described lab01_row_sums(bool solution);

}  // namespace banklab::emu::test
