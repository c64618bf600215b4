// Grader for lab 05 (swizzle): the transpose through an unpadded tile whose rows are permuted by
// an XOR swizzle, and a transpose of float4 elements through a 16-byte-chunk swizzle.
//   Lab05Predictions  the handout's questions, checked against the bank model
//   Lab05Layout       tile_index() and chunk_offset(): in bounds, one-to-one, no padding, every
//                     warp instruction of both kernels conflict-free
//   Lab05OnGpu        both kernels on a GPU: correct results, and the timing target
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "grader/gpu.cuh"
#include "grader/grader.hpp"

#include BANKLAB_LAB_SOURCE

namespace {

using banklab::Op;
using grader::Instruction;

constexpr int kTile = lab05::TILE_DIM;
constexpr int kRows = lab05::BLOCK_ROWS;
constexpr int kWarpsPerBlock = kRows;  // float transpose: blockDim = (32, 8)
constexpr int kChunkWarps = lab05::kChunkRows * lab05::kChunksPerRow / 32;  // float4 transpose: 8 warps

// Float transpose, warp `warp`, loop step j: lane l stores tile[warp + j][l].
Instruction row_write(int warp, int j) {
  return grader::instruction("warp " + std::to_string(warp) + ", j = " + std::to_string(j) +
                                 ": store tile[" + std::to_string(warp + j) + "][lane] (row write)",
                             Op::Store, 4, [=](int lane) { return lab05::tile_index(warp + j, lane) * 4; });
}

// Float transpose, warp `warp`, loop step j: lane l loads tile[l][warp + j].
Instruction column_read(int warp, int j) {
  return grader::instruction("warp " + std::to_string(warp) + ", j = " + std::to_string(j) +
                                 ": load tile[lane][" + std::to_string(warp + j) + "] (column read)",
                             Op::Load, 4, [=](int lane) { return lab05::tile_index(lane, warp + j) * 4; });
}

// float4 transpose, warp w: lane l stores chunk l % 8 of row 4w + l / 8 (16-byte store).
Instruction chunk_row_write(int warp) {
  return grader::instruction(
      "float4 tile, warp " + std::to_string(warp) + ": store chunk (lane % 8) of row " +
          std::to_string(4 * warp) + " + lane / 8 (row write, 16 bytes per lane)",
      Op::Store, 16, [=](int lane) { return lab05::chunk_offset(4 * warp + lane / 8, lane % 8); });
}

// float4 transpose, warp w: lane l loads chunk w of row l (16-byte load).
Instruction chunk_column_read(int warp) {
  return grader::instruction("float4 tile, warp " + std::to_string(warp) + ": load chunk " +
                                 std::to_string(warp) + " of row lane (column read, 16 bytes per lane)",
                             Op::Load, 16, [=](int lane) { return lab05::chunk_offset(lane, warp); });
}


}  // namespace

// ---- predictions ------------------------------------------------------------------------------

TEST(Lab05Predictions, UnswizzledColumnReadTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kUnswizzledColumnReadWavefronts", lab05::predict::kUnswizzledColumnReadWavefronts,
      grader::instruction("a column read of the unswizzled tile (lane i reads tile[i][5])", Op::Load, 4,
                          [](int lane) { return (lane * 32 + 5) * 4; }),
      "rows are 32 floats long. Which bank holds tile[i][5], for each i?"));
}

TEST(Lab05Predictions, SwizzledColumnReadTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kSwizzledColumnReadWavefronts", lab05::predict::kSwizzledColumnReadWavefronts,
      grader::instruction("a column read of the swizzled tile (lane i reads row i, column 5, stored at "
                          "column 5 ^ i)", Op::Load, 4, [](int lane) { return (lane * 32 + (5 ^ lane)) * 4; }),
      "lane i's bank is now 5 ^ i. Can two different i give the same 5 ^ i?"));
}

