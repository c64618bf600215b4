/// @file patterns.hpp
/// @brief The pattern set of `banklab calibrate`: named cases and a seeded random set.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "banklab/model.hpp"

namespace banklab::calibrate {

// A small, fully specified generator (splitmix64): the same numbers everywhere, unlike the
// standard distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n), n > 0.
  std::uint32_t below(std::uint64_t n) { return static_cast<std::uint32_t>(next() % n); }
  bool chance(int percent) { return below(100) < static_cast<std::uint32_t>(percent); }

 private:
  std::uint64_t s_;
};

/// A random active-lane mask: full, dense, sparse, half, or a structured one; never 0.
std::uint32_t random_mask(Rng& r);

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

/// The instruction families beyond LDS/STS: "ldsm", "stsm", "cpasync", "atom".
inline constexpr const char* kFamilies[] = {"ldsm", "stsm", "cpasync", "atom"};

/// The named cases and `random` random patterns (seed `seed`) of one family: ldsm/stsm
/// (x1/x2/x4 from the mask 0xff/0xffff/0xffffffff, `.trans` when the id ends in `_trans`),
/// cpasync (4/8/16 bytes, `.cg` when the id ends in `_cg`), atom (atom.add 32/64-bit, red.add
/// when the id ends in `_red`). "ldst" is pattern_set(random, seed). @throws
/// std::invalid_argument for an unknown family.
std::vector<Pattern> family_patterns(const std::string& family, int random, std::uint64_t seed);

/// The variant an id names by its last `_` component: "trans", "cg", "red", or "".
std::string variant_of(const std::string& id);

}  // namespace banklab::calibrate
