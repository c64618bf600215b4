// Lab 05: swizzling. The transpose of lab 04 again, conflict-free WITHOUT padding: each row of
// the tile stores its elements in a permuted order (an XOR swizzle), so a column of the tile is
// spread over all 32 banks while the tile stays exactly 32 x 32.
// A second kernel does the same for a tile of float4: 32 rows of 8 float4 (128 bytes each).
// Solution.
#include <cuda_runtime.h>

#include <cstdint>

#include "banklab/hardware.hpp"

namespace lab05 {

// ---- part 1: the float transpose -------------------------------------------------------------

constexpr int TILE_DIM = 32;   // the tile is TILE_DIM x TILE_DIM floats, no padding
constexpr int BLOCK_ROWS = 8;  // a block is TILE_DIM x BLOCK_ROWS threads, each thread four rows
constexpr int kTileFloats = TILE_DIM * TILE_DIM;

// Access function 1: where element (row, col) of the float tile lives in the flat shared array.
// Row r stores column c at column c ^ r: XOR with a fixed r permutes the 32 columns of the row
// (and is its own inverse), and a column c of rows 0-31 lands in 32 different banks c ^ r.
BANKLAB_HD constexpr int tile_index(int row, int col) {
  return row * TILE_DIM + (col ^ (row % TILE_DIM));  // = banklab::xor_swizzle_index(row, col)
}

// odata = transpose(idata); idata is `height` rows of `width` floats, both multiples of TILE_DIM.
__global__ void transpose_swizzled(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[kTileFloats];  // no padding: the layout is all in tile_index()

  int x = static_cast<int>(blockIdx.x) * TILE_DIM + static_cast<int>(threadIdx.x);
  int y = static_cast<int>(blockIdx.y) * TILE_DIM + static_cast<int>(threadIdx.y);
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)  // row write
    tile[tile_index(static_cast<int>(threadIdx.y) + j, static_cast<int>(threadIdx.x))] =
        idata[static_cast<long>(y + j) * width + x];

  __syncthreads();

  x = static_cast<int>(blockIdx.y) * TILE_DIM + static_cast<int>(threadIdx.x);  // swapped block
  y = static_cast<int>(blockIdx.x) * TILE_DIM + static_cast<int>(threadIdx.y);
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)  // column read
    odata[static_cast<long>(y + j) * height + x] =
        tile[tile_index(static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y) + j)];
}

// out (width x height) = transpose of in (height x width).
inline void transpose(float* out, const float* in, int width, int height, cudaStream_t stream = 0) {
  const dim3 grid(static_cast<unsigned>(width / TILE_DIM), static_cast<unsigned>(height / TILE_DIM));
  transpose_swizzled<<<grid, dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(out, in, width, height);
}

// ---- part 2: a transpose of float4 elements ---------------------------------------------------

constexpr int kChunkRows = 32;      // tile rows
constexpr int kChunksPerRow = 8;    // float4 per row: 8 x 16 bytes = 128 bytes, one pass over the banks
constexpr int kChunkBytes = 16;     // sizeof(float4)
constexpr std::uint32_t kChunkTileBytes = kChunkRows * kChunksPerRow * kChunkBytes;  // 4096

// Access function 2: byte offset of chunk `chunk` (0-7) of row `row` (0-31) in the float4 tile.
// CuTe's Swizzle<B, 4, S> on the byte offset: the B chunk bits [4, 4 + B) that pick a group of 4
// banks are XORed with the B bits above the 128-byte line of banks, [4 + S, 4 + S + B): the row's
// own bits when a row is 128 bytes or more, else the row pair's (64-byte rows). Rows of 128 bytes
// give Swizzle<3, 4, 3>: row r keeps chunk c at chunk c ^ (r % 8), and any 8 consecutive rows put
// one chunk column in 8 different groups of 4 banks.
BANKLAB_HD constexpr std::uint32_t chunk_offset(int row, int chunk) {
  constexpr int kRowBytes = static_cast<int>(kChunkTileBytes) / kChunkRows;  // 32 to 512 bytes
  constexpr int B = 1 + (kRowBytes > 32) + (kRowBytes > 64);                 // log2 of min(8, chunks a row)
  constexpr int S = 3 + (kRowBytes > 128) + (kRowBytes > 256);               // log2(max(row bytes, 128)) - 4
  return banklab::Swizzle<B, 4, S>{}(
      static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes));
}

// odata = transpose(idata) for a matrix of float4: idata is `height` rows of `width` float4,
// height a multiple of 32 and width a multiple of 8. A block of 256 threads moves a 32 x 8 tile.
__global__ void transpose_float4(float4* odata, const float4* idata, int width, int height) {
  __shared__ __align__(16) unsigned char tile[kChunkTileBytes];
  const int t = static_cast<int>(threadIdx.x);
  const int lane = t % 32, warp = t / 32;

  // Row write: each quarter-warp copies one 128-byte row (coalesced on both sides).
  const int row = t / kChunksPerRow, chunk = t % kChunksPerRow;
  const float4 v = idata[static_cast<long>(blockIdx.y * kChunkRows + row) * width +
                         blockIdx.x * kChunksPerRow + chunk];
  *reinterpret_cast<float4*>(tile + chunk_offset(row, chunk)) = v;

  __syncthreads();

  // Column read: warp w gathers chunk w of all 32 rows, lane i from row i, and writes them as
  // one contiguous row of the output.
  const float4 r = *reinterpret_cast<const float4*>(tile + chunk_offset(lane, warp));
  odata[static_cast<long>(blockIdx.x * kChunksPerRow + warp) * height + blockIdx.y * kChunkRows + lane] = r;
}

// out (width rows x height float4) = transpose of in (height rows x width float4).
inline void transpose4(float4* out, const float4* in, int width, int height, cudaStream_t stream = 0) {
  const dim3 grid(static_cast<unsigned>(width / kChunksPerRow), static_cast<unsigned>(height / kChunkRows));
  transpose_float4<<<grid, kChunkRows * kChunksPerRow, 0, stream>>>(out, in, width, height);
}

// Your predictions. Work them out on paper, then check with banklab explain.
namespace predict {
// wavefronts of one warp's column read of the UNSWIZZLED float tile (lane i reads
// row i, column c; tile_index(row, col) = row * 32 + col).
constexpr int kUnswizzledColumnReadWavefronts = 32;  // all of column c in bank c
// wavefronts of the same column read with the swizzle tile_index = row * 32 + (col ^ row).
constexpr int kSwizzledColumnReadWavefronts = 1;  // bank c ^ i for lane i: all different
// with that swizzle, in which column of row 5 is element (row 5, col 3) stored?
constexpr int kStoredColumnOfRow5Col3 = 3 ^ 5;  // 011 ^ 101 = 110 = 6
// bytes of shared memory the swizzled float tile saves over the padded tile[32][33].
constexpr int kBytesSavedOverPadding = 32 * 4;  // 4224 - 4096: one float per row
// wavefronts of one warp's UNSWIZZLED float4 column read (lane i reads chunk c of row i).
constexpr int kUnswizzledChunkColumnReadWavefronts = 32;  // 4 quarter-warps x 8 (banks c*4..c*4+3)
// wavefronts of the same float4 column read with the swizzle applied.
constexpr int kSwizzledChunkColumnReadWavefronts = 4;  // 4 quarter-warps x 1: the minimum
}  // namespace predict

}  // namespace lab05
