// Lab 06's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process. Each
// shared-memory instruction of gemm_ldmatrix is described here, once, as the access function
// gives it; the CPU tier and the GPU tier's messages read it.

int main(int argc, char** argv) {
  using namespace lab06;
  probe::Writer w(argc, argv, "06");
  w.value("kTileRows", kTileRows);
  w.value("kTileK", kTileK);
  w.value("kChunkBytes", kChunkBytes);
  w.value("kChunksPerRow", kChunksPerRow);
  w.value("kThreads", kThreads);
  w.value("kTileBytes", kTileBytes);

  w.table("tile_offset", {kTileRows, kChunksPerRow}, [](const int* i) { return tile_offset(i[0], i[1]); });

  // gemm_ldmatrix, one 64-wide step of k (every step repeats the same instructions). A's tile
  // starts at byte 0 of the block's shared memory, B's at kTileBytes.
  // The stores that fill the tiles: tile i[0] (0 = A, 1 = B), warp i[1], pass i[2]: thread
  // t = 32 w + lane copies chunk e = t + kThreads * pass, chunk e % 8 of row e / 8.
  const int warps = kThreads / 32, passes = kTileRows * kChunksPerRow / kThreads;
  w.access("tile_store", "st", 16, {2, warps, passes}, [](const int* i, int lane) {
    const int e = 32 * i[1] + lane + kThreads * i[2];
    return static_cast<long long>(i[0]) * kTileBytes + tile_offset(e / kChunksPerRow, e % kChunksPerRow);
  });
  // ldmatrix.x4 of A: warp i[0], k step s = i[1], 16-row block i = i[2]: lane l gives row
  // 32 (w / 2) + 16 i + l % 16, chunk 2 s + l / 16.
  w.access("a_ldmatrix", "ldsm", 16, {warps, kTileK / 16, 2}, [](const int* i, int lane) {
    return static_cast<long long>(tile_offset(32 * (i[0] / 2) + 16 * i[2] + lane % 16, 2 * i[1] + lane / 16));
  });
  // ldmatrix.x4 of B: warp i[0], k step s = i[1], 16-row block j = i[2]: lane l gives row
  // 32 (w % 2) + 16 j + 8 (l / 16) + l % 8, chunk 2 s + (l / 8) % 2.
  w.access("b_ldmatrix", "ldsm", 16, {warps, kTileK / 16, 2}, [](const int* i, int lane) {
    return static_cast<long long>(kTileBytes) +
           tile_offset(32 * (i[0] % 2) + 16 * i[2] + 8 * (lane / 16) + lane % 8, 2 * i[1] + (lane / 8) % 2);
  });

  w.predict("kRowMajorX4Wavefronts", predict::kRowMajorX4Wavefronts);
  w.predict("kRowMajorX1Wavefronts", predict::kRowMajorX1Wavefronts);
  w.predict("kSwizzledX4Wavefronts", predict::kSwizzledX4Wavefronts);
  w.predict("kSwizzledX2Wavefronts", predict::kSwizzledX2Wavefronts);
  w.predict("kSwizzledOffsetOfRow5Chunk3", predict::kSwizzledOffsetOfRow5Chunk3);
  w.predict("kPadded144X4Wavefronts", predict::kPadded144X4Wavefronts);
  w.predict("kPadded160X4Wavefronts", predict::kPadded160X4Wavefronts);
  return 0;
}
