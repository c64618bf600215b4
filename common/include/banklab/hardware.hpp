/// @file hardware.hpp
/// @brief Shared-memory hardware facts as named constants, and the address helpers that
///        both lab kernels and the CPU grader use.
///
/// Everything here is `constexpr` and `__host__ __device__` so that one definition serves
/// the kernel running on the GPU and the grader replaying the same index arithmetic on the CPU.
#pragma once

#include <cstdint>

#include "banklab/model_table.hpp"  // the op and width table, kMaxSharedBytesPerBlock: common/data/ops.toml

#if defined(__CUDACC__)
/// Marks a function callable from both host and device code.
#define BANKLAB_HD __host__ __device__
#else
#define BANKLAB_HD
#endif

namespace banklab {

/// Shared memory is divided into 32 banks (every NVIDIA GPU since Maxwell).
inline constexpr int kNumBanks = 32;
/// Each bank is 4 bytes wide: consecutive 4-byte words go to consecutive banks.
inline constexpr int kBankWidthBytes = 4;
/// Threads per warp; a shared-memory instruction is issued for one warp.
inline constexpr int kWarpSize = 32;
/// Bytes one wavefront can deliver: one word from each bank.
inline constexpr int kWavefrontBytes = kNumBanks * kBankWidthBytes;
// kMaxSharedBytesPerBlock (227 KiB on sm_90): banklab/model_table.hpp, from common/data/ops.toml.

/// Index of the 4-byte word that holds byte `byte_offset` of shared memory.
BANKLAB_HD constexpr std::uint32_t word_of(std::uint32_t byte_offset) {
  return byte_offset / kBankWidthBytes;
}

/// Bank that serves byte `byte_offset`: `(byte_offset / 4) % 32`. Holds for 1-, 2-, 4-, 8- and
/// 16-byte accesses alike (an 8- or 16-byte access covers 2 or 4 consecutive banks from here).
BANKLAB_HD constexpr int bank_of(std::uint32_t byte_offset) {
  return static_cast<int>(word_of(byte_offset) % kNumBanks);
}

/// Row-major index into a 2-D array whose rows are padded by `pad` elements:
/// `row * (cols + pad) + col`. With 4-byte elements and `cols == 32`, `pad == 1` moves each
/// row one bank to the right, so a column walks all 32 banks instead of staying in one.
BANKLAB_HD constexpr int padded_index(int row, int col, int cols, int pad) {
  return row * (cols + pad) + col;
}

/// A generic XOR swizzle in the spirit of CuTe's `Swizzle<B, M, S>`.
///
/// It takes the `B` bits that sit `S` places above bit `M` and XORs them onto bits
/// `[M, M+B)`. For `Swizzle<3, 4, 3>` applied to a byte offset:
/// @verbatim
///   bit:      ... 9 8 7 6 5 4 3 2 1 0
///   offset:   ... y y y x x x z z z z      zzzz = byte within a 16-byte chunk (M = 4)
///                 \___/ \___/               xxx  = which of 8 chunks in a 128-byte row
///                   |     ^                 yyy  = row index mod 8           (S = 3)
///                   +-XOR-+   result:  ... y y y (x^y) z z z z
/// @endverbatim
/// Each row permutes its 16-byte chunks differently, so eight rows read at the same chunk
/// column hit eight different groups of four banks. The map only changes bits `[M, M+B)`
/// using bits that it leaves alone, so applying it twice gives back the input: it is a
/// bijection (its own inverse), and no two elements ever share a place.
template <int B, int M, int S>
struct Swizzle {
  static_assert(B >= 0, "number of swizzled bits B must be non-negative");
  static_assert(M >= 0, "number of untouched low bits M must be non-negative");
  static_assert(S >= B || S <= -B, "the source bits must not overlap the target bits: |S| >= B");
  static constexpr int kBits = B;   ///< `B`: how many bits are swizzled
  static constexpr int kBase = M;   ///< `M`: how many low bits are left alone (one unit that moves whole)
  static constexpr int kShift = S;  ///< `S`: how far above the swizzled bits their XOR source sits
  /// Mask of the bits that are XORed into (the `x` bits).
  static constexpr std::uint32_t kTargetMask = ((1u << B) - 1u) << M;
  /// Mask of the bits that are read from (the `y` bits).
  static constexpr std::uint32_t kSourceMask = S >= 0 ? kTargetMask << S : kTargetMask >> -S;

