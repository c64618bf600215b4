// Grader for lab 02 (broadcast): the broadcast and multicast predictions, the coefficient table
// on the CPU, and the GPU tier.
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
using lab02::kChannels;
using lab02::kTerms;

// Byte offset of the coefficient that lane `lane` (thread `lane` of its warp) loads at term t.
BANKLAB_HD std::uint32_t table_load_offset(int lane, int t) {
  return static_cast<std::uint32_t>(lab02::coef_index(lab02::channel_of(lane), t)) * 4u;
}
// Byte offset that thread i of the block stores while staging the table.
BANKLAB_HD std::uint32_t staging_offset(int i) {
  return static_cast<std::uint32_t>(lab02::coef_index(i % kChannels, i / kChannels)) * 4u;
}

// ---- predictions -----------------------------------------------------------------------------

TEST(Lab02Predictions, AllLanesLoadingOneWord) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kAllLanesLoadOneWord", lab02::predict::kAllLanesLoadOneWord,
      instruction("a load where all 32 lanes read word 0", Op::Load, 4, [](int) { return 0; }),
      "a conflict needs two DIFFERENT words in one bank. How many different words are there?"));
}

TEST(Lab02Predictions, AllLanesStoringToOneWord) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kAllLanesStoreOneWord", lab02::predict::kAllLanesStoreOneWord,
      instruction("a store where all 32 lanes write word 0", Op::Store, 4, [](int) { return 0; }),
      "many tutorials say stores to one address conflict. Count different words per bank, as "
      "for a load: one lane's value is written, once."));
}

TEST(Lab02Predictions, GroupsOfFourLanesLoadingConsecutiveWords) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kGroupsOf4LoadConsecutiveWords", lab02::predict::kGroupsOf4LoadConsecutiveWords,
      instruction("a load where lane i reads word i / 4", Op::Load, 4,
                  [](int lane) { return (lane / 4) * 4; }),
      "how many different words, and are any two of them in the same bank?"));
}

TEST(Lab02Predictions, TwoWordsInOneBankEachReadBy16Lanes) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kTwoWordsInOneBank", lab02::predict::kTwoWordsInOneBank,
      instruction("a load where lanes 0-15 read word 0 and lanes 16-31 read word 32", Op::Load, 4,
                  [](int lane) { return (lane / 16) * 128; }),
      "broadcast shares ONE word among lanes. Which bank holds word 32?"));
}

TEST(Lab02Predictions, GroupsOfFourLanesLoadingWords32Apart) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kGroupsOf4LoadWords32Apart", lab02::predict::kGroupsOf4LoadWords32Apart,
      instruction("a load where lane i reads word (i / 4) * 32", Op::Load, 4,
                  [](int lane) { return (lane / 4) * 128; }),
      "count the different words that one bank must deliver; lanes that share a word count "
      "once."));
}

TEST(Lab02Predictions, StoresToWords32Apart) {
  BANKLAB_EXPECT(grader::PredictionMatches("kStoresToWordsStride32", lab02::predict::kStoresToWordsStride32,
                                instruction("a store where lane i writes word i * 32", Op::Store,
                                            4, [](int lane) { return lane * 128; }),
                                "32 different words: which banks are they in?"));
}

TEST(Lab02Predictions, OneStepOfTheStubsTableLoad) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kStubTableLoad", lab02::predict::kStubTableLoad,
      instruction("the stub's table load at term 5: lanes of channel c read word c * 32 + 5",
                  Op::Load, 4, [](int lane) { return ((lane / 8) * kTerms + 5) * 4; }),
      "4 different words, each broadcast to 8 lanes. Which banks hold them?"));
}

// ---- the layout, replayed on the CPU ---------------------------------------------------------

TEST(Lab02Layout, EveryCoefficientHasItsOwnPlaceInTheTable) {
  BANKLAB_EXPECT(grader::IsInBoundsAndOneToOne(
      "coef_index(channel, term)", kChannels * kTerms, lab02::kTableFloats,
      [](int e) { return lab02::coef_index(e / kTerms, e % kTerms); }, "coefficient"));
}

