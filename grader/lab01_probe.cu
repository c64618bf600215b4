// Lab 01's probe (see grader/include/grader/probe.hpp). Each shared-memory instruction of
// row_sums is described here, once.
#include "grader/probe.hpp"
#include "kernel.cu"

#if defined(lab01) || defined(tile_index) || defined(walk_col) || defined(TILE_DIM) || \
    defined(kRowStride) || defined(predict)
#error "kernel.cu defines a macro named like a name of the lab: remove it"
#endif

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
  return 0;
}
