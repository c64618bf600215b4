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

/// The instruction families beyond LDS/STS: "ldsm", "stsm", "cpasync", "atom", "atomop".
inline constexpr const char* kFamilies[] = {"ldsm", "stsm", "cpasync", "atom", "atomop"};

/// One shared atomic of the family "atomop": the PTX the worker runs for a width and the variant
/// (the id's last `_` part, e.g. `atomop_n_stride0_w4_atom_exch`), the SASS ptxas 13.0 makes of
/// it for sm_90 (checked by check_sass()) and the model's op for it (the op column of its rows).
struct AtomOpKind {
  int width;            ///< 4 or 8 bytes
  const char* variant;  ///< the id's last part; the kernel is banklab_cal_atom_w<width>_<variant>
  const char* ptx;      ///< the instruction in the worker
  const char* sass;     ///< what it compiles to: "ATOMS.OP" (one instruction, e.g. ATOMS.EXCH) or "loop" (LDS + ATOMS.CAST.SPIN)
  Op op;                ///< the model's op: atom, atomcas, atomexch or atomloop
};

/// Every shared atomic of the family "atomop", in the order its named cases are listed. (The
/// family "atom" holds atom.add and red.add; its patterns and ids are unchanged.)
inline constexpr AtomOpKind kAtomOpKinds[] = {
    {4, "exch", "atom.shared.exch.b32", "ATOMS.EXCH", Op::Atomic},
    {4, "min", "atom.shared.min.u32", "ATOMS.MIN", Op::Atomic},
    {4, "maxs", "atom.shared.max.s32", "ATOMS.MAX", Op::Atomic},
    {4, "and", "atom.shared.and.b32", "ATOMS.AND", Op::Atomic},
    {4, "or", "atom.shared.or.b32", "ATOMS.OR", Op::Atomic},
    {4, "xor", "atom.shared.xor.b32", "ATOMS.XOR", Op::Atomic},
    {4, "inc", "atom.shared.inc.u32", "ATOMS.INC", Op::Atomic},
    {4, "dec", "atom.shared.dec.u32", "ATOMS.DEC", Op::Atomic},
    {4, "cas", "atom.shared.cas.b32", "ATOMS.CAS", Op::AtomicCas},
    {4, "redadd", "red.shared.add.u32 (a register)", "ATOMS.ADD", Op::Atomic},
    {4, "redmin", "red.shared.min.u32", "ATOMS.MIN", Op::Atomic},
    {4, "redor", "red.shared.or.b32", "ATOMS.OR", Op::Atomic},
    {4, "addf", "atom.shared.add.f32", "loop", Op::AtomicCasLoop},
    {8, "exch", "atom.shared.exch.b64", "ATOMS.EXCH", Op::AtomicExchange},
    {8, "cas", "atom.shared.cas.b64", "ATOMS.CAS", Op::AtomicCas},
    {8, "min", "atom.shared.min.u64 (word set to ~0 first)", "loop", Op::AtomicCasLoop},
    {8, "or", "atom.shared.or.b64", "loop", Op::AtomicCasLoop},
    {8, "addf", "atom.shared.add.f64", "loop", Op::AtomicCasLoop},
};

/// The named cases and `random` random patterns (seed `seed`) of one family: ldsm/stsm
/// (x1/x2/x4 from the mask 0xff/0xffff/0xffffffff, `.trans` when the id ends in `_trans`),
/// cpasync (4/8/16 bytes, `.cg` when the id ends in `_cg`), atom (atom.add 32/64-bit, red.add
/// when the id ends in `_red`). "ldst" is pattern_set(random, seed). @throws
/// std::invalid_argument for an unknown family.
std::vector<Pattern> family_patterns(const std::string& family, int random, std::uint64_t seed);

/// The variant an id names by its last `_` component: "trans", "cg", "red", or "".
std::string variant_of(const std::string& id);

}  // namespace banklab::calibrate
