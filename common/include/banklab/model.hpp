/// @file model.hpp
/// @brief The reference model of shared-memory banks: how many wavefronts one warp-wide
///        shared-memory instruction takes, and why.
///
/// The rules, each checked against Nsight Compute counts on an NVIDIA H200 (sm_90):
///  - A lane of width `w` touches `max(1, w/4)` consecutive 4-byte words starting at
///    `offset / 4`; the word `n` lives in bank `n % 32`. 1- and 2-byte accesses behave as
///    accesses to their whole word.
///  - The active lanes are served in *groups*. A group needs as many wavefronts as the largest
///    number of distinct words any one bank must deliver to it. Lanes that ask for the same
///    word share it (broadcast on loads, one write on stores): never a conflict.
///  - 32-bit (and narrower) accesses: the warp is one group.
///  - 64-bit stores: two half-warps. 64-bit loads: two half-warps, or the whole warp as one
///    group when, over all active lanes, lane `i^1` is inactive or has the same address
///    (or the same holds for `i^2`).
///  - 128-bit stores: four quarter-warps. 128-bit loads: four quarter-warps, or two
///    half-warps under the same warp-wide condition. The two halves never merge.
///  - The instruction takes the sum of its groups' wavefronts; a group with no active lane
///    takes none. The SM serves one wavefront per clock.
///
/// The other instruction kinds (Op), measured on the same H200 (common/data/README.md, files
/// calibration_h200_{ldsm,stsm,cpasync,atom}.csv):
///  - ldsm / stsm (width 16): four quarter-warps, one 8x8 matrix each, like 128-bit stores (they
///    never merge); `.trans` costs the same; the addresses of unused lanes are ignored.
///  - cpasync (the shared side of LDGSTS, `.ca`): the lanes in groups of 128 / width (the warp for
///    4-byte copies, half-warps for 8-byte, quarter-warps for 16-byte), the groups one after
///    another. Within a group the lanes go in lane order, each lane apart (lanes writing the same
///    word each take a wavefront of its bank): lane i goes into the wavefront after the last one
///    used by an earlier lane of its group touching one of its banks or reading one of its
///    source banks (global address / 4 % 32; summarize() takes lane i's source at 16 * i, where
///    that is "the same i % 8": see summarize_async_copy(), which also takes zero-filling lanes).
///    `.cg` writes are invisible to every ncu counter (common/data/README.md): not checked.
///  - atom, 32-bit (ATOMS.ADD): one warp-wide group with every lane apart (same-word lanes are
///    serialised).
///  - atominc (ATOMS.POPC.INC.32, `atomicAdd(p, 1)` / `red.shared.add.u32 [p], 1` with the result
///    unused): exactly a 32-bit store: lanes at one word share it.
///  - atom, 64-bit: sm_90 has no 64-bit ATOMS.ADD; the compiler emits LDS.64 and a compare-and-swap
///    loop (ATOMS.CAST.SPIN.64). Each pass takes 2 wavefronts per half-warp with an active lane;
///    in a pass each half-warp serves, in lane order, the lanes whose banks no earlier served lane
///    of that half used, and of the served lanes at one 8-byte word only the lowest succeeds;
///    the others retry in the next pass. Summary::instructions counts the passes (what ncu
///    counts as executed instructions) and ncu's conflict counter reads 0 (the retries are
///    instructions, not conflicts): see expected_counters().
///  The other shared atomics (common/data/calibration_h200_atomop.csv):
///  - atom, 32-bit, covers every one-instruction 32-bit ATOMS: ADD, EXCH, MIN, MAX (.S32 too), AND,
///    OR, XOR, INC, DEC, with the result used or not (`red.shared.<op>` of a register: `ATOMS.<op>`
///    with RZ); only `red.add` of 1 (ATOMS.POPC.INC) differs.
///  - atomcas (ATOMS.CAS, ATOMS.CAS.64): the groups of a store of its width (warp; half-warps for
///    64-bit), every lane apart as for atom, and every wavefront twice: 2x the wavefronts of
///    atom / atomexch on the same addresses. ncu's conflict counter reads half the extra
///    wavefronts (expected_counters()).
///  - atomexch 8 (ATOMS.EXCH.64): half-warps, every lane apart.
///  - atomloop (LDS + ATOMS.CAST.SPIN, a float atomicAdd or a 64-bit op other than exch/cas):
///    width 8 is atom 8 above; width 4 runs the same passes with the warp as one group: a pass
///    serves, in lane order, the lanes on banks no earlier served lane used (so the passes are
///    the most lanes any bank holds) and takes 2 wavefronts. Exact when every successful
///    compare-and-swap changes its word (add of a non-zero value, exchange of new values); a 64-bit
///    min/max exits early and an or/and/xor that leaves a word unchanged lets the next lane at it
///    succeed in the same pass: for those the loop depends on the values and the passes here
///    are an upper bound (common/data/README.md: valuedep_h200_atomop.csv).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "banklab/hardware.hpp"

