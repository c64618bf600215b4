/// @file model_table.hpp
/// @brief The bank model's op and width table, generated from common/data/ops.toml by
///        python/banklab/lab/model_table.py: do not edit (after a change of ops.toml:
///        python3 python/banklab_run.py -m banklab.lab.model_table --write). Python reads the same file.
#pragma once

#include <cstdint>

namespace banklab {

/// The legal widths of one lane's access, in bytes: the one list every parser, check and
/// message uses (`char`/`short`/`int`/`float2`/`float4`-sized accesses).
inline constexpr int kLegalWidths[] = {1, 2, 4, 8, 16};
/// Largest dynamic shared memory one block may opt in to on sm_90 (227 KiB); the model
/// rejects offsets beyond it. The measured bank rule holds over this whole range.
inline constexpr std::uint32_t kMaxSharedBytesPerBlock = 232448u;

/// The kind of warp-wide shared-memory instruction. Text names (parse_op, to_string):
/// "ld", "st", "ldsm", "stsm", "cpasync", "atom", "atominc", "atomcas", "atomexch", "atomloop".
enum class Op : std::uint8_t {
  Load,             ///< "ld": a shared-memory load (LDS), widths 1, 2, 4, 8, 16
  Store,            ///< "st": a shared-memory store (STS), widths 1, 2, 4, 8, 16
  LoadMatrix,       ///< "ldsm": ldmatrix.sync.aligned.m8n8{.x1,.x2,.x4}{.trans}.shared.b16 (LDSM), width 16:
                    ///< lane i gives the 16-byte row address of row i % 8 of matrix i / 8; mask = the lanes
                    ///< whose addresses are used (x1 0x000000ff, x2 0x0000ffff, x4 0xffffffff). `.trans` does
                    ///< not change the addresses.
  StoreMatrix,      ///< "stsm": stmatrix (STSM, sm_90), same convention as LoadMatrix
  AsyncCopy,        ///< "cpasync": the shared-memory (store) side of cp.async (LDGSTS), widths 4, 8, 16
                    ///< (`.ca`; `.cg` is 16 only)
  Atomic,           ///< "atom": a shared atomic (ATOMS.ADD, 32-bit) or, 64-bit, the whole compare-and-swap
                    ///< loop sm_90 runs for it (ATOMS.CAST.SPIN.64), widths 4, 8
  AtomicIncrement,  ///< "atominc": ATOMS.POPC.INC.32, what `atomicAdd(p, 1)` and `red.shared.add.u32 [p], 1`
                    ///< compile to when the result is unused, width 4
  AtomicCas,        ///< "atomcas": one compare-and-swap, ATOMS.CAS (`atomicCAS`, width 4) or ATOMS.CAS.64
                    ///< (width 8)
  AtomicExchange,   ///< "atomexch": ATOMS.EXCH.64 (`atomicExch` of 64 bits, width 8), the one 64-bit shared
                    ///< atomic sm_90 runs as one instruction besides CAS; width 4 is ATOMS.EXCH, the same as
                    ///< atom 4
  AtomicCasLoop     ///< "atomloop": the compare-and-swap loop (LDS, then ATOMS.CAST.SPIN until every lane
                    ///< succeeded) ptxas emits for a shared atomic sm_90 has no ATOMS for: a float `atomicAdd`
                    ///< (width 4; also half2/bfloat162 adds) and the 64-bit add/min/max/and/or/xor and double
                    ///< add (width 8, the same as atom 8)
};

/// Every Op, in declaration order (for loops over all kinds).
inline constexpr Op kAllOps[] = {
    Op::Load, Op::Store, Op::LoadMatrix, Op::StoreMatrix, Op::AsyncCopy, Op::Atomic,
    Op::AtomicIncrement, Op::AtomicCas, Op::AtomicExchange, Op::AtomicCasLoop};

/// One row of the op table: an op, its name in access lines, the widths it allows (the first
/// `count` of `widths`).
struct OpInfo {
  Op op;              ///< the op
  const char* name;   ///< its name in access lines (parse_op, to_string)
  int widths[5];      ///< the widths it allows, ascending (the first `count`; 0 after them)
  int count;          ///< how many of `widths` it allows
};

/// The op table, in kAllOps' order.
inline constexpr OpInfo kOpTable[] = {
    {Op::Load, "ld", {1, 2, 4, 8, 16}, 5},
    {Op::Store, "st", {1, 2, 4, 8, 16}, 5},
    {Op::LoadMatrix, "ldsm", {16, 0, 0, 0, 0}, 1},
    {Op::StoreMatrix, "stsm", {16, 0, 0, 0, 0}, 1},
    {Op::AsyncCopy, "cpasync", {4, 8, 16, 0, 0}, 3},
    {Op::Atomic, "atom", {4, 8, 0, 0, 0}, 2},
    {Op::AtomicIncrement, "atominc", {4, 0, 0, 0, 0}, 1},
    {Op::AtomicCas, "atomcas", {4, 8, 0, 0, 0}, 2},
    {Op::AtomicExchange, "atomexch", {4, 8, 0, 0, 0}, 2},
    {Op::AtomicCasLoop, "atomloop", {4, 8, 0, 0, 0}, 2},
};

}  // namespace banklab
