/// @file patterns.hpp
/// @brief The pattern set of `banklab calibrate`: named cases and a seeded random set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "banklab/model.hpp"

namespace banklab::calibrate {

/// One pattern to measure: a name and one warp-wide instruction.
struct Pattern {
  std::string id;     ///< unique name: `n_...` for named cases, `r<seed>_<n>_...` for random ones
  WarpAccess access;  ///< the instruction (offsets of inactive lanes are 0)
};

/// The named cases, loads and stores: strides, pair-xor sharing (and spread variants), reversed
/// lanes, group8same, half/quarter rows, partial masks, float[32][32] / [32][33] columns, the
/// XOR-swizzled column, 64/128-bit merge cases (and cases that must not merge), narrow widths.
/// Ids follow `common/data/h200_wavefronts_named.csv` where that file has the same case.
std::vector<Pattern> named_patterns();

/// `n` random patterns from `seed`: mixed widths (1-16 bytes), ops, masks (full, dense, sparse,
/// structured) and address ranges (a few words, so lanes share words, up to the whole
/// kMaxSharedBytesPerBlock), some built to meet the 64/128-bit merge condition. The same seed
/// gives the same patterns on every platform.
std::vector<Pattern> random_patterns(int n, std::uint64_t seed);

/// named_patterns() followed by random_patterns(random, seed).
std::vector<Pattern> pattern_set(int random, std::uint64_t seed);

/// The patterns as `banklab predict` lines, each after a `# id` comment line.
std::string format_pattern_list(const std::vector<Pattern>& patterns);

/// Read what format_pattern_list() wrote (the id comes from the `# id` line before each
/// access; a line without one gets `p<line>`). @throws banklab::ParseError.
std::vector<Pattern> parse_pattern_list(const std::string& text, const std::string& source);

}  // namespace banklab::calibrate
