// Judge for lab 00 (bank mapping): the predictions, the tile walk on the CPU, and the GPU tier.
// Never compiled with a student's file: it reads the answers of grader/lab00_probe.cu and
// launches the student's compiled kernels.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grader/gpu/buffers.cuh"
#include "grader/gpu/kernel_timing.cuh"
#include "grader/gpu/ncu.cuh"
#include "grader/gpu/replay.cuh"
#include "grader/gpu/student.cuh"
#include "grader/gpu/trace.cuh"
#include "grader/grader.hpp"

namespace {

using banklab::Op;
using grader::Instruction;
using grader::answers;
using grader::instruction;

std::vector<Instruction> tile_stores() {
  return grader::all_of(answers().access("tile_store"), [](const std::vector<int>& i) {
    return "warp 0, step " + std::to_string(i[0]) + ": store tile[cell_of(lane, step)]";
  });
}
std::vector<Instruction> partner_loads() {
  return grader::all_of(answers().access("partner_load"), [](const std::vector<int>& i) {
    return "warp 0, step " + std::to_string(i[0]) + ": load the partner tile[row][col ^ 1]";
  });
}

constexpr const char* kWalkHint =
    "look at the 32 elements one step touches: a row or a column of the tile? Which index of cell_of() should change "
    "from lane to lane?";

}  // namespace

// ---- predictions -----------------------------------------------------------------------------

TEST(Lab00Predictions, BankOfFloatElement5_7) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kBankOfFloat_5_7", grader::prediction("kBankOfFloat_5_7"), banklab::bank_of((5 * 32 + 7) * 4),
      "float a[32][32] is row-major: element [5][7] is element 5*32+7 of the array. Which byte is that, which word, "
      "which bank?"));
}

TEST(Lab00Predictions, WordWhereDoubleElement13Starts) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches("kWordOfDouble13", grader::prediction("kWordOfDouble13"),
                                                banklab::word_of(13 * 8),
                                                "a double is 8 bytes: element 13 starts at byte 13*8. A word is 4 bytes."));
}

TEST(Lab00Predictions, BanksThatDoubleElement13Covers) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kFirstBankOfDouble13", grader::prediction("kFirstBankOfDouble13"), banklab::bank_of(13 * 8),
      "an 8-byte element covers two consecutive words, so two consecutive banks; which is first?"));
  BANKLAB_EXPECT(grader::ValuePredictionMatches("kSecondBankOfDouble13", grader::prediction("kSecondBankOfDouble13"),
                                                banklab::bank_of(13 * 8 + 4),
                                                "the second bank holds the element's second word."));
}

TEST(Lab00Predictions, BankOfCharElement130) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kBankOfChar130", grader::prediction("kBankOfChar130"), banklab::bank_of(130),
      "a char is 1 byte, and the bank counts 4-byte words, not elements: bank = (byte / 4) % 32."));
}

TEST(Lab00Predictions, BankOfShortElement70) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches("kBankOfShort70", grader::prediction("kBankOfShort70"),
                                                banklab::bank_of(70 * 2),
                                                "a short is 2 bytes: find the byte offset of element 70 first."));
}

TEST(Lab00Predictions, BanksOneFloat4Covers) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches("kBanksPerFloat4", grader::prediction("kBanksPerFloat4"),
                                                16 / banklab::kBankWidthBytes,
                                                "how many 4-byte words are in one 16-byte float4?"));
}

TEST(Lab00Predictions, WavefrontsOfARowRead) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kRowReadWavefronts", grader::prediction("kRowReadWavefronts"),
      instruction("a row read of float a[32][32] (lane i reads a[3][i])", Op::Load, 4, [](int lane) { return (3 * 32 + lane) * 4; }),
      "which banks do 32 consecutive floats fall in?"));
}

TEST(Lab00Predictions, WavefrontsOfAColumnRead) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kColumnReadWavefronts", grader::prediction("kColumnReadWavefronts"),
      instruction("a column read of float a[32][32] (lane i reads a[i][3])", Op::Load, 4,
                  [](int lane) { return (lane * 32 + 3) * 4; }),
      "a row is 32 floats = 128 bytes: how far apart (in banks) are a[i][3] and a[i+1][3]? A bank delivers one word "
      "per wavefront."));
}

TEST(Lab00Predictions, WavefrontsOfACharRead) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kCharReadWavefronts", grader::prediction("kCharReadWavefronts"),
      instruction("a char read (lane i reads c[i])", Op::Load, 1, [](int lane) { return lane; }),
      "a 1-byte access is served as an access to its whole word, and lanes that want the same word share it. How many "
      "words, in how many banks?"));
}

