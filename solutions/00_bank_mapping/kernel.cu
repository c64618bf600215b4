// Lab 00 (solution): bank mapping. Where does an element of a shared array live: which 4-byte word, which
// bank? The kernel multiplies complex numbers by i. A warp stages a 32x32 tile of floats in
// shared memory (16 complex numbers per row, stored re, im, re, im, ...), then each lane reads
// the partner of its element (re <-> im) from the tile: out.re = -in.im, out.im = in.re.
// The solution: same interface as labs/00_bank_mapping/kernel.cu.
#include <cuda_runtime.h>

#include <cstdint>

#include "banklab/hardware.hpp"

namespace lab00 {

constexpr int TILE_DIM = 32;                         // a warp's lanes, and the steps of each lane's walk
constexpr int kTileCols = 32;                        // floats a row of the tile holds (re, im pairs)
constexpr int kTileRows = TILE_DIM * TILE_DIM / kTileCols;  // rows of the tile: 1024 floats in all
constexpr int kTileFloats = kTileRows * kTileCols;   // no padding in this lab

// One element of the tile.
struct Cell {
  int row;
  int col;
};

// Element n of the tile (0 to kTileFloats - 1, counting row by row): its cell.
BANKLAB_HD constexpr Cell cell_at(int n) { return Cell{n / kTileCols, n % kTileCols}; }

// Which element lane `lane` handles at step `step` (0 .. TILE_DIM-1). Over the 32 steps every
// lane handles 32 elements, and the warp handles every element of the tile once.
// Solution: the lane is the last index. At each step the warp touches 32 consecutive floats of
// the tile (one row of 32, or 32 / kTileCols rows, or part of a longer row): 32 different banks.
// (The stub's Cell{lane, step} made every step 32 words 32 apart: all in one bank.)
BANKLAB_HD constexpr Cell cell_of(int lane, int step) { return cell_at(step * TILE_DIM + lane); }

// The access function: where tile[row][col] lives in the flat shared array. It is the layout
// C++ gives `float tile[32][32]`: row-major. The kernel and the grader both use it.
BANKLAB_HD constexpr int tile_index(int row, int col) { return row * kTileCols + col; }

// The same place as a byte offset from the start of the tile (what the bank depends on).
BANKLAB_HD constexpr std::uint32_t tile_byte_offset(int row, int col) {
  return static_cast<std::uint32_t>(tile_index(row, col)) * sizeof(float);
}

// out = i * in for `num_tiles` tiles of kTileRows x kTileCols floats (row-major), one warp (one
// block) per tile.
__global__ void multiply_by_i(const float* in, float* out) {
  // Same as float tile[kTileRows][kTileCols], flattened so tile_index() does all indexing.
  // volatile: every access below stays one 4-byte shared access, exactly as written (else the
  // compiler may merge 4 neighbouring floats of a lane into one 16-byte access: lab 03).
  __shared__ __align__(128) volatile float tile[kTileFloats];
  const int lane = static_cast<int>(threadIdx.x);
  const long base = static_cast<long>(blockIdx.x) * kTileFloats;

  // Stage the tile: one shared store per step.
  for (int step = 0; step < TILE_DIM; ++step) {
    const Cell e = cell_of(lane, step);
    tile[tile_index(e.row, e.col)] = in[base + e.row * kTileCols + e.col];
  }
  __syncwarp();

  // Read the partner (column col ^ 1: re <-> im) of each element: one shared load per step.
  for (int step = 0; step < TILE_DIM; ++step) {
    const Cell e = cell_of(lane, step);
    const float partner = tile[tile_index(e.row, e.col ^ 1)];
    out[base + e.row * kTileCols + e.col] = (e.col & 1) ? partner : -partner;
  }
}

// Host launcher: `num_tiles` tiles, 32 threads each.
inline void multiply_by_i_tiles(const float* in, float* out, int num_tiles, cudaStream_t stream = 0) {
  multiply_by_i<<<num_tiles, TILE_DIM, 0, stream>>>(in, out);
}

// Where elements of some shared arrays live, as the GPU itself sees it: for lane i, the bank of
// char c[5 * i], short h[3 * i], float f[i][7], double d[i] and float4 v[i], computed from the
// element's real shared-memory address. out holds 5 x 32 ints, one row per array.
__global__ void report_banks(int* out) {
  __shared__ __align__(128) char c[256];
  __shared__ __align__(128) short h[128];
  __shared__ __align__(128) float f[TILE_DIM][TILE_DIM];
  __shared__ __align__(128) double d[64];
  __shared__ __align__(128) float4 v[64];
  const int i = static_cast<int>(threadIdx.x);
  auto bank = [](const void* p) {
    const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
    return banklab::bank_of(addr);
  };
  out[0 * 32 + i] = bank(&c[5 * i]);
  out[1 * 32 + i] = bank(&h[3 * i]);
  out[2 * 32 + i] = bank(&f[i][7]);
  out[3 * 32 + i] = bank(&d[i]);
  out[4 * 32 + i] = bank(&v[i]);
}

// Your predictions. Work them out on paper: bank = (byte offset / 4) % 32, word = byte offset / 4.
// Every array starts at byte 0 of shared memory (so at bank 0).
namespace predict {
// the bank of element [5][7] of float a[32][32].
constexpr int kBankOfFloat_5_7 = 7;  // word 5*32+7 = 167, 167 % 32 = 7
// the word (byte offset / 4) where element 13 of double d[100] starts.
constexpr int kWordOfDouble13 = 26;  // byte 13*8 = 104, word 26
// the two banks that element 13 of double d[100] covers (first, second).
constexpr int kFirstBankOfDouble13 = 26;  // words 26 and 27
constexpr int kSecondBankOfDouble13 = 27;
// the bank of element 130 of char c[256].
constexpr int kBankOfChar130 = 0;  // byte 130, word 32, bank 0
// the bank of element 70 of short h[128].
constexpr int kBankOfShort70 = 3;  // byte 140, word 35, bank 3
// how many banks one float4 covers.
constexpr int kBanksPerFloat4 = 4;  // 16 bytes = 4 words
// wavefronts of a warp reading a ROW of float a[32][32] (lane i reads a[r][i]).
constexpr int kRowReadWavefronts = 1;  // 32 words in 32 banks
// wavefronts of a warp reading a COLUMN of float a[32][32] (lane i reads a[i][c]).
constexpr int kColumnReadWavefronts = 32;  // words 32*i + c: all in bank c
// wavefronts of a warp reading char c[256] with lane i reading c[i].
constexpr int kCharReadWavefronts = 1;  // 4 lanes share each word: 8 words, 8 banks
}  // namespace predict

}  // namespace lab00