TEST(Lab05Predictions, StoredColumnOfRow5Col3IsPredicted) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kStoredColumnOfRow5Col3", lab05::predict::kStoredColumnOfRow5Col3, 3 ^ 5,
      "with tile_index(row, col) = row * 32 + (col ^ row), which column of row 5 holds element "
      "(5, 3)? Write both numbers in binary."));
}

TEST(Lab05Predictions, BytesSavedOverPaddingArePredicted) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kBytesSavedOverPadding", lab05::predict::kBytesSavedOverPadding, (32 * 33 - 32 * 32) * 4L,
      "how many bytes smaller is float tile[32][32] (swizzled) than float tile[32][33] (padded)?"));
}

TEST(Lab05Predictions, UnswizzledChunkColumnReadTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kUnswizzledChunkColumnReadWavefronts", lab05::predict::kUnswizzledChunkColumnReadWavefronts,
      grader::instruction("an unswizzled float4 column read (lane i reads chunk 3 of row i, rows of 128 "
                          "bytes)", Op::Load, 16, [](int lane) { return lane * 128 + 3 * 16; }),
      "a 16-byte load is served in quarter-warps of 8 lanes. Which 4 banks does chunk 3 of each row use?"));
}

TEST(Lab05Predictions, SwizzledChunkColumnReadTakesThePredictedWavefronts) {
  const banklab::Swizzle<3, 4, 3> swz;
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kSwizzledChunkColumnReadWavefronts", lab05::predict::kSwizzledChunkColumnReadWavefronts,
      grader::instruction("a float4 column read through Swizzle<3, 4, 3> (lane i reads chunk 3 of row i, "
                          "stored at chunk 3 ^ (i % 8))", Op::Load, 16,
                          [&](int lane) { return swz(static_cast<std::uint32_t>(lane * 128 + 3 * 16)); }),
      "how many wavefronts does one quarter-warp need at best for 8 lanes x 16 bytes, and how many "
      "quarter-warps are there?"));
}

// ---- the float tile ---------------------------------------------------------------------------

TEST(Lab05Layout, TileIndexIsInBoundsAndOneToOne) {
  BANKLAB_EXPECT(grader::IsInBoundsAndOneToOne(
      "lab05::tile_index (element e is tile[e / 32][e % 32])", kTile * kTile, lab05::kTileFloats,
      [](int e) { return lab05::tile_index(e / kTile, e % kTile); }, "element"));
}

TEST(Lab05Layout, TheFloatTileHasNoPadding) {
  EXPECT_EQ(lab05::kTileFloats, kTile * kTile)
      << "kTileFloats = " << lab05::kTileFloats << ": this lab's tile is exactly 32 x 32 floats. "
         "Padding (lab 04) works, but here the column read must become conflict-free by permuting "
         "where each row stores its elements, at no cost in shared memory.";
}

TEST(Lab05Layout, RowWritesOfTheTileAreConflictFree) {
  for (int warp = 0; warp < kWarpsPerBlock; ++warp)
    for (int j = 0; j < kTile; j += kRows)
      BANKLAB_ASSERT(grader::AtMinimumWavefronts(
          row_write(warp, j), "the 32 columns of one row must still land in 32 different banks: "
                              "permute a row's columns, keep them inside the row."));
}

TEST(Lab05Layout, ColumnReadsOfTheTileAreConflictFree) {
  for (int warp = 0; warp < kWarpsPerBlock; ++warp)
    for (int j = 0; j < kTile; j += kRows)
      BANKLAB_ASSERT(grader::AtMinimumWavefronts(
          column_read(warp, j),
          "lane i reads column c of row i; the bank is the column where row i stores c. Make that "
          "stored column depend on the row, differently for each of the 32 rows."));
}

// ---- the float4 tile --------------------------------------------------------------------------