namespace banklab {

// kLegalWidths, kMaxSharedBytesPerBlock, enum class Op, kAllOps and kOpTable: the op and width
// table, generated from common/data/ops.toml into banklab/model_table.hpp (included by hardware.hpp).

/// True when `width` is one of kLegalWidths.
constexpr bool is_legal_width(int width) noexcept {
  for (int w : kLegalWidths)
    if (w == width) return true;
  return false;
}

/// kLegalWidths as text for messages: "1, 2, 4, 8, 16".
std::string legal_widths_text();

/// True when `width` is legal for `op`: its row of kOpTable (common/data/ops.toml) lists it.
constexpr bool is_legal_width(Op op, int width) noexcept {
  for (const OpInfo& row : kOpTable) {
    if (row.op != op) continue;
    for (int i = 0; i < row.count; ++i)
      if (row.widths[i] == width) return true;
    return false;
  }
  return false;
}

/// The legal widths of `op` as text for messages: "1, 2, 4, 8, 16", "16", "4, 8, 16", "4, 8", "4".
std::string legal_widths_text(Op op);

/// One warp-wide shared-memory instruction: what the model takes as input.
struct WarpAccess {
  Op op = Op::Load;                      ///< the kind of instruction
  int width = 4;                         ///< bytes per lane: legal for op (is_legal_width(op, width))
  std::uint32_t mask = 0xffffffffu;      ///< active lanes, bit i = lane i
  std::array<std::uint32_t, kWarpSize> offset{};  ///< byte offset of each lane (inactive lanes ignored)
};

/// How the hardware split the warp's lanes for service.
enum class Grouping : std::uint8_t {
  Warp,         ///< one group of 32 lanes (32-bit accesses, or merged 64-bit loads)
  HalfWarps,    ///< lanes 0-15 and 16-31 (64-bit, or merged 128-bit loads)
  QuarterWarps  ///< lanes 0-7, 8-15, 16-23, 24-31 (128-bit)
};

/// One lane's request for one word, as served in a wavefront.
struct LaneWord {
  int lane = 0;             ///< lane index 0-31
  int bank = 0;             ///< bank 0-31
  std::uint32_t word = 0;   ///< 4-byte word index (byte offset / 4)
  bool shared = false;      ///< another lane in the same wavefront gets the same word (broadcast)
};

/// Everything one wavefront delivers.
struct Wavefront {
  int group = 0;                  ///< index into Analysis::groups
  std::vector<LaneWord> served;   ///< every (lane, word) served, in lane order
};

/// One group of lanes and what it cost.
struct Group {
  int first_lane = 0;          ///< first lane of the group
  int lane_count = 0;          ///< 32, 16 or 8
  std::uint32_t active = 0;    ///< active lanes of this group (bit i = lane i)
  int wavefronts = 0;          ///< wavefronts this group took
  int minimum = 0;             ///< ceil(distinct words / 32), or 0 if no lane is active
  int distinct_words = 0;      ///< distinct 4-byte words the group asked for
  int worst_bank = -1;         ///< a bank that needed `wavefronts` distinct words (-1: none)
};

/// The model's full answer for one instruction.
struct Analysis {
  int wavefronts = 0;          ///< total wavefronts of the instruction
  int minimum = 0;             ///< unavoidable wavefronts for these lanes and words
  Grouping grouping = Grouping::Warp;  ///< how the hardware split the lanes into groups
  bool merged = false;         ///< true when a 64/128-bit load was served in larger groups
  std::string why;             ///< one sentence: why this grouping
  std::vector<Group> groups;   ///< in lane order
  std::vector<Wavefront> wavefront_detail;  ///< in issue order, group by group (a CAS loop: pass by pass)
  int instructions = 1;        ///< warp instructions executed: 1, or the passes of a 64-bit atomic's CAS loop

  /// Extra wavefronts caused by bank conflicts (for most kinds what Nsight Compute reports as
  /// bank conflicts; see expected_counters()).
  int conflicts() const { return wavefronts - minimum; }
};

/// Why an access is not valid input for the model, or nothing when it is.
/// Checks: width legal for the op (is_legal_width(op, width)); every offset (of every lane, active or not) a multiple of
/// the width; every access inside kMaxSharedBytesPerBlock.
std::optional<std::string> validate(const WarpAccess& access);

/// validate() without the message: true exactly when validate() returns nothing. No
/// allocation; for hot loops that ask validate() for the message only when this says no.
bool is_valid(const WarpAccess& access) noexcept;

/// The model's answer for one instruction without the explanation: what `banklab predict`
/// prints, computed in one pass (one grouping, one count of distinct words per bank).
struct Summary {
  int wavefronts = 0;                  ///< total wavefronts of the instruction
  int minimum = 0;                     ///< unavoidable wavefronts (see the file comment)
  Grouping grouping = Grouping::Warp;  ///< how the hardware split the lanes into groups
  bool merged = false;                 ///< true when a 64/128-bit load was served in larger groups
  int instructions = 1;                ///< warp instructions executed (the passes of a CAS loop)