// ---- the layout: the tile walk, replayed on the CPU -----------------------------------------

TEST(Lab00Layout, CellsStayInsideTheTile) {
  const grader::Table& row = answers().table("cell_row");
  const grader::Table& col = answers().table("cell_col");
  int bad = 0;
  std::string first;
  for (int lane = 0; lane < 32; ++lane)
    for (int step = 0; step < 32; ++step) {
      const long long r = row({lane, step}), c = col({lane, step});
      if (r >= 0 && r < 32 && c >= 0 && c < 32) continue;
      if (bad++ == 0)
        first = "cell_of(" + std::to_string(lane) + ", " + std::to_string(step) + ") = [" + std::to_string(r) + "][" +
                std::to_string(c) + "]";
    }
  BANKLAB_CHECK(bad == 0) << bad << " of 1024 cells are outside the 32x32 tile; the first is " << first
                          << ".\n  Try: both the row and the column of a cell must be in 0-31.";
}

TEST(Lab00Layout, EveryElementOfTheTileIsHandledOnce) {
  const grader::Table& row = answers().table("cell_row");
  const grader::Table& col = answers().table("cell_col");
  const grader::Table& index = answers().table("tile_index");
  BANKLAB_EXPECT(grader::IsInBoundsAndOneToOne(
      "cell_of(lane, step) with tile_index", 32 * 32, answers().value("kTileFloats"),
      [&](int e) -> std::optional<long long> {
        const long long r = row({e % 32, e / 32}), c = col({e % 32, e / 32});
        if (r < 0 || r >= 32 || c < 0 || c >= 32) return std::nullopt;
        return index({static_cast<int>(r), static_cast<int>(c)});
      },
      "(lane, step) pair",
      "over the 32 steps the warp must visit each of the 1024 cells once: let one index of the cell be the lane and "
      "the other the step."));
}

TEST(Lab00Layout, TileStoresAreConflictFree) {
  BANKLAB_EXPECT(grader::AllAtMinimumWavefronts(tile_stores(), kWalkHint));
}

TEST(Lab00Layout, PartnerLoadsAreConflictFree) {
  BANKLAB_EXPECT(grader::AllAtMinimumWavefronts(
      partner_loads(), "the partner sits next to the element, in the same row: fix the walk in cell_of() and this load "
                       "follows."));
}

// ---- GPU tier ---------------------------------------------------------------------------------

namespace {

const grader::gpu::KernelName kMultiplyKernel{"_ZN5lab0013multiply_by_iEPKfPf",
                                              "lab00::multiply_by_i(const float* in, float* out)"};
const grader::gpu::KernelName kReportKernel{"_ZN5lab0012report_banksEPi", "lab00::report_banks(int* out)"};

struct StudentMultiply {
  grader::gpu::StudentLibrary lib;
  cudaKernel_t k{};
  ::testing::AssertionResult found = lib.find(kMultiplyKernel, &k);
  cudaError_t operator()(const float* in, float* out, int tiles) const {
    return grader::gpu::launch(k, dim3(static_cast<unsigned>(tiles)), dim3(32), in, out);
  }
};

// The grader's own multiply_by_i: the same one warp per tile; at step s the warp takes row s
// (its 128 bytes in one coalesced access), lane l column (l + s) % 32 (a rotation: still 32
// different banks, every step).
__global__ void reference_multiply_by_i(const float* in, float* out) {
  __shared__ volatile float tile[32 * 32];
  const int lane = static_cast<int>(threadIdx.x);
  const long base = static_cast<long>(blockIdx.x) * 32 * 32;
  for (int step = 0; step < 32; ++step) {
    const int c = (lane + step) % 32;
    tile[step * 32 + c] = in[base + step * 32 + c];
  }
  __syncwarp();
  for (int step = 0; step < 32; ++step) {
    const int c = (lane + step) % 32;
    const float partner = tile[step * 32 + (c ^ 1)];
    out[base + step * 32 + c] = (c & 1) ? partner : -partner;
  }
}

}  // namespace

