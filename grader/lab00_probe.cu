// Lab 00's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process.
// Each shared-memory instruction of multiply_by_i is described here, once.

int main(int argc, char** argv) {
  using namespace lab00;
  probe::Writer w(argc, argv, "00");
  w.value("TILE_DIM", TILE_DIM);
  w.value("kTileFloats", kTileFloats);
  w.table("cell_row", {TILE_DIM, TILE_DIM}, [](const int* i) { return cell_of(i[0], i[1]).row; });  // (lane, step)
  w.table("cell_col", {TILE_DIM, TILE_DIM}, [](const int* i) { return cell_of(i[0], i[1]).col; });
  w.table("tile_index", {TILE_DIM, TILE_DIM}, [](const int* i) { return tile_index(i[0], i[1]); });
  // multiply_by_i, one warp per tile: at step s lane l stores its cell, then loads the partner.
  w.access("tile_store", "st", 4, {TILE_DIM}, [](const int* i, int lane) {
    const Cell e = cell_of(lane, i[0]);
    return static_cast<long long>(tile_byte_offset(e.row, e.col));
  });
  w.access("partner_load", "ld", 4, {TILE_DIM}, [](const int* i, int lane) {
    const Cell e = cell_of(lane, i[0]);
    return static_cast<long long>(tile_byte_offset(e.row, e.col ^ 1));
  });
  w.predict("kBankOfFloat_5_7", predict::kBankOfFloat_5_7);
  w.predict("kWordOfDouble13", predict::kWordOfDouble13);
  w.predict("kFirstBankOfDouble13", predict::kFirstBankOfDouble13);
  w.predict("kSecondBankOfDouble13", predict::kSecondBankOfDouble13);
  w.predict("kBankOfChar130", predict::kBankOfChar130);
  w.predict("kBankOfShort70", predict::kBankOfShort70);
  w.predict("kBanksPerFloat4", predict::kBanksPerFloat4);
  w.predict("kRowReadWavefronts", predict::kRowReadWavefronts);
  w.predict("kColumnReadWavefronts", predict::kColumnReadWavefronts);
  w.predict("kCharReadWavefronts", predict::kCharReadWavefronts);
  // The launcher, called as the GPU tier's checks call it (grader/launch_calls.hpp): the launches
  // it makes are what the judge runs.
  probe::kernel(multiply_by_i);
  for (int tiles : {grader_calls::lab00::kCorrectTiles, grader_calls::lab00::kTimingTiles}) {
    const std::uint64_t bytes = 4096ull * tiles;
    probe::call(w, grader_calls::name("multiply_by_i_tiles", {tiles}), {bytes, bytes},
                [tiles](const probe::Fakes& f) { multiply_by_i_tiles(f.ptr<const float>(0), f.ptr<float>(1), tiles); });
  }
  return 0;
}
