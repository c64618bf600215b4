// Lab 04's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process. Its main()
// and every name, op, width and size come from the lab's description (labs/04_padding/judge/lab.toml); here is
// only the code that calls the student's functions, one function per table, instruction and launcher.

#include "grader/lab04_probe.hpp"

using namespace lab04;

namespace {
// The tile's rows: kTileFloats / (TILE_DIM + kPad), TILE_DIM as written, kTileRows in a variant's
// stub (lab.toml [variants] rows: its tables' and instructions' dims say the same). kWarps: the
// warps of a block, at most one a row of the tile; kColsPerWarp: the columns a warp's column read takes.
constexpr int kRows = kTileFloats / (TILE_DIM + kPad);
constexpr int kWarps = BLOCK_ROWS < kRows ? BLOCK_ROWS : kRows;
constexpr int kColsPerWarp = 32 / kRows;
}  // namespace

long long lab04_desc::table_tile_index(const int* i) { return tile_index(i[0], i[1]); }

// transpose_padded: warp w (threadIdx.y == w), loop step s; lane = threadIdx.x. The row write stores
// row w + s * kWarps, column lane; the column read loads row lane % kRows of column
// (w + s * kWarps) * kColsPerWarp + lane / kRows (as written, 32 rows: row lane, column w + s * BLOCK_ROWS).
long long lab04_desc::access_row_write(const int* i, int lane) { return 4LL * tile_index(i[0] + i[1] * kWarps, lane); }
long long lab04_desc::access_column_read(const int* i, int lane) {
  return 4LL * tile_index(lane % kRows, (i[0] + i[1] * kWarps) * kColsPerWarp + lane / kRows);
}

// The launcher, called as the GPU tier's checks call it.
void lab04_desc::launch_transpose(const probe::Call& call) {
  const int wd = call.size(0), ht = call.size(1);
  const std::uint64_t bytes = 4ull * wd * ht;
  call({bytes, bytes}, [wd, ht](const probe::Fakes& f) { transpose(f.ptr<float>(0), f.ptr<const float>(1), wd, ht); });
}