TEST(Lab02Layout, TableStagingStoresAreConflictFree) {
  for (int warp = 0; warp < lab02::kBlockThreads / banklab::kWarpSize; ++warp) {
    BANKLAB_ASSERT(grader::AtMinimumWavefronts(
        instruction("warp " + std::to_string(warp) +
                        ": staging store, thread i writes term i / 4 of channel i % 4",
                    Op::Store, 4, [warp](int lane) { return staging_offset(warp * 32 + lane); }),
        "thread i stores term i / 4 of channel i % 4: with which coef_index() would consecutive "
        "threads write consecutive words?"));
  }
}

TEST(Lab02Layout, CoefficientLoadsAreConflictFreeBroadcasts) {
  for (int t = kTerms - 1; t >= 0; --t) {
    BANKLAB_ASSERT(grader::AtMinimumWavefronts(
        instruction("warp 0, term " + std::to_string(t) +
                        ": load table[coef_index(lane / 8, t)] (8 lanes per channel share a word)",
                    Op::Load, 4, [t](int lane) { return table_load_offset(lane, t); }),
        "the 8 lanes of a channel share one word for free; the 4 channels' words must sit in 4 "
        "different banks. Where are coefficient t of channel 0 and of channel 1?"))
        << "(the other terms look the same)";
  }
}

// ---- GPU tier ---------------------------------------------------------------------------------

struct StagingPattern {
  banklab::Op op = banklab::Op::Store;
  int width = 4;
  std::uint32_t mask = 0xffffffffu;
  int warp = 0;
  __host__ __device__ std::uint32_t offset(int lane) const {
    return staging_offset(warp * 32 + lane);
  }
};
struct TablePattern {
  banklab::Op op = banklab::Op::Load;
  int width = 4;
  std::uint32_t mask = 0xffffffffu;
  int term = 0;
  __host__ __device__ std::uint32_t offset(int lane) const { return table_load_offset(lane, term); }
};

TEST(Lab02OnGpu, ChannelPolynomialsAreCorrect) {
  BANKLAB_REQUIRE_GPU();
  constexpr int kBlocks = 512;
  const int n = kBlocks * lab02::kBlockThreads;
  const std::vector<float> x = grader::gpu::random_floats(static_cast<std::size_t>(n));
  const std::vector<float> coefs = grader::gpu::random_floats(kChannels * kTerms);
  std::vector<float> expected(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) {
    const int c = lab02::channel_of(s % banklab::kWarpSize);
    float acc = 0.0f;
    for (int t = kTerms - 1; t >= 0; --t) acc = std::fmaf(acc, x[s], coefs[c * kTerms + t]);
    expected[s] = acc;
  }
  grader::gpu::DeviceBuffer<float> d_x(x.size()), d_coefs(coefs.size()), d_y(x.size());
  d_x.upload(x);
  d_coefs.upload(coefs);
  d_y.poison();
  long long ld = 0, st = 0;
  for (int w = 0; w < lab02::kBlockThreads / 32; ++w)
    st += banklab::count_wavefronts(
        grader::gpu::to_access(StagingPattern{banklab::Op::Store, 4, ~0u, w}));
  for (int t = 0; t < kTerms; ++t)
    ld += banklab::count_wavefronts(
        grader::gpu::to_access(TablePattern{banklab::Op::Load, 4, ~0u, t}));
  ld *= lab02::kBlockThreads / 32;  // every warp of a block runs the Horner loop
  grader::gpu::announce_model_prediction("eval_channels", ld * kBlocks, st * kBlocks);
  lab02::eval_channels_launch(d_x.get(), d_coefs.get(), d_y.get(), n);
  BANKLAB_ASSERT(grader::gpu::LaunchSucceeded("eval_channels"));
  BANKLAB_EXPECT(grader::gpu::AllMatch(expected, d_y.download(), "per-channel polynomials"));
}

TEST(Lab02OnGpu, TableStagingStoresMeetTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(
      StagingPattern{banklab::Op::Store, 4, ~0u, 1}, "lab 02 table staging store (warp 1)"));
}

TEST(Lab02OnGpu, CoefficientLoadsMeetTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(
      TablePattern{banklab::Op::Load, 4, ~0u, 5}, "lab 02 coefficient load (term 5)"));
}

}  // namespace
