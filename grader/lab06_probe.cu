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
  // The launcher, called as the GPU tier's checks call it (grader/launch_calls.hpp).
  probe::kernel(gemm_ldmatrix);
  auto record_gemm = [&w](int m, int n, int k) {
    const std::uint64_t c_bytes = 4ull * m * n, a_bytes = 2ull * m * k, b_bytes = 2ull * n * k;
    probe::call(w, grader_calls::name("gemm", {m, n, k}), {c_bytes, a_bytes, b_bytes}, [m, n, k](const probe::Fakes& f) {
      gemm(f.ptr<float>(0), f.ptr<const __half>(1), f.ptr<const __half>(2), m, n, k);
    });
  };
  for (const auto& s : grader_calls::lab06::kCorrectSizes) record_gemm(s[0], s[1], s[2]);
  record_gemm(grader_calls::lab06::kTimingSize[0], grader_calls::lab06::kTimingSize[1], grader_calls::lab06::kTimingSize[2]);
  return 0;
}
