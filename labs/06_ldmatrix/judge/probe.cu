// Lab 06's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process. Its main()
// and every name, op, width and size come from the lab's description (labs/06_ldmatrix/judge/lab.toml); here is
// only the code that calls the student's functions, one function per table, instruction and launcher.
// The CPU tier and the GPU tier's messages read what it writes.
#include "grader/lab06_probe.hpp"

using namespace lab06;

long long lab06_desc::table_tile_offset(const int* i) { return tile_offset(i[0], i[1]); }

// gemm_ldmatrix, one kTileK-wide step of k (every step repeats the same instructions). A's tile
// starts at byte 0 of the block's shared memory, B's at kTileBytes.
// The stores that fill the tiles: tile i[0] (0 = A, 1 = B), warp i[1], pass i[2]: thread
// t = 32 w + lane copies chunk e = t + kThreads * pass, chunk e % kChunksPerRow of row e / kChunksPerRow.
long long lab06_desc::access_tile_store(const int* i, int lane) {
  const int e = 32 * i[1] + lane + kThreads * i[2];
  return static_cast<long long>(i[0]) * kTileBytes + tile_offset(e / kChunksPerRow, e % kChunksPerRow);
}
// ldmatrix.x4 of A: warp i[0], k step s = i[1], 16-row block i = i[2]: lane l gives row
// 32 (w / 2) + 16 i + l % 16, chunk 2 s + l / 16.
long long lab06_desc::access_a_ldmatrix(const int* i, int lane) {
  return static_cast<long long>(tile_offset(32 * (i[0] / 2) + 16 * i[2] + lane % 16, 2 * i[1] + lane / 16));
}
// ldmatrix.x4 of B: warp i[0], k step s = i[1], 16-row block j = i[2]: lane l gives row
// 32 (w % 2) + 16 j + 8 (l / 16) + l % 8, chunk 2 s + (l / 8) % 2.
long long lab06_desc::access_b_ldmatrix(const int* i, int lane) {
  return static_cast<long long>(kTileBytes) +
         tile_offset(32 * (i[0] % 2) + 16 * i[2] + 8 * (lane / 16) + lane % 8, 2 * i[1] + (lane / 8) % 2);
}

// The launcher, called as the GPU tier's checks call it: c is m x n floats, a m x k and b n x k halves.
void lab06_desc::launch_gemm(const probe::Call& call) {
  const int m = call.size(0), n = call.size(1), k = call.size(2);
  const std::uint64_t c_bytes = 4ull * m * n, a_bytes = 2ull * m * k, b_bytes = 2ull * n * k;
  call({c_bytes, a_bytes, b_bytes}, [m, n, k](const probe::Fakes& f) {
    gemm(f.ptr<float>(0), f.ptr<const __half>(1), f.ptr<const __half>(2), m, n, k);
  });
}
