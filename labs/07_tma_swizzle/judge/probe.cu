// Lab 07's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process. Its main()
// and every name, op, width and size come from the lab's description (labs/07_tma_swizzle/judge/lab.toml);
// here is only the code that calls the student's functions, one function per table, instruction
// and launcher. The CPU tier and the GPU tier's messages read what it writes.
#include "grader/lab07_probe.hpp"

using namespace lab07;

long long lab07_desc::table_tile_offset(const int* i) { return tile_offset(i[0], i[1]); }

// gemm_tma, one 64-wide step of k (every step repeats the same instructions). TMA fills the tiles;
// A's tile starts at byte 0 of the block's shared memory, B's at kTileBytes.
// ldmatrix.x4 of A: warp i[0], k step s = i[1], 16-row block i = i[2]: lane l gives row
// 32 (w / 2) + 16 i + l % 16, chunk 2 s + l / 16.
long long lab07_desc::access_a_ldmatrix(const int* i, int lane) {
  return static_cast<long long>(tile_offset(32 * (i[0] / 2) + 16 * i[2] + lane % 16, 2 * i[1] + lane / 16));
}
// ldmatrix.x4 of B: warp i[0], k step s = i[1], 16-row block j = i[2]: lane l gives row
// 32 (w % 2) + 16 j + 8 (l / 16) + l % 8, chunk 2 s + (l / 8) % 2.
long long lab07_desc::access_b_ldmatrix(const int* i, int lane) {
  return static_cast<long long>(kTileBytes) +
         tile_offset(32 * (i[0] % 2) + 16 * i[2] + 8 * (lane / 16) + lane % 8, 2 * i[1] + (lane / 8) % 2);
}

// The launcher, called as the GPU tier's checks call it: c is m x n floats; the tensor maps of a
// and b are 128 bytes each (the judge encodes them over its own a and b).
void lab07_desc::launch_gemm(const probe::Call& call) {
  const int m = call.size(0), n = call.size(1), k = call.size(2);
  const std::uint64_t c_bytes = 4ull * m * n, map_bytes = sizeof(CUtensorMap);
  call({c_bytes, map_bytes, map_bytes}, [m, n, k](const probe::Fakes& f) {
    gemm(f.ptr<float>(0), f.ptr<const CUtensorMap>(1), f.ptr<const CUtensorMap>(2), m, n, k);
  });
}