TEST(Lab00OnGpu, MultiplyByIIsCorrect) {
  BANKLAB_REQUIRE_GPU();
  StudentMultiply st;
  BANKLAB_ASSERT(st.found);
  constexpr int kTiles = 256;
  const std::size_t n = static_cast<std::size_t>(kTiles) * 32 * 32;
  const std::vector<float> in = grader::gpu::random_floats(n);
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; i += 2) {  // (re, im) * i = (-im, re)
    expected[i] = -in[i + 1];
    expected[i + 1] = in[i];
  }
  grader::gpu::DeviceBuffer<float> d_in(n);
  grader::gpu::GuardedBuffer<float> d_out(n);
  d_in.upload(in);
  std::vector<Instruction> warp = tile_stores();
  for (Instruction& in_ : partner_loads()) warp.push_back(in_);
  grader::gpu::announce_model_prediction("multiply_by_i", warp, kTiles);
  BANKLAB_ASSERT(::testing::AssertionResult(st(d_in.get(), d_out.get(), kTiles) == cudaSuccess) << "launch failed");
  BANKLAB_ASSERT(grader::gpu::FinishesWithin(20.0, "lab00::multiply_by_i"));
  BANKLAB_ASSERT(grader::gpu::LaunchSucceeded("lab00::multiply_by_i"));
  BANKLAB_EXPECT(d_out.guards_intact("lab00::multiply_by_i"));
  BANKLAB_EXPECT(grader::gpu::AllMatch(expected, d_out.download(), "out = i * in"));
}

TEST(Lab00OnGpu, RealAddressesHaveTheBanksOfTheFormula) {
  BANKLAB_REQUIRE_GPU();
  grader::gpu::StudentLibrary lib;
  cudaKernel_t k{};
  BANKLAB_ASSERT(lib.find(kReportKernel, &k));
  grader::gpu::GuardedBuffer<int> d_out(5 * 32);
  BANKLAB_ASSERT(::testing::AssertionResult(grader::gpu::launch(k, dim3(1), dim3(32), d_out.get()) == cudaSuccess));
  BANKLAB_ASSERT(grader::gpu::LaunchSucceeded("lab00::report_banks"));
  std::vector<int> expected(5 * 32);
  for (int i = 0; i < 32; ++i) {
    expected[0 * 32 + i] = banklab::bank_of(5u * i);               // char c[5i]
    expected[1 * 32 + i] = banklab::bank_of(2u * 3u * i);          // short h[3i]
    expected[2 * 32 + i] = banklab::bank_of((32u * i + 7u) * 4u);  // float f[i][7]
    expected[3 * 32 + i] = banklab::bank_of(8u * i);               // double d[i]
    expected[4 * 32 + i] = banklab::bank_of(16u * i);              // float4 v[i]
  }
  BANKLAB_EXPECT(d_out.guards_intact("lab00::report_banks"));
  BANKLAB_EXPECT(grader::gpu::AllMatch(expected, d_out.download(),
                                       "banks of real shared addresses (rows: char, short, float[][7], double, float4) "
                                       "against bank = (byte offset / 4) % 32"));
}

TEST(Lab00OnGpu, TracedSharedAccessesAreConflictFree) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_REQUIRE_TRACE();
  StudentMultiply st;
  BANKLAB_ASSERT(st.found);
  constexpr int kTiles = 16;
  grader::gpu::DeviceBuffer<float> in(kTiles * 1024), out(kTiles * 1024);
  in.upload(grader::gpu::random_floats(kTiles * 1024));
  BANKLAB_EXPECT(grader::gpu::TracedSharedAccessesAreAtTheMinimum(
      "lab00::multiply_by_i (16 tiles)",
      [&] {
        CUDA_CHECK(st(in.get(), out.get(), kTiles));
        CUDA_CHECK(cudaDeviceSynchronize());
      },
      kWalkHint));
}

TEST(Lab00OnGpu, MultiplyByIMeetsTheKernelTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  StudentMultiply st;
  BANKLAB_ASSERT(st.found);
  constexpr int kTiles = 16384;  // 64 MiB each way
  grader::gpu::DeviceBuffer<float> in(kTiles * 1024L), out(kTiles * 1024L);
  in.upload(grader::gpu::random_floats(kTiles * 1024L));
  BANKLAB_EXPECT(grader::gpu::KernelMeetsTimingTarget(
      "lab00::multiply_by_i, 16384 tiles", [&] { CUDA_CHECK(st(in.get(), out.get(), kTiles)); },
      [&] {
        reference_multiply_by_i<<<kTiles, 32>>>(in.get(), out.get());
        CUDA_CHECK(cudaGetLastError());
      }));
}

TEST(Lab00OnGpu, TileStoresMeetTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(tile_stores()[7]));
}

TEST(Lab00OnGpu, PartnerLoadsMeetTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(partner_loads()[7]));
}