TEST(Lab05Layout, ChunkOffsetsAreSixteenByteAligned) {
  for (int row = 0; row < lab05::kChunkRows; ++row)
    for (int chunk = 0; chunk < lab05::kChunksPerRow; ++chunk)
      ASSERT_EQ(lab05::chunk_offset(row, chunk) % 16u, 0u)
          << "chunk_offset(" << row << ", " << chunk << ") = " << lab05::chunk_offset(row, chunk)
          << " is not a multiple of 16: a float4 access must be 16-byte aligned (a misaligned "
             "shared access is an error on the GPU). Swizzle whole 16-byte chunks: leave the low 4 "
             "bits of the offset alone.";
}

TEST(Lab05Layout, ChunkOffsetIsInBoundsAndOneToOne) {
  BANKLAB_EXPECT(grader::IsInBoundsAndOneToOne(
      "lab05::chunk_offset (chunk e is chunk e % 8 of row e / 8; index = byte offset / 16)",
      lab05::kChunkRows * lab05::kChunksPerRow, static_cast<long>(lab05::kChunkTileBytes / 16u),
      [](int e) { return static_cast<long>(lab05::chunk_offset(e / lab05::kChunksPerRow, e % lab05::kChunksPerRow) / 16u); },
      "chunk"));
}

TEST(Lab05Layout, TheFloat4TileHasNoPadding) {
  EXPECT_EQ(lab05::kChunkTileBytes, 32u * 128u)
      << "kChunkTileBytes = " << lab05::kChunkTileBytes << ": the float4 tile is exactly 32 rows of "
         "128 bytes. Make the column read conflict-free by permuting the chunks of each row.";
}

TEST(Lab05Layout, ChunkRowWritesAreConflictFree) {
  for (int warp = 0; warp < kChunkWarps; ++warp)
    BANKLAB_ASSERT(grader::AtMinimumWavefronts(
        chunk_row_write(warp), "each quarter-warp writes the 8 chunks of one row: they must stay 8 "
                               "different chunks of that row."));
}

TEST(Lab05Layout, ChunkColumnReadsAreConflictFree) {
  for (int warp = 0; warp < kChunkWarps; ++warp)
    BANKLAB_ASSERT(grader::AtMinimumWavefronts(
        chunk_column_read(warp),
        "the 8 lanes of a quarter-warp read one chunk of 8 consecutive rows. Which chunk each row "
        "stores it in must differ across any 8 consecutive rows (the handout's bit diagram shows "
        "which bits of the offset can do that)."));
}

// ---- on the GPU -------------------------------------------------------------------------------

namespace {

void check_transpose(int width, int height) {
  std::vector<Instruction> block;
  for (int warp = 0; warp < kWarpsPerBlock; ++warp)
    for (int j = 0; j < kTile; j += kRows) {
      block.push_back(row_write(warp, j));
      block.push_back(column_read(warp, j));
    }
  const long long blocks = static_cast<long long>(width / kTile) * (height / kTile);
  grader::gpu::announce_model_prediction("transpose_swizzled", blocks * grader::total_wavefronts(block, Op::Load),
                                         blocks * grader::total_wavefronts(block, Op::Store));
  BANKLAB_EXPECT(grader::gpu::TransposesCorrectly(
      "lab05::transpose", [](float* o, const float* i, int w, int h) { lab05::transpose(o, i, w, h); }, width, height));
}

struct RowWrite {
  banklab::Op op = banklab::Op::Store;
  int width = 4;
  std::uint32_t mask = 0xffffffffu;
  int row = 5;
  __host__ __device__ std::uint32_t offset(int lane) const {
    return static_cast<std::uint32_t>(lab05::tile_index(row, lane)) * 4u;
  }
};

struct ColumnRead {
  banklab::Op op = banklab::Op::Load;
  int width = 4;
  std::uint32_t mask = 0xffffffffu;
  int col = 5;
  __host__ __device__ std::uint32_t offset(int lane) const {
    return static_cast<std::uint32_t>(lab05::tile_index(lane, col)) * 4u;
  }
};

struct ChunkRowWrite {
  banklab::Op op = banklab::Op::Store;
  int width = 16;
  std::uint32_t mask = 0xffffffffu;
  int warp = 1;
  __host__ __device__ std::uint32_t offset(int lane) const {
    return lab05::chunk_offset(4 * warp + lane / 8, lane % 8);
  }
};

struct ChunkColumnRead {
  banklab::Op op = banklab::Op::Load;
  int width = 16;
  std::uint32_t mask = 0xffffffffu;
  int chunk = 3;
  __host__ __device__ std::uint32_t offset(int lane) const { return lab05::chunk_offset(lane, chunk); }
};

}  // namespace

