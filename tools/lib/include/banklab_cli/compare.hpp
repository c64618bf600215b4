/// @file compare.hpp
/// @brief `banklab compare`: the model against a measurement file.
#pragma once

#include <string>
#include <vector>

#include "banklab/pattern_io.hpp"

namespace banklab::cli {

struct CompareResult {
  int matched = 0;
  int total = 0;
  std::string report;  ///< one explanation per differing pattern, then "N/M patterns match\n"
};

/// Compares wavefronts and bank conflicts of every row with the model.
CompareResult compare_measurements(const std::vector<Measurement>& rows);

}  // namespace banklab::cli