  /// Apply the swizzle to an offset (in whatever unit the template was designed for).
  BANKLAB_HD constexpr std::uint32_t operator()(std::uint32_t offset) const {
    if constexpr (S >= 0) {
      return offset ^ ((offset & kSourceMask) >> S);
    } else {
      return offset ^ ((offset & kSourceMask) << -S);
    }
  }
};

/// The shared-memory swizzle modes of the Tensor Memory Accelerator (TMA): the swizzle a
/// `cp.async.bulk.tensor` copy applies when its tensor map says `CU_TENSOR_MAP_SWIZZLE_32B`,
/// `_64B` or `_128B`. The value is the mode's span in bytes (0: no swizzle).
enum class TmaSwizzle : std::uint32_t { None = 0, Bytes32 = 32, Bytes64 = 64, Bytes128 = 128 };

/// Bytes after which a TMA swizzle pattern repeats (256, 512 or 1024; 16 for None): a box's
/// shared-memory base should be aligned to it so that the pattern starts at its first row.
BANKLAB_HD constexpr std::uint32_t tma_swizzle_period(TmaSwizzle mode) {
  return mode == TmaSwizzle::None ? 16u : static_cast<std::uint32_t>(mode) * 8u;
}

/// Where TMA stores byte `offset` of a box (the offset it would have without swizzle, counted
/// from a base aligned to tma_swizzle_period()): as the CUDA programming guide describes the
/// modes, shared memory is seen as 128-byte lines of 16-byte chunks, and the index of the chunk
/// within each span (2, 4 or 8 chunks) is XORed with the line's index modulo that many chunks.
/// The byte within its chunk never moves, and each span's chunks are only permuted. It equals
/// CuTe's `Swizzle<1, 4, 3>`, `Swizzle<2, 4, 3>` and `Swizzle<3, 4, 3>` on byte offsets
/// (`TmaSwizzleOf`; common/tests/hardware_test.cpp checks every offset of shared memory).
BANKLAB_HD constexpr std::uint32_t tma_swizzled_offset(TmaSwizzle mode, std::uint32_t offset) {
  const std::uint32_t chunks = static_cast<std::uint32_t>(mode) / 16u;  // per span: 2, 4 or 8
  if (chunks == 0) return offset;
  const std::uint32_t chunk = (offset / 16u) % chunks, line = (offset / 128u) % chunks;
  return offset - chunk * 16u + (chunk ^ line) * 16u;
}

/// Bytes from one row of a TMA box to the next in shared memory: the row's own bytes without
/// swizzle, the mode's span with it. Measured on an H200 (common/data/hopper_h200_tma.csv and
/// its README section): a box narrower than the span (16-byte rows in the 32-byte mode, 32 in the
/// 64, 64 in the 128) still takes the span's bytes a row, and TMA leaves the rest of each row alone.
BANKLAB_HD constexpr std::uint32_t tma_box_pitch(TmaSwizzle mode, std::uint32_t row_bytes) {
  return mode == TmaSwizzle::None ? row_bytes : static_cast<std::uint32_t>(mode);
}

/// Where a TMA load puts byte `byte` of row `row` of a box with `row_bytes` bytes a row (and
/// where a TMA store takes it from), counted from the box's shared base, which is aligned to
/// tma_swizzle_period(). The same on the H200 for every box measured: all four modes, rows of
/// 16 to 256 bytes, 8 to 256 rows, 2- and 4-byte elements, loads and stores.
BANKLAB_HD constexpr std::uint32_t tma_box_offset(TmaSwizzle mode, std::uint32_t row_bytes, std::uint32_t row,
                                                  std::uint32_t byte) {
  return tma_swizzled_offset(mode, row * tma_box_pitch(mode, row_bytes) + byte);
}

/// The `Swizzle<B, 4, 3>` that equals a TMA swizzle mode on byte offsets: 32 bytes -> B = 1,
/// 64 -> 2, 128 -> 3 (CuTe's `SW32`, `SW64`, `SW128` layouts).
template <TmaSwizzle Mode>
using TmaSwizzleOf = Swizzle<Mode == TmaSwizzle::Bytes32 ? 1 : Mode == TmaSwizzle::Bytes64 ? 2 : Mode == TmaSwizzle::Bytes128 ? 3 : 0, 4, 3>;

/// wgmma.mma_async reading operands from shared memory (A and B through descriptors, or B alone
/// with A in registers): one LSU wavefront for every 128 bytes one warpgroup instruction reads,
/// never a bank conflict, whatever the layout, swizzle mode or major-ness the descriptors declare
/// (measured on an H200: common/data/hopper_h200_wgmma.csv, 32 wavefronts for m64n64k16 with A
/// and B in shared memory, 16 with A in registers). `bytes`: the A and B bytes of one warpgroup
/// instruction (always a multiple of 128).
BANKLAB_HD constexpr std::uint64_t wgmma_operand_wavefronts(std::uint64_t bytes) {
  return (bytes + kWavefrontBytes - 1) / kWavefrontBytes;
}

/// TMA loads and stores (cp.async.bulk.tensor, UTMALDG/UTMASTG) move no LSU shared-memory
/// wavefront and no bank conflict whatever the swizzle mode or box (measured on an H200:
/// common/data/hopper_h200_tma.csv); only `l1tex__data_bank_writes` / `_reads` see them, at the
/// box's bytes / 4.
inline constexpr std::uint64_t kTmaLsuWavefronts = 0;

/// The column-XOR swizzle for a `tile[32][32]` of 4-byte elements (`col` in [0, 32)): the
/// element index `row * 32 + col` through `Swizzle<5, 0, 5>`, whose 5 column bits [0, 5) are
/// XORed with the 5 row bits [5, 10). Both row and column accesses of a warp become
/// conflict-free.
BANKLAB_HD constexpr int xor_swizzle_index(int row, int col) {
  return static_cast<int>(Swizzle<5, 0, 5>{}(static_cast<std::uint32_t>(row * 32 + col)));
}

}  // namespace banklab
