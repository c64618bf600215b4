// Lab 01's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process. Its main()
// and every name, op, width and size come from the lab's description (labs/01_32way_conflict/judge/lab.toml); here is
// only the code that calls the student's functions, one function per table, instruction and launcher.
#include "grader/lab01_probe.hpp"

using namespace lab01;

long long lab01_desc::table_tile_index(const int* i) { return tile_index(i[0], i[1]); }
long long lab01_desc::table_walk_col(const int* i) { return walk_col(i[0], i[1]); }  // (lane, step)

// row_sums, one warp per 32 rows: stage row r, 32 columns at a time (lane l stores column
// 32 * j + l), then at each step lane l loads column walk_col(l, step) of row l.
long long lab01_desc::access_staging_store(const int* i, int lane) { return 4LL * tile_index(i[0], TILE_DIM * i[1] + lane); }
long long lab01_desc::access_row_sum_load(const int* i, int lane) { return 4LL * tile_index(lane, walk_col(lane, i[0])); }

// The launcher, called as the GPU tier's checks call it.
void lab01_desc::launch_row_sums_launch(const probe::Call& call) {
  const int rows = call.size(0);
  call({4ull * kTileCols * rows, 4ull * rows}, [rows](const probe::Fakes& f) { row_sums_launch(f.ptr<const float>(0), f.ptr<float>(1), rows); });
}
