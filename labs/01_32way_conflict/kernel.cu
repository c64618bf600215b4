// Lab 01: the 32-way conflict. Row sums of a matrix with 32 columns: a warp stages a 32x32 tile
// in shared memory (lane i stores column i of each row: coalesced, conflict-free), then each lane
// adds up one row of the tile. Walking along a row looks innocent, but at every step the 32
// lanes read one COLUMN of the tile: where do the 32 words of a column lie?
// This file is the only one you edit: look for LAB TODO.
#include <cuda_runtime.h>

#include "banklab/hardware.hpp"

namespace lab01 {

constexpr int TILE_DIM = 32;   // the tile holds TILE_DIM rows, one a lane
constexpr int kTileCols = 32;  // the matrix's columns: each row of the tile holds kTileCols floats

// LAB TODO (one way to fix it): the distance, in floats, from the start of one row of the tile
// to the start of the next. At kTileCols the rows follow each other with no gap.
constexpr int kRowStride = kTileCols;

// Floats the shared tile takes (the floats between kTileCols and kRowStride of a row are never used).
constexpr int kTileFloats = TILE_DIM * kRowStride;

// The access function: where tile[row][col] lives in the flat shared array. The kernel and the
// grader both use it.
BANKLAB_HD constexpr int tile_index(int row, int col) { return row * kRowStride + col; }

// LAB TODO (the other way to fix it): which column lane `lane` adds at step `step`. Every lane
// must still add each column of its row exactly once over the kTileCols steps; the order is yours.
BANKLAB_HD constexpr int walk_col(int lane, int step) { return step; }

// sums[r] = in[r][0] + ... + in[r][kTileCols - 1] for `rows` rows (a multiple of TILE_DIM), one
// warp (one block) per 32 rows.
__global__ void row_sums(const float* in, float* sums) {
  // volatile: every access below stays one 4-byte shared access, exactly as written (else the
  // compiler may merge 4 neighbouring floats of a lane into one 16-byte access: lab 03).
  __shared__ volatile float tile[kTileFloats];
  const int lane = static_cast<int>(threadIdx.x);
  const long row0 = static_cast<long>(blockIdx.x) * TILE_DIM;

  // Stage 32 rows: each step the warp stores 32 consecutive columns of one row of the tile.
  for (int r = 0; r < TILE_DIM; ++r)
    for (int c = lane; c < kTileCols; c += TILE_DIM) tile[tile_index(r, c)] = in[(row0 + r) * kTileCols + c];
  __syncwarp();

  // Lane `lane` adds up row `lane`: each step is one shared load for the warp.
  float sum = 0.0f;
  for (int step = 0; step < kTileCols; ++step) sum += tile[tile_index(lane, walk_col(lane, step))];
  sums[row0 + lane] = sum;
}

// Host launcher: `rows` must be a multiple of TILE_DIM.
inline void row_sums_launch(const float* in, float* sums, int rows, cudaStream_t stream = 0) {
  row_sums<<<rows / TILE_DIM, TILE_DIM, 0, stream>>>(in, sums);
}

// Your predictions: a warp of 32 lanes loads floats from shared memory, lane i reads the float
// at word i * S (S = the stride in 4-byte words). How many wavefronts does the load take?
namespace predict {
// LAB TODO: stride S = 2
constexpr int kStride2Wavefronts = -1;
// LAB TODO: stride S = 4
constexpr int kStride4Wavefronts = -1;
// LAB TODO: stride S = 8
constexpr int kStride8Wavefronts = -1;
// LAB TODO: stride S = 16
constexpr int kStride16Wavefronts = -1;
// LAB TODO: stride S = 32 (the stub's row walk)
constexpr int kStride32Wavefronts = -1;
// LAB TODO: stride S = 3 (an odd stride)
constexpr int kStride3Wavefronts = -1;
// LAB TODO: stride S = 48 (neither odd nor a power of two)
constexpr int kStride48Wavefronts = -1;
}  // namespace predict

}  // namespace lab01
