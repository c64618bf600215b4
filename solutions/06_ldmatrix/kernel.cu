// Lab 06: ldmatrix and the swizzled tile. Tensor cores take their operands from registers, and
// `ldmatrix` is how a warp fills those registers from shared memory: each lane gives the address
// of one 16-byte row of an 8 x 8 matrix of half, and every lane receives its part of the matrix
// in the layout `mma.sync` expects. This kernel computes C = A * B^T with
// mma.sync.m16n8k16 from two 64 x 64 tiles of half in shared memory, one per operand, and loads
// every operand with ldmatrix.x4 (four 8 x 8 matrices per instruction).
// Solution.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "banklab/hardware.hpp"

namespace lab06 {

constexpr int kTileRows = 64;    // rows of a tile: 64 rows of A (or of B) per block
constexpr int kTileK = 64;       // halves per tile row: one step of 64 along k
constexpr int kChunkBytes = 16;  // one 16-byte chunk = 8 halves = one row of an 8 x 8 matrix
constexpr int kChunksPerRow = kTileK * 2 / kChunkBytes;  // 8 chunks: 128 bytes per row
constexpr int kThreads = 128;    // 4 warps; warp w computes the 32 x 32 part (w / 2, w % 2) of C
// Bytes of one tile; every offset tile_offset() returns lies in [0, kTileBytes). No padding:
// the swizzle keeps the tile at its 64 rows, unpadded.
constexpr std::uint32_t kTileBytes = kTileRows * kChunksPerRow * kChunkBytes;  // 8192

// The access function: byte offset of chunk `chunk` (0-7, halves 8 chunk .. 8 chunk + 7) of row
// `row` (0-63) in a tile. Both tiles use it, for the stores that fill them and for every
// ldmatrix row address.
// The layout a TMA copy swizzled over the row's span writes (CU_TENSOR_MAP_SWIZZLE_128B for rows of
// 128 bytes, CuTe's Swizzle<3, 4, 3> on the byte offset), written for rows of kChunksPerRow chunks:
// row r keeps chunk c at chunk c ^ ((r / R) % F). F, the chunks an XOR of the low chunk bits moves
// among, is the largest power of two that divides kChunksPerRow, at most 8 (8 chunks: one 128-byte
// line of banks); the R = 8 / F consecutive rows that a line of banks holds at one chunk column
// take the F values of the key one after the other, so any 8 consecutive rows put one chunk column
// in 8 different groups of 4 banks. Each row's chunks are only permuted in aligned groups of F:
// offsets stay 16-byte aligned, inside the tile and one-to-one, and 8 consecutive chunks of the
// tile (a quarter-warp's stores) stay in 8 different groups.
BANKLAB_HD constexpr std::uint32_t tile_offset(int row, int chunk) {
  constexpr int F = kChunksPerRow % 8 == 0 ? 8 : kChunksPerRow % 4 == 0 ? 4 : 2;
  return static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + (chunk ^ (row / (8 / F) % F)) * kChunkBytes);
}

// ldmatrix.x4: lane l gives the shared-memory address of row l % 8 of matrix l / 8; r[j] of
// every lane receives its two halves of matrix j.
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const unsigned char* row_address) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800  // the grader builds for sm_90
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(row_address));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
#else
  __trap();  // this kernel needs sm_80 or newer
#endif
}

// d += a * b for one 16 x 8 x 16 step on the tensor cores (half inputs, float accumulators).
__device__ inline void mma_16x8x16(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  __trap();
#endif
}