TEST(Lab05OnGpu, TransposeIsCorrectFor1024x1024) {
  BANKLAB_REQUIRE_GPU();
  check_transpose(1024, 1024);
}

TEST(Lab05OnGpu, TransposeIsCorrectForANonSquareMatrix) {
  BANKLAB_REQUIRE_GPU();
  check_transpose(256, 96);
}

TEST(Lab05OnGpu, Float4TransposeIsCorrect) {
  BANKLAB_REQUIRE_GPU();
  const int width = 64, height = 256;  // in: 256 rows of 64 float4; out: 64 rows of 256 float4
  const std::size_t n = static_cast<std::size_t>(width) * height;
  const std::vector<float> in = grader::gpu::random_floats(4 * n);
  std::vector<float> expected(4 * n);
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c)
      for (int k = 0; k < 4; ++k)
        expected[(static_cast<std::size_t>(c) * height + r) * 4 + k] = in[(static_cast<std::size_t>(r) * width + c) * 4 + k];

  std::vector<Instruction> block;
  for (int warp = 0; warp < kChunkWarps; ++warp) {
    block.push_back(chunk_row_write(warp));
    block.push_back(chunk_column_read(warp));
  }
  const long long blocks = static_cast<long long>(width / lab05::kChunksPerRow) * (height / lab05::kChunkRows);
  grader::gpu::announce_model_prediction("transpose_float4", blocks * grader::total_wavefronts(block, Op::Load),
                                         blocks * grader::total_wavefronts(block, Op::Store));

  grader::gpu::DeviceBuffer<float> d_in(4 * n), d_out(4 * n);
  d_in.upload(in);
  d_out.poison();
  lab05::transpose4(reinterpret_cast<float4*>(d_out.get()), reinterpret_cast<const float4*>(d_in.get()),
                    width, height);
  BANKLAB_ASSERT(grader::gpu::FinishesWithin(20.0, "lab05::transpose4"));
  BANKLAB_ASSERT(grader::gpu::LaunchSucceeded("lab05::transpose4"));
  BANKLAB_EXPECT(grader::gpu::AllMatch(expected, d_out.download(),
                                    "float4 transpose of 256 x 64 float4 (float index = 4 * float4 index + component)"));
}

TEST(Lab05OnGpu, RowWriteMeetsTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(RowWrite{}, "lab05 row write tile[5][lane]"));
}

TEST(Lab05OnGpu, ColumnReadMeetsTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(ColumnRead{}, "lab05 column read tile[lane][5]"));
}

TEST(Lab05OnGpu, ChunkRowWriteMeetsTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(ChunkRowWrite{}, "lab05 float4 row write (warp 1)"));
}

TEST(Lab05OnGpu, ChunkColumnReadMeetsTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(ChunkColumnRead{}, "lab05 float4 column read (chunk 3)"));
}

TEST(Lab05OnGpu, TransposeTimedBesideATiledCopyStillTransposes) {
  BANKLAB_REQUIRE_GPU();
  // Prints the fraction of a tiled copy's bandwidth; the speed target itself lives in
  // bench/gpu_perf.sh (a timed unit test would flip with the machine's load).
  BANKLAB_EXPECT(grader::gpu::TransposeMeasuredBesideACopy(
      "lab05 transpose", [](float* o, const float* i, int w, int h) { lab05::transpose(o, i, w, h); }));
}