  /// Extra wavefronts caused by bank conflicts.
  int conflicts() const { return wavefronts - minimum; }
};

/// What Nsight Compute's three counters read for one instruction (common/data/README.md says
/// which counters): the model's wavefronts; its conflicts, except for a CAS loop (atom 8,
/// atomloop), where ncu counts 0 (each pass is conflict-free; the retries are counted as
/// instructions), and for atomcas, where it counts half of them (one per extra lane, not per
/// extra wavefront);
/// and the warp instructions executed (the passes of a CAS loop, otherwise 1). The one place that
/// says how the model's answer is compared with a measurement (tests, `banklab compare`,
/// `banklab calibrate`).
struct Counters {
  int wavefronts = 0;      ///< shared-memory wavefronts of the instruction's kind
  int bank_conflicts = 0;  ///< the bank-conflict counter of its kind
  int instructions = 1;    ///< warp instructions executed
  /// All three equal.
  bool operator==(const Counters& o) const {
    return wavefronts == o.wavefronts && bank_conflicts == o.bank_conflicts && instructions == o.instructions;
  }
  /// Some counter differs.
  bool operator!=(const Counters& o) const { return !(*this == o); }
};

/// The counters ncu should read for `access`, from summarize().
Counters expected_counters(const WarpAccess& access) noexcept;

/// The shared side of cp.async (Op::AsyncCopy) when lane i copies from global address
/// `source[i]`: a lane also waits for the last earlier lane of its group that reads one of its
/// source banks, (global address / 4) % 32. summarize() and analyze() take source[i] = 16 * i,
/// the layout every calibration row was measured with (one 16-byte chunk per lane, as 16-byte
/// copies of a contiguous tile have). Measured (common/data/probe_h200_cpasync_source.csv):
/// 32 lanes copying 4 contiguous bytes each take 1 wavefront, not the 4 of source 16 * i.
/// Other ops: summarize(access).
/// A lane whose source is kNoSource reads no global memory: a zero-filling copy (`cp.async ...,
/// src-size` with src-size 0, what a GEMM main loop issues past the end of K) waits on no source
/// bank, only on earlier lanes writing its shared banks (measured: docs/perf/trace_cublas_hopper.md,
/// F9).
Summary summarize_async_copy(const WarpAccess& access, const std::array<std::uint64_t, kWarpSize>& source) noexcept;

/// The source of a cp.async lane that reads nothing (src-size 0): see summarize_async_copy().
inline constexpr std::uint64_t kNoSource = ~std::uint64_t{0};

/// True for the one-instruction shared atomics (atom 4: ATOMS.ADD and the other 32-bit
/// operations; atomcas; atomexch), which serve their lanes one by one: lanes that ask for the
/// same word still each take a slot of that word's bank.
bool serves_every_lane(const WarpAccess& access) noexcept;

/// True for the shared atomics sm_90 runs as a compare-and-swap loop (LDS, then ATOMS.CAST.SPIN
/// until every lane succeeded): atom 8 and atomloop. The model's answer is the whole loop; a
/// traced record is one pass of it (cas_pass_wavefronts()).
bool is_cas_loop(const WarpAccess& access) noexcept;

/// Wavefronts of ONE pass of a compare-and-swap loop of `width` bytes (ATOMS.CAST.SPIN, 4, or
/// ATOMS.CAST.SPIN.64, 8) executed by the lanes of `mask`: 2 per group with an active lane (the
/// warp for 4 bytes, half-warps for 8). What the tracer charges each executed pass it records
/// (the model's `atom 8` and `atomloop` are the whole loop).
int cas_pass_wavefronts(std::uint32_t mask, int width) noexcept;

/// Wavefronts, minimum, grouping and merged of one instruction in one pass: the same numbers
/// as analyze(), without building the explanation. No allocation, no exception.
/// Precondition: validate() passed (an invalid access still gets a defined answer, from the
/// slow path, but the numbers mean nothing for hardware).
Summary summarize(const WarpAccess& access) noexcept;

/// The grouping the hardware uses for this instruction (depends on op, width, mask and,
/// for loads, on which lanes share an address).
Grouping grouping_of(const WarpAccess& access, bool* merged = nullptr);

/// Wavefronts of one instruction: `summarize(access).wavefronts`. Fast: no allocation.
/// Precondition: validate() passed.
int count_wavefronts(const WarpAccess& access) noexcept;

/// The unavoidable minimum for this instruction (see the file comment):
/// `summarize(access).minimum`. No allocation.
int minimum_wavefronts(const WarpAccess& access) noexcept;

/// The full explanation: groups, and for every wavefront which lanes get which words.
Analysis analyze(const WarpAccess& access);

/// "ld", "st", "ldsm", "stsm", "cpasync", "atom", "atominc", "atomcas", "atomexch", "atomloop":
/// the names parse_op() reads.
const char* to_string(Op op);
/// In words for messages: "load (ld)", "store (st)", "ldmatrix (ldsm)", ...
const char* describe(Op op);
/// "warp", "half-warps", "quarter-warps".
const char* to_string(Grouping g);

namespace detail {
/// summarize() computed by the portable code path (no SSE2), whatever the build: lets the
/// tests check both paths against analyze() on one machine. Not for other callers.
Summary summarize_portable(const WarpAccess& access) noexcept;
}  // namespace detail

}  // namespace banklab
