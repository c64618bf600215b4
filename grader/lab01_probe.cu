// Lab 01's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process.
// Each shared-memory instruction of row_sums is described here, once.

int main(int argc, char** argv) {
  using namespace lab01;
  probe::Writer w(argc, argv, "01");
  w.value("TILE_DIM", TILE_DIM);
  w.value("kRowStride", kRowStride);
  w.value("kTileFloats", kTileFloats);
  w.table("tile_index", {TILE_DIM, TILE_DIM}, [](const int* i) { return tile_index(i[0], i[1]); });
  w.table("walk_col", {TILE_DIM, TILE_DIM}, [](const int* i) { return walk_col(i[0], i[1]); });  // (lane, step)
  // row_sums, one warp per 32 rows: stage row r (lane l stores column l), then at each step lane l
  // loads column walk_col(l, step) of row l.
  w.access("staging_store", "st", 4, {TILE_DIM}, [](const int* i, int lane) { return 4LL * tile_index(i[0], lane); });
  w.access("row_sum_load", "ld", 4, {TILE_DIM},
           [](const int* i, int lane) { return 4LL * tile_index(lane, walk_col(lane, i[0])); });
  w.predict("kStride2Wavefronts", predict::kStride2Wavefronts);
  w.predict("kStride4Wavefronts", predict::kStride4Wavefronts);
  w.predict("kStride8Wavefronts", predict::kStride8Wavefronts);
  w.predict("kStride16Wavefronts", predict::kStride16Wavefronts);
  w.predict("kStride32Wavefronts", predict::kStride32Wavefronts);
  w.predict("kStride3Wavefronts", predict::kStride3Wavefronts);
  w.predict("kStride48Wavefronts", predict::kStride48Wavefronts);
  // The launcher, called as the GPU tier's checks call it (grader/launch_calls.hpp).
  probe::kernel(row_sums);
  for (int rows : {grader_calls::lab01::kCorrectRows, grader_calls::lab01::kTimingRows}) {
    probe::call(w, grader_calls::name("row_sums_launch", {rows}), {128ull * rows, 4ull * rows},
                [rows](const probe::Fakes& f) { row_sums_launch(f.ptr<const float>(0), f.ptr<float>(1), rows); });
  }
  return 0;
}
