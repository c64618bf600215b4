// Grader for lab 00 (bank mapping): the predictions, the tile walk on the CPU, and the GPU tier.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "grader/gpu.cuh"
#include "grader/grader.hpp"

#include BANKLAB_LAB_SOURCE

namespace {

using banklab::Op;
using grader::instruction;
using lab00::Cell;
using lab00::TILE_DIM;

// Byte offset of the element that lane `lane` stores at step `step` (the staging store).
std::uint32_t store_offset(int lane, int step) {
  const Cell e = lab00::cell_of(lane, step);
  return lab00::tile_byte_offset(e.row, e.col);
}
// Byte offset of the partner that lane `lane` loads at step `step`.
std::uint32_t load_offset(int lane, int step) {
  const Cell e = lab00::cell_of(lane, step);
  return lab00::tile_byte_offset(e.row, e.col ^ 1);
}

std::string step_name(const char* what, int step) {
  return "warp 0, step " + std::to_string(step) + ": " + what;
}

// ---- predictions -----------------------------------------------------------------------------

TEST(Lab00Predictions, BankOfFloatElement5_7) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kBankOfFloat_5_7", lab00::predict::kBankOfFloat_5_7, banklab::bank_of((5 * 32 + 7) * 4),
      "float a[32][32] is row-major: element [5][7] is element 5*32+7 of the array. Which byte "
      "is that, which word, which bank?"));
}

TEST(Lab00Predictions, WordWhereDoubleElement13Starts) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kWordOfDouble13", lab00::predict::kWordOfDouble13, banklab::word_of(13 * 8),
      "a double is 8 bytes: element 13 starts at byte 13*8. A word is 4 bytes."));
}

TEST(Lab00Predictions, BanksThatDoubleElement13Covers) {
  const long first = banklab::bank_of(13 * 8), second = banklab::bank_of(13 * 8 + 4);
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kFirstBankOfDouble13", lab00::predict::kFirstBankOfDouble13, first,
      "an 8-byte element covers two consecutive words, so two consecutive banks; which is "
      "first?"));
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kSecondBankOfDouble13", lab00::predict::kSecondBankOfDouble13, second,
      "the second bank holds the element's second word."));
}

TEST(Lab00Predictions, BankOfCharElement130) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kBankOfChar130", lab00::predict::kBankOfChar130, banklab::bank_of(130),
      "a char is 1 byte, and the bank counts 4-byte words, not elements: bank = (byte / 4) % "
      "32."));
}

TEST(Lab00Predictions, BankOfShortElement70) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kBankOfShort70", lab00::predict::kBankOfShort70, banklab::bank_of(70 * 2),
      "a short is 2 bytes: find the byte offset of element 70 first."));
}

TEST(Lab00Predictions, BanksOneFloat4Covers) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kBanksPerFloat4", lab00::predict::kBanksPerFloat4, 16 / banklab::kBankWidthBytes,
      "how many 4-byte words are in one 16-byte float4?"));
}

TEST(Lab00Predictions, WavefrontsOfARowRead) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kRowReadWavefronts", lab00::predict::kRowReadWavefronts,
      instruction("a row read of float a[32][32] (lane i reads a[3][i])", Op::Load, 4,
                  [](int lane) { return (3 * 32 + lane) * 4; }),
      "which banks do 32 consecutive floats fall in?"));
}

TEST(Lab00Predictions, WavefrontsOfAColumnRead) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kColumnReadWavefronts", lab00::predict::kColumnReadWavefronts,
      instruction("a column read of float a[32][32] (lane i reads a[i][3])", Op::Load, 4,
                  [](int lane) { return (lane * 32 + 3) * 4; }),
      "a row is 32 floats = 128 bytes: how far apart (in banks) are a[i][3] and a[i+1][3]? "
      "A bank delivers one word per wavefront."));
}

TEST(Lab00Predictions, WavefrontsOfACharRead) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kCharReadWavefronts", lab00::predict::kCharReadWavefronts,
      instruction("a char read (lane i reads c[i])", Op::Load, 1, [](int lane) { return lane; }),
      "a 1-byte access is served as an access to its whole word, and lanes that want the same "
      "word share it. How many words, in how many banks?"));
}

// ---- the layout: the tile walk, replayed on the CPU -----------------------------------------

TEST(Lab00Layout, EveryElementOfTheTileIsHandledOnce) {
  BANKLAB_EXPECT(grader::IsInBoundsAndOneToOne(
      "cell_of(lane, step) with tile_index", TILE_DIM * TILE_DIM, lab00::kTileFloats,
      [](int e) {
        const Cell c = lab00::cell_of(e % TILE_DIM, e / TILE_DIM);
        return lab00::tile_index(c.row, c.col);
      },
      "(lane, step) pair"));
}

TEST(Lab00Layout, CellsStayInsideTheTile) {
  for (int step = 0; step < TILE_DIM; ++step)
    for (int lane = 0; lane < TILE_DIM; ++lane) {
      const Cell c = lab00::cell_of(lane, step);
      ASSERT_TRUE(c.row >= 0 && c.row < TILE_DIM && c.col >= 0 && c.col < TILE_DIM)
          << "cell_of(" << lane << ", " << step << ") = [" << c.row << "][" << c.col
          << "] is outside the 32x32 tile.";
    }
}

