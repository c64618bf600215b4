// Lab 05's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process. Its main()
// and every name, op, width and size come from the lab's description (labs/05_swizzle/judge/lab.toml); here is
// only the code that calls the student's functions, one function per table, instruction and launcher.
// The CPU tier, the replay harness and the trace comparison all read what it writes.
#include "grader/lab05_probe.hpp"

using namespace lab05;

long long lab05_desc::table_tile_index(const int* i) { return tile_index(i[0], i[1]); }
long long lab05_desc::table_chunk_offset(const int* i) { return chunk_offset(i[0], i[1]); }

// transpose_swizzled: warp w (threadIdx.y == w), loop step s (j = s * BLOCK_ROWS); lane = threadIdx.x.
long long lab05_desc::access_row_write(const int* i, int lane) { return 4LL * tile_index(i[0] + i[1] * BLOCK_ROWS, lane); }
long long lab05_desc::access_column_read(const int* i, int lane) { return 4LL * tile_index(lane, i[0] + i[1] * BLOCK_ROWS); }
// transpose_float4: thread t = 32 w + lane writes chunk t % kChunksPerRow of row t / kChunksPerRow,
// then warp w reads chunk w of row lane.
long long lab05_desc::access_chunk_row_write(const int* i, int lane) {
  const int t = 32 * i[0] + lane;
  return static_cast<long long>(chunk_offset(t / kChunksPerRow, t % kChunksPerRow));
}
long long lab05_desc::access_chunk_column_read(const int* i, int lane) { return static_cast<long long>(chunk_offset(lane, i[0])); }

// The launchers, called as the GPU tier's checks call them.
void lab05_desc::launch_transpose(const probe::Call& call) {
  const int wd = call.size(0), ht = call.size(1);
  const std::uint64_t bytes = 4ull * wd * ht;
  call({bytes, bytes}, [wd, ht](const probe::Fakes& f) { transpose(f.ptr<float>(0), f.ptr<const float>(1), wd, ht); });
}
void lab05_desc::launch_transpose4(const probe::Call& call) {
  const int wd = call.size(0), ht = call.size(1);
  const std::uint64_t bytes = 16ull * wd * ht;
  call({bytes, bytes}, [wd, ht](const probe::Fakes& f) { transpose4(f.ptr<float4>(0), f.ptr<const float4>(1), wd, ht); });
}
