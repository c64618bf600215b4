// Lab 00's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process. Its main()
// and every name, op, width and size come from the lab's description (labs/00_bank_mapping/judge/lab.toml); here is
// only the code that calls the student's functions, one function per table, instruction and launcher.
#include "grader/lab00_probe.hpp"

using namespace lab00;

long long lab00_desc::table_cell_row(const int* i) { return cell_of(i[0], i[1]).row; }  // (lane, step)
long long lab00_desc::table_cell_col(const int* i) { return cell_of(i[0], i[1]).col; }
long long lab00_desc::table_tile_index(const int* i) { return tile_index(i[0], i[1]); }

// multiply_by_i, one warp per tile: at step s lane l stores its cell, then loads the partner.
long long lab00_desc::access_tile_store(const int* i, int lane) {
  const Cell e = cell_of(lane, i[0]);
  return static_cast<long long>(tile_byte_offset(e.row, e.col));
}
long long lab00_desc::access_partner_load(const int* i, int lane) {
  const Cell e = cell_of(lane, i[0]);
  return static_cast<long long>(tile_byte_offset(e.row, e.col ^ 1));
}

// The launcher, called as the GPU tier's checks call it: the launches it makes are what the judge runs.
void lab00_desc::launch_multiply_by_i_tiles(const probe::Call& call) {
  const int tiles = call.size(0);
  const std::uint64_t bytes = 4096ull * tiles;
  call({bytes, bytes}, [tiles](const probe::Fakes& f) { multiply_by_i_tiles(f.ptr<const float>(0), f.ptr<float>(1), tiles); });
}
