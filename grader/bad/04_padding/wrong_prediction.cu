// KNOWN-BAD kernel for lab 04: a wrong prediction: the size of tile[32][33] counted without the pad.
// EXPECT_FAIL: Lab04Predictions.PaddedTileSizeIsPredicted
// Lab 04: padding. A tiled matrix transpose through shared memory, as in cuda-samples'
// transpose.cu: a 32x8 block moves one 32x32 tile, each thread four rows. The tile is written
// by rows (coalesced global reads) and read by columns (coalesced global writes).
// Solution.
#include <cuda_runtime.h>

#include "banklab/hardware.hpp"

namespace lab04 {

constexpr int TILE_DIM = 32;   // the tile is TILE_DIM x TILE_DIM floats
constexpr int BLOCK_ROWS = 8;  // a block is TILE_DIM x BLOCK_ROWS threads: one warp per row of threads

// One float of padding per row: row r starts r banks further on, so the 32 elements of a
// column sit in 32 different banks.
constexpr int kPad = 1;

// Floats in the tile: TILE_DIM rows of TILE_DIM + kPad (the pad floats are never used).
constexpr int kTileFloats = TILE_DIM * (TILE_DIM + kPad);

// The access function: where element (row, col) of the tile lives in the flat shared array.
// The kernel and the grader both use it.
BANKLAB_HD constexpr int tile_index(int row, int col) {
  return banklab::padded_index(row, col, TILE_DIM, kPad);
}

// odata = transpose(idata); idata is `height` rows of `width` floats, both multiples of TILE_DIM.
__global__ void transpose_padded(float* odata, const float* idata, int width, int height) {
  // Same as float tile[TILE_DIM][TILE_DIM + kPad], flattened so tile_index() does all indexing.
  __shared__ float tile[kTileFloats];

  int x = static_cast<int>(blockIdx.x) * TILE_DIM + static_cast<int>(threadIdx.x);
  int y = static_cast<int>(blockIdx.y) * TILE_DIM + static_cast<int>(threadIdx.y);
  // Write the tile by rows: lane threadIdx.x takes column threadIdx.x.
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[tile_index(static_cast<int>(threadIdx.y) + j, static_cast<int>(threadIdx.x))] =
        idata[static_cast<long>(y + j) * width + x];

  __syncthreads();

  x = static_cast<int>(blockIdx.y) * TILE_DIM + static_cast<int>(threadIdx.x);  // swapped block
  y = static_cast<int>(blockIdx.x) * TILE_DIM + static_cast<int>(threadIdx.y);
  // Read the tile by columns: lane threadIdx.x takes row threadIdx.x.
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[static_cast<long>(y + j) * height + x] =
        tile[tile_index(static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y) + j)];
}

// Host launcher: out (width x height) = transpose of in (height x width).
inline void transpose(float* out, const float* in, int width, int height, cudaStream_t stream = 0) {
  const dim3 grid(static_cast<unsigned>(width / TILE_DIM), static_cast<unsigned>(height / TILE_DIM));
  const dim3 block(TILE_DIM, BLOCK_ROWS);
  transpose_padded<<<grid, block, 0, stream>>>(out, in, width, height);
}

// Your predictions. Work them out on paper (bank = (byte offset / 4) % 32), then check.
namespace predict {
// Wavefronts of one warp's column read in the UNPADDED tile[32][32] of floats
// (lane i reads tile[i][c]).
constexpr int kUnpaddedColumnReadWavefronts = 32;  // all 32 lanes in bank c
// Wavefronts of the same column read in tile[32][33].
constexpr int kPaddedColumnReadWavefronts = 1;  // banks c, c+1, ..., one each
// Bytes of shared memory that float tile[32][33] takes.
constexpr int kPaddedTileBytes = 32 * 32 * 4;  // DEFECT: forgot the pad  // 4224: 128 bytes more than tile[32][32]
// A tile of doubles, double tile[32][32 + p]: the smallest pad p (in doubles) that
// makes the column read (lane i reads tile[i][c], an 8-byte load) conflict-free.
// A row of 32 doubles is 64 words, so every row starts in bank 0. The 8-byte load is served
// as two half-warps of 16 lanes x 2 words; one double of pad moves each row 2 banks on, and
// 16 lanes x 2 banks cover all 32.
constexpr int kDoublePad = 1;
// Wavefronts of that column read of doubles with your pad p.
constexpr int kPaddedDoubleColumnReadWavefronts = 2;  // one per half-warp: the minimum
// A tile of float4, 32 rows of 8 float4 (128 bytes): lane i reads the float4 at row i,
// chunk c. The smallest row padding IN BYTES that makes this read conflict-free.
// Pad by one access width: 16 bytes moves each row 4 banks on, and a quarter-warp's 8 lanes x
// 4 banks cover all 32. A 4- or 8-byte pad would misalign the float4 accesses.
constexpr int kFloat4RowPadBytes = 16;
}  // namespace predict

}  // namespace lab04
