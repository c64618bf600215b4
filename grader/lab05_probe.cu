// Lab 05's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process. Each
// shared-memory instruction of the two kernels is described here, once, as the access functions
// give it; the CPU tier, the replay harness and the trace comparison all read it.

int main(int argc, char** argv) {
  using namespace lab05;
  probe::Writer w(argc, argv, "05");
  w.value("TILE_DIM", TILE_DIM);
  w.value("BLOCK_ROWS", BLOCK_ROWS);
  w.value("kTileFloats", kTileFloats);
  w.value("kChunkRows", kChunkRows);
  w.value("kChunksPerRow", kChunksPerRow);
  w.value("kChunkBytes", kChunkBytes);
  w.value("kChunkTileBytes", kChunkTileBytes);

  w.table("tile_index", {TILE_DIM, TILE_DIM}, [](const int* i) { return tile_index(i[0], i[1]); });
  w.table("chunk_offset", {kChunkRows, kChunksPerRow}, [](const int* i) { return chunk_offset(i[0], i[1]); });

  // transpose_swizzled: warp w (threadIdx.y == w), loop step s (j = s * BLOCK_ROWS); lane = threadIdx.x.
  const int steps = TILE_DIM / BLOCK_ROWS;
  w.access("row_write", "st", 4, {BLOCK_ROWS, steps},
           [](const int* i, int lane) { return 4LL * tile_index(i[0] + i[1] * BLOCK_ROWS, lane); });
  w.access("column_read", "ld", 4, {BLOCK_ROWS, steps},
           [](const int* i, int lane) { return 4LL * tile_index(lane, i[0] + i[1] * BLOCK_ROWS); });
  // transpose_float4: thread t = 32 w + lane writes chunk t % 8 of row t / 8, then warp w reads
  // chunk w of row lane.
  const int warps = kChunkRows * kChunksPerRow / 32;
  w.access("chunk_row_write", "st", 16, {warps}, [](const int* i, int lane) {
    const int t = 32 * i[0] + lane;
    return static_cast<long long>(chunk_offset(t / kChunksPerRow, t % kChunksPerRow));
  });
  w.access("chunk_column_read", "ld", 16, {warps},
           [](const int* i, int lane) { return static_cast<long long>(chunk_offset(lane, i[0])); });

  w.predict("kUnswizzledColumnReadWavefronts", predict::kUnswizzledColumnReadWavefronts);
  w.predict("kSwizzledColumnReadWavefronts", predict::kSwizzledColumnReadWavefronts);
  w.predict("kStoredColumnOfRow5Col3", predict::kStoredColumnOfRow5Col3);
  w.predict("kBytesSavedOverPadding", predict::kBytesSavedOverPadding);
  w.predict("kUnswizzledChunkColumnReadWavefronts", predict::kUnswizzledChunkColumnReadWavefronts);
  w.predict("kSwizzledChunkColumnReadWavefronts", predict::kSwizzledChunkColumnReadWavefronts);
  // The launcher(s), called as the GPU tier's checks call them (grader/launch_calls.hpp).
  probe::kernel(transpose_swizzled);
  for (const auto& s : grader_calls::transpose::kSizes) {
    const int wd = s[0], ht = s[1];
    const std::uint64_t bytes = 4ull * wd * ht;
    probe::call(w, grader_calls::name("transpose", {wd, ht}), {bytes, bytes}, [wd, ht](const probe::Fakes& f) {
      transpose(f.ptr<float>(0), f.ptr<const float>(1), wd, ht);
    });
  }
  probe::kernel(transpose_float4);
  for (const auto& s : grader_calls::lab05::kSizes4) {
    const int wd = s[0], ht = s[1];
    const std::uint64_t bytes = 16ull * wd * ht;
    probe::call(w, grader_calls::name("transpose4", {wd, ht}), {bytes, bytes}, [wd, ht](const probe::Fakes& f) {
      transpose4(f.ptr<float4>(0), f.ptr<const float4>(1), wd, ht);
    });
  }
  return 0;
}
