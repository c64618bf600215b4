// Transposes in the GPU tier (labs 04 and 05): the grader's own CPU oracle, and the tiled copy
// that a transpose's bandwidth is compared with.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "grader/gpu/buffers.cuh"
#include "grader/gpu/timing.cuh"

namespace grader::gpu {

/// The transpose of `in` (`height` rows of `width`): out[c * height + r] = in[r * width + c].
inline std::vector<float> cpu_transpose(const std::vector<float>& in, int width, int height) {
  std::vector<float> out(in.size());
  for (std::size_t r = 0; r < static_cast<std::size_t>(height); ++r)
    for (std::size_t c = 0; c < static_cast<std::size_t>(width); ++c) out[c * height + r] = in[r * width + c];
  return out;
}

namespace detail {
// The fair baseline for a tiled transpose (as in cuda-samples' transpose.cu): the same 32x8
// thread blocks moving a 32x32 tile, four rows per thread, both sides coalesced.
inline constexpr int kCopyTile = 32;
inline constexpr int kCopyBlockRows = 8;
template <int Tile, int BlockRows>  // a template, so the header may be included anywhere
__global__ void copy_tiled(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = static_cast<int>(blockIdx.x) * Tile + static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(blockIdx.y) * Tile + static_cast<int>(threadIdx.y);
  // All loads first, then all stores: like the transpose, each thread keeps Tile / BlockRows loads
  // in flight (interleaved load/store pairs would leave one, and make the baseline slow).
  float v[Tile / BlockRows];
#pragma unroll
  for (int j = 0; j < Tile / BlockRows; ++j) v[j] = in[static_cast<long>(y + j * BlockRows) * n + x];
#pragma unroll
  for (int j = 0; j < Tile / BlockRows; ++j) out[static_cast<long>(y + j * BlockRows) * n + x] = v[j];
}
}  // namespace detail

/// The grader's own conflict-free transpose (labs 04 and 05): the same 32 x 8 blocks moving a
/// 32 x 32 tile, four rows per thread, with row r keeping column c at column (c + r) % 32 (a
/// rotation, so a column of the tile lies in 32 different banks). The whole-kernel timing
/// target compares a student's transpose with it.
template <int Tile = 32, int BlockRows = 8>
__global__ void reference_transpose(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[Tile * Tile];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  int x = static_cast<int>(blockIdx.x) * Tile + tx, y = static_cast<int>(blockIdx.y) * Tile + ty;
  for (int j = 0; j < Tile; j += BlockRows)
    tile[(ty + j) * Tile + ((tx + ty + j) % Tile)] = idata[static_cast<long>(y + j) * width + x];
  __syncthreads();
  x = static_cast<int>(blockIdx.y) * Tile + tx;
  y = static_cast<int>(blockIdx.x) * Tile + ty;
  for (int j = 0; j < Tile; j += BlockRows)
    odata[static_cast<long>(y + j) * height + x] = tile[tx * Tile + ((ty + j + tx) % Tile)];
}

/// Launches the reference with the block shape of the student's launch: 32 x R threads for R in
/// 1, 2, 4, 8, 16, 32 (another shape gets the handout's 32 x 8).
inline void launch_reference_transpose(float* out, const float* in, int width, int height, dim3 block = dim3(32, 8)) {
  const dim3 grid(static_cast<unsigned>(width / 32), static_cast<unsigned>(height / 32));
  const unsigned rows = block.x == 32 && block.z == 1 ? block.y : 8;
  switch (rows) {
    case 1: reference_transpose<32, 1><<<grid, dim3(32, 1)>>>(out, in, width, height); break;
    case 2: reference_transpose<32, 2><<<grid, dim3(32, 2)>>>(out, in, width, height); break;
    case 4: reference_transpose<32, 4><<<grid, dim3(32, 4)>>>(out, in, width, height); break;
    case 16: reference_transpose<32, 16><<<grid, dim3(32, 16)>>>(out, in, width, height); break;
    case 32: reference_transpose<32, 32><<<grid, dim3(32, 32)>>>(out, in, width, height); break;
    default: reference_transpose<32, 8><<<grid, dim3(32, 8)>>>(out, in, width, height); break;
  }
  CUDA_CHECK(cudaGetLastError());
}

/// The grader's conflict-free transpose of a tile of `Rows` rows of 32 floats (lab 04's variants:
/// lab.toml [variants] rows), `Warps` warps a block: rows are written by lanes as the 32 x 32
/// reference writes them, and a warp reads 32 / Rows columns of the Rows rows (lane l: row
/// l % Rows). Row r keeps column c at column (c + r * 32 / Rows) % 32 (a rotation), so both the
/// row writes and the column reads meet the model's minimum. Rows = 32 is reference_transpose.
template <int Rows, int Warps>
__global__ void reference_transpose_rows(float* odata, const float* idata, int width, int height) {
  constexpr int kTile = 32, kShift = kTile / Rows, kColsPerWarp = kTile / Rows;
  __shared__ float tile[Rows * kTile];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  int x = static_cast<int>(blockIdx.x) * kTile + tx, y = static_cast<int>(blockIdx.y) * Rows + ty;
  for (int j = 0; j < Rows; j += Warps)
    tile[(ty + j) * kTile + ((tx + (ty + j) * kShift) % kTile)] = idata[static_cast<long>(y + j) * width + x];
  __syncthreads();
  const int r = tx % Rows, c = ty * kColsPerWarp + tx / Rows;
  x = static_cast<int>(blockIdx.y) * Rows + r;
  y = static_cast<int>(blockIdx.x) * kTile + c;
  for (int j = 0; j < kTile; j += Warps * kColsPerWarp)
    odata[static_cast<long>(y + j) * height + x] = tile[r * kTile + ((c + j + r * kShift) % kTile)];
}

/// Launches reference_transpose_rows for a tile of `rows` rows (2, 4, 8, 16; 32 and any other
/// count: launch_reference_transpose with `block`), min(8, rows) warps a block.
inline void launch_reference_transpose_rows(float* out, const float* in, int width, int height, int rows,
                                            dim3 block = dim3(32, 8)) {
  const dim3 grid(static_cast<unsigned>(width / 32), static_cast<unsigned>(height / (rows > 0 ? rows : 32)));
  switch (rows) {
    case 2: reference_transpose_rows<2, 2><<<grid, dim3(32, 2)>>>(out, in, width, height); break;
    case 4: reference_transpose_rows<4, 4><<<grid, dim3(32, 4)>>>(out, in, width, height); break;
    case 8: reference_transpose_rows<8, 8><<<grid, dim3(32, 8)>>>(out, in, width, height); break;
    case 16: reference_transpose_rows<16, 8><<<grid, dim3(32, 8)>>>(out, in, width, height); break;
    default: launch_reference_transpose(out, in, width, height, block); return;
  }
  CUDA_CHECK(cudaGetLastError());
}

/// An n x n float kernel timed against the tiled copy of the same size, interleaved, median of
/// `reps`. Prints "[ BANDWIDTH] ..." with both bandwidths and the fraction; returns the fraction.
inline double fraction_of_copy_bandwidth(const std::string& what, const std::function<void()>& launch, const float* in,
                                         float* out, int n, int reps = 21) {
  const dim3 grid(static_cast<unsigned>(n / detail::kCopyTile), static_cast<unsigned>(n / detail::kCopyTile));
  const dim3 block(detail::kCopyTile, detail::kCopyBlockRows);
  auto copy = [=] {
    detail::copy_tiled<detail::kCopyTile, detail::kCopyBlockRows><<<grid, block>>>(in, out, n);
    CUDA_CHECK(cudaGetLastError());
  };
  const Timing t = interleaved_median_ms(launch, copy, reps, {}, what);
  const double bytes = 2.0 * static_cast<double>(n) * n * sizeof(float);
  const double gbs = bytes / (t.a_ms * 1e6), copy_gbs = bytes / (t.b_ms * 1e6);
  std::printf("[ BANDWIDTH] %s: %dx%d floats, %.1f GB/s vs tiled copy %.1f GB/s = %.1f %% of copy\n", what.c_str(), n,
              n, gbs, copy_gbs, 100.0 * gbs / copy_gbs);
  std::fflush(stdout);
  return gbs / copy_gbs;
}

/// Runs `launch(out, in, width, height)` on fresh random input with a poisoned, guarded output
/// and checks every element against the grader's CPU transpose.
inline ::testing::AssertionResult TransposesCorrectly(const std::string& what,
                                                      const std::function<cudaError_t(float*, const float*, int, int)>& launch,
                                                      int width, int height) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  const std::vector<float> in = random_floats(n);
  DeviceBuffer<float> d_in(n);
  GuardedBuffer<float> d_out(n);
  d_in.upload(in);
  const cudaError_t e = launch(d_out.get(), d_in.get(), width, height);
  if (e != cudaSuccess)
    return ::testing::AssertionFailure() << what << " could not be launched: " << cudaGetErrorString(e);
  FinishesWithin(20.0, what);
  if (auto ok = LaunchSucceeded(what); !ok) return ok;
  if (auto ok = d_out.guards_intact(what.c_str()); !ok) return ok;
  const std::string name = what + " of a " + std::to_string(height) + " x " + std::to_string(width) +
                           " matrix (out[c * height + r] = in[r * width + c])";
  return AllMatch(cpu_transpose(in, width, height), d_out.download(), name);
}

}  // namespace grader::gpu