TEST(Lab00Layout, TileStoresAreConflictFree) {
  for (int step = 0; step < TILE_DIM; ++step) {
    BANKLAB_ASSERT(grader::AtMinimumWavefronts(
        instruction(step_name("store tile[cell_of(lane, step)]", step), Op::Store, 4,
                    [step](int lane) { return store_offset(lane, step); }),
        "look at the 32 elements one step touches: a row or a column of the tile? Which index "
        "of cell_of() should change from lane to lane?"))
        << "(the other steps look the same)";
  }
}

TEST(Lab00Layout, PartnerLoadsAreConflictFree) {
  for (int step = 0; step < TILE_DIM; ++step) {
    BANKLAB_ASSERT(grader::AtMinimumWavefronts(
        instruction(step_name("load the partner tile[row][col ^ 1]", step), Op::Load, 4,
                    [step](int lane) { return load_offset(lane, step); }),
        "the partner sits next to the element, in the same row: fix the walk in cell_of() and "
        "this load follows."))
        << "(the other steps look the same)";
  }
}

// ---- GPU tier ---------------------------------------------------------------------------------

// One shared instruction of the kernel, as a pattern the timing harness replays on the GPU.
struct StagePattern {
  banklab::Op op = banklab::Op::Store;
  int width = 4;
  std::uint32_t mask = 0xffffffffu;
  int step = 0;
  __host__ __device__ std::uint32_t offset(int lane) const {
    const Cell e = lab00::cell_of(lane, step);
    return lab00::tile_byte_offset(e.row, e.col);
  }
};
struct PartnerPattern {
  banklab::Op op = banklab::Op::Load;
  int width = 4;
  std::uint32_t mask = 0xffffffffu;
  int step = 0;
  __host__ __device__ std::uint32_t offset(int lane) const {
    const Cell e = lab00::cell_of(lane, step);
    return lab00::tile_byte_offset(e.row, e.col ^ 1);
  }
};

TEST(Lab00OnGpu, MultiplyByIIsCorrect) {
  BANKLAB_REQUIRE_GPU();
  constexpr int kTiles = 256;
  const std::size_t n = static_cast<std::size_t>(kTiles) * lab00::kTileFloats;
  const std::vector<float> in = grader::gpu::random_floats(n);
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; i += 2) {  // (re, im) * i = (-im, re)
    expected[i] = -in[i + 1];
    expected[i + 1] = in[i];
  }
  grader::gpu::DeviceBuffer<float> d_in(n), d_out(n);
  d_in.upload(in);
  d_out.poison();
  // The model's shared wavefronts for this launch, for the ncu check.
  long long ld = 0, st = 0;
  for (int step = 0; step < TILE_DIM; ++step) {
    st += banklab::count_wavefronts(
        grader::gpu::to_access(StagePattern{banklab::Op::Store, 4, ~0u, step}));
    ld += banklab::count_wavefronts(
        grader::gpu::to_access(PartnerPattern{banklab::Op::Load, 4, ~0u, step}));
  }
  grader::gpu::announce_model_prediction("multiply_by_i", ld * kTiles, st * kTiles);
  lab00::multiply_by_i_tiles(d_in.get(), d_out.get(), kTiles);
  BANKLAB_ASSERT(grader::gpu::LaunchSucceeded("multiply_by_i"));
  BANKLAB_EXPECT(grader::gpu::AllMatch(expected, d_out.download(), "out = i * in"));
}

TEST(Lab00OnGpu, RealAddressesHaveTheBanksOfTheFormula) {
  BANKLAB_REQUIRE_GPU();
  grader::gpu::DeviceBuffer<int> d_out(5 * 32);
  d_out.poison();
  lab00::report_banks<<<1, 32>>>(d_out.get());
  BANKLAB_ASSERT(grader::gpu::LaunchSucceeded("report_banks"));
  std::vector<int> expected(5 * 32);
  for (int i = 0; i < 32; ++i) {
    expected[0 * 32 + i] = banklab::bank_of(5u * i);               // char c[5i]
    expected[1 * 32 + i] = banklab::bank_of(2u * 3u * i);          // short h[3i]
    expected[2 * 32 + i] = banklab::bank_of((32u * i + 7u) * 4u);  // float f[i][7]
    expected[3 * 32 + i] = banklab::bank_of(8u * i);               // double d[i]
    expected[4 * 32 + i] = banklab::bank_of(16u * i);              // float4 v[i]
  }
  BANKLAB_EXPECT(grader::gpu::AllMatch(expected, d_out.download(),
                            "banks of real shared addresses (rows: char, short, float[][7], "
                            "double, float4) against bank = (byte offset / 4) % 32"));
}

TEST(Lab00OnGpu, TileStoresMeetTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(
      StagePattern{banklab::Op::Store, 4, ~0u, 7}, "lab 00 tile store (step 7)"));
}

TEST(Lab00OnGpu, PartnerLoadsMeetTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(
      PartnerPattern{banklab::Op::Load, 4, ~0u, 7}, "lab 00 partner load (step 7)"));
}

}  // namespace