// c (m x n floats, row-major) = a (m x k halves, row-major) times b^T (b: n x k halves,
// row-major): c[i][j] = sum over p of a[i][p] * b[j][p]. m, n and k are multiples of 64.
// Block (x, y) computes the 64 x 64 block of c at rows 64 y, columns 64 x.
__global__ void gemm_ldmatrix(float* c, const __half* a, const __half* b, int m, int n, int k) {
  __shared__ __align__(128) unsigned char tiles[2 * kTileBytes];  // A's tile, then B's
  unsigned char* const tile_a = tiles;
  unsigned char* const tile_b = tiles + kTileBytes;
  const int t = static_cast<int>(threadIdx.x), lane = t % 32, warp = t / 32;
  const int row0 = static_cast<int>(blockIdx.y) * kTileRows, col0 = static_cast<int>(blockIdx.x) * kTileRows;
  const int warp_row = (warp / 2) * 32, warp_col = (warp % 2) * 32;
  float acc[2][4][4] = {};  // [16 rows i][8 columns j][fragment]

  for (int k0 = 0; k0 < k; k0 += kTileK) {
    // Fill both tiles: thread t copies chunks t, t + 128, ...: a quarter-warp copies one row.
    for (int e = t; e < kTileRows * kChunksPerRow; e += kThreads) {
      const int row = e / kChunksPerRow, chunk = e % kChunksPerRow;
      const uint4 va = *reinterpret_cast<const uint4*>(a + static_cast<long>(row0 + row) * k + k0 + 8 * chunk);
      const uint4 vb = *reinterpret_cast<const uint4*>(b + static_cast<long>(col0 + row) * k + k0 + 8 * chunk);
      *reinterpret_cast<uint4*>(tile_a + tile_offset(row, chunk)) = va;
      *reinterpret_cast<uint4*>(tile_b + tile_offset(row, chunk)) = vb;
    }
    __syncthreads();

    for (int s = 0; s < kTileK / 16; ++s) {  // four steps of 16 along k: chunks 2 s and 2 s + 1
      std::uint32_t fa[2][4], fb[2][4];
      // A, rows warp_row + 16 i .. + 15: matrices (rows 0-7, chunk 2s), (rows 8-15, 2s),
      // (rows 0-7, 2s + 1), (rows 8-15, 2s + 1).
      for (int i = 0; i < 2; ++i)
        ldmatrix_x4(fa[i], tile_a + tile_offset(warp_row + 16 * i + lane % 16, 2 * s + lane / 16));
      // B, rows warp_col + 16 j .. + 15: matrices (rows 0-7, chunk 2s), (rows 0-7, 2s + 1),
      // (rows 8-15, 2s), (rows 8-15, 2s + 1).
      for (int j = 0; j < 2; ++j)
        ldmatrix_x4(fb[j], tile_b + tile_offset(warp_col + 16 * j + 8 * (lane / 16) + lane % 8, 2 * s + (lane / 8) % 2));
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) mma_16x8x16(acc[i][j], fa[i], fb[j / 2][2 * (j % 2)], fb[j / 2][2 * (j % 2) + 1]);
    }
    __syncthreads();
  }

  // Fragment r of lane l holds row l / 4 (+ 8 for r >= 2), column 2 (l % 4) + r % 2.
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int r = 0; r < 4; ++r) {
        const int row = row0 + warp_row + 16 * i + lane / 4 + 8 * (r / 2);
        const int col = col0 + warp_col + 8 * j + 2 * (lane % 4) + r % 2;
        c[static_cast<long>(row) * n + col] = acc[i][j][r];
      }
}

// c = a * b^T on `stream`; m, n and k multiples of 64.
inline void gemm(float* c, const __half* a, const __half* b, int m, int n, int k, cudaStream_t stream = 0) {
  const dim3 grid(static_cast<unsigned>(n / kTileRows), static_cast<unsigned>(m / kTileRows));
  gemm_ldmatrix<<<grid, kThreads, 0, stream>>>(c, a, b, m, n, k);
}

// Your predictions. Work them out on paper, then check with banklab explain (op ldsm).
// ldmatrix.x1 uses the addresses of lanes 0-7 (one matrix), .x2 lanes 0-15, .x4 all 32; the
// other lanes' addresses are ignored.
namespace predict {
// wavefronts of one ldmatrix.x4 from the stub's tile (rows of 128 bytes, no swizzle),
// lane i giving the address of row i % 16, chunk i / 16.
constexpr int kRowMajorX4Wavefronts = 32;  // 4 matrices x 8: one chunk column of 8 rows is 4 banks
// wavefronts of ldmatrix.x1 from the same tile (lanes 0-7: rows 0-7, chunk 0).
constexpr int kRowMajorX1Wavefronts = 8;  // one matrix: 8 rows, the same 4 banks
// wavefronts of the x4 load of the first question from a tile swizzled with
// banklab::Swizzle<3, 4, 3> on the byte offset.
constexpr int kSwizzledX4Wavefronts = 4;  // one per matrix: the minimum for 512 bytes
// wavefronts of ldmatrix.x2 from the swizzled tile (lanes 0-15: rows i % 8, chunk i / 8).
constexpr int kSwizzledX2Wavefronts = 2;  // two matrices, one wavefront each
// with Swizzle<3, 4, 3>, the byte offset at which chunk 3 of row 5 is stored.
constexpr int kSwizzledOffsetOfRow5Chunk3 = 5 * 128 + (3 ^ 5) * 16;  // 640 + 6 * 16 = 736
// wavefronts of the x4 load of the first question when rows are padded to 144 bytes
// (row r, chunk c at r * 144 + c * 16).
constexpr int kPadded144X4Wavefronts = 4;  // 36 words per row: 4 banks further each row
// the same with rows padded to 160 bytes (r * 160 + c * 16).
constexpr int kPadded160X4Wavefronts = 8;  // 40 words: 8 banks per row, rows r and r + 4 collide
}  // namespace predict

}  // namespace lab06
