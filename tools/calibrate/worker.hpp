/// @file worker.hpp
/// @brief The GPU side of `banklab calibrate`: one kernel launch per pattern.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "patterns.hpp"

namespace banklab::calibrate {

/// Why no GPU can be used (banklab::no_gpu_reason()), or an empty string when one can.
std::string gpu_unavailable_reason();

/// The name of CUDA device `device` (cudaGetDeviceProperties), or an empty string and a message
/// in `error`.
std::string gpu_name(int device, std::string& error);

/// Run every pattern as one warp (one block of 32 threads) executing exactly one shared-memory
/// instruction, one kernel launch per pattern, in order, and nothing else on the GPU (ncu counts
/// launch k as pattern k). Patterns beyond the device's shared memory are an error.
/// @return 0 on success; otherwise prints the problem to `err` and returns non-zero.
int run_patterns_on_gpu(const std::vector<Pattern>& patterns, int device, std::ostream& err);

}  // namespace banklab::calibrate
