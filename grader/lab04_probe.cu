// Lab 04's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process.
// Each shared-memory instruction of transpose_padded is described here, once.

int main(int argc, char** argv) {
  using namespace lab04;
  probe::Writer w(argc, argv, "04");
  w.value("TILE_DIM", TILE_DIM);
  w.value("BLOCK_ROWS", BLOCK_ROWS);
  w.value("kPad", kPad);
  w.value("kTileFloats", kTileFloats);
  w.table("tile_index", {TILE_DIM, TILE_DIM}, [](const int* i) { return tile_index(i[0], i[1]); });
  // transpose_padded: warp w (threadIdx.y == w), loop step s (j = s * BLOCK_ROWS); lane = threadIdx.x.
  const int steps = TILE_DIM / BLOCK_ROWS;
  w.access("row_write", "st", 4, {BLOCK_ROWS, steps},
           [](const int* i, int lane) { return 4LL * tile_index(i[0] + i[1] * BLOCK_ROWS, lane); });
  w.access("column_read", "ld", 4, {BLOCK_ROWS, steps},
           [](const int* i, int lane) { return 4LL * tile_index(lane, i[0] + i[1] * BLOCK_ROWS); });
  w.predict("kUnpaddedColumnReadWavefronts", predict::kUnpaddedColumnReadWavefronts);
  w.predict("kPaddedColumnReadWavefronts", predict::kPaddedColumnReadWavefronts);
  w.predict("kPaddedTileBytes", predict::kPaddedTileBytes);
  w.predict("kDoublePad", predict::kDoublePad);
  w.predict("kPaddedDoubleColumnReadWavefronts", predict::kPaddedDoubleColumnReadWavefronts);
  w.predict("kFloat4RowPadBytes", predict::kFloat4RowPadBytes);
  // The launcher(s), called as the GPU tier's checks call them (grader/launch_calls.hpp).
  probe::kernel(transpose_padded);
  for (const auto& s : grader_calls::transpose::kSizes) {
    const int wd = s[0], ht = s[1];
    const std::uint64_t bytes = 4ull * wd * ht;
    probe::call(w, grader_calls::name("transpose", {wd, ht}), {bytes, bytes}, [wd, ht](const probe::Fakes& f) {
      transpose(f.ptr<float>(0), f.ptr<const float>(1), wd, ht);
    });
  }
  return 0;
}
