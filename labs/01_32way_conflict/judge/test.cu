// Judge for lab 01 (the 32-way conflict): the stride predictions, the row-sum tile on the CPU,
// and the GPU tier. Never compiled with a student's file: it reads the answers of
// labs/01_32way_conflict/judge/probe.cu and launches the student's compiled kernel.
// The "at the model's minimum" tests of each instruction (Lab01Layout, from lab.toml's
// at_minimum), the instructions' labels and the kernels' symbols are generated from the
// description: grader/lab01_judge.hpp and lab01_questions_test.cpp (python/banklab/lab/gen.py).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "grader/gpu/buffers.cuh"
#include "grader/gpu/kernel_timing.cuh"
#include "grader/gpu/ncu.cuh"
#include "grader/gpu/replay.cuh"
#include "grader/gpu/student.cuh"
#include "grader/gpu/trace.cuh"
#include "grader/grader.hpp"
#include "grader/lab01_description.hpp"
#include "grader/lab01_judge.hpp"
#include "grader/variants.hpp"

namespace {

using banklab::Op;
using grader::Instruction;
using grader::answers;
using grader::instruction;

long long constant(const char* name) { return answers().value(name); }

// The matrix's columns, a row of the tile: the graded variant's (lab.toml [variants] cols; 32 as
// written). The checks and the grader's reference read the variant's, never the student's constant.
int variant_cols() { return static_cast<int>(lab01_desc::variant_value("cols", grader::graded_variant())); }

// The tile's shape as the stub declares it for the graded variant: a file of another width sums
// another matrix (another student's exercise, and the checks below would read past its tables).
::testing::AssertionResult TileKept() {
  const int n = variant_cols();
  if (constant("TILE_DIM") == 32 && constant("kTileCols") == n) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "TILE_DIM = " << constant("TILE_DIM") << ", kTileCols = " << constant("kTileCols") << ": "
         << (grader::graded_variant() ? "your variant's" : "this lab's") << " matrix has " << n
         << " columns, so its tile is 32 rows of " << n << " floats, as its stub declares it (TILE_DIM = 32, kTileCols = "
         << n << ")."
         << "\n  Try: keep the stub's TILE_DIM and kTileCols; change only kRowStride or walk_col().";
}

}  // namespace

// ---- the layout, replayed on the CPU ---------------------------------------------------------

TEST(Lab01Layout, EveryElementOfTheTileHasItsOwnPlace) {
  BANKLAB_ASSERT(TileKept());
  const grader::Table& t = answers().table("tile_index");
  BANKLAB_EXPECT(grader::FunctionIsInBoundsAndOneToOne(
      {"tile_index", &t, 32, variant_cols(), answers().value("kTileFloats"), "kTileFloats, the floats of the tile",
       "the tile holds kTileFloats floats: make it at least 32 rows of kRowStride, and keep tile_index(row, col) "
       "below it.",
       "keep kRowStride at least kTileCols, so that the rows do not overlap."}));
}

TEST(Lab01Layout, EachLaneAddsEveryColumnOfItsRowOnce) {
  BANKLAB_ASSERT(TileKept());
  const grader::Table& walk = answers().table("walk_col");
  const int n = variant_cols();
  const std::string steps = std::to_string(n), last = std::to_string(n - 1);
  for (int lane = 0; lane < 32; ++lane) {
    BANKLAB_ASSERT(grader::IsInBoundsAndOneToOne(
        "walk_col(" + std::to_string(lane) + ", step) over the " + steps + " steps", n, n,
        [&](int step) { return walk.at({lane, step}); }, "step",
        "each lane must add columns 0-" + last + " of its row, each once: over the " + steps +
            " steps walk_col(lane, step) must take every value 0-" + last + " (a column outside 0-" + last +
            " reads another row, or outside the tile)."));
  }
}

// ---- GPU tier ---------------------------------------------------------------------------------

namespace {

const grader::gpu::KernelName kRowSumsKernel{lab01_judge::kernel_row_sums.symbol, lab01_judge::kernel_row_sums.readable};

struct StudentRowSums {
  grader::gpu::StudentLibrary lib;
  cudaKernel_t k{};
  ::testing::AssertionResult found = lib.find(kRowSumsKernel, &k);
  // What the student's launcher launched for `rows` rows (grader/probe/probe_runtime.cpp), replayed.
  grader::gpu::RecordedCall call(int rows) const {
    return grader::gpu::RecordedCall(k, kRowSumsKernel, grader_calls::name("row_sums_launch", {rows}),
                                     "row_sums_launch(in, sums, " + std::to_string(rows) + ")");
  }
};

// The grader's own row sums of rows of N columns (N a multiple of 32, the variant's): one warp per
// 32 rows (blockDim.x / 32 warps per block, as the student's launch), the unpadded tile, each lane
// walking the columns of its row starting at its own lane (column (lane + step) % N, bank
// (lane + step) % 32): 32 different banks.
template <int N>
__global__ void reference_row_sums(const float* in, float* sums) {
  extern __shared__ float tiles[];  // 128 * N bytes per warp
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  volatile float* tile = tiles + warp * 32 * N;
  const long row0 = (static_cast<long>(blockIdx.x) * (blockDim.x / 32) + warp) * 32;
  for (int r = 0; r < 32; ++r)
    for (int c = lane; c < N; c += 32) tile[r * N + c] = in[(row0 + r) * N + c];
  __syncwarp();
  float sum = 0.0f;
  for (int step = 0; step < N; ++step) sum += tile[lane * N + (lane + step) % N];
  sums[row0 + lane] = sum;
}

// One launch of the reference over rows of N columns: 128 * N bytes of dynamic shared memory a
// warp (8 warps of rows of 160 floats take 160 KiB: above the 48 KiB a launch gets without asking).
template <int N>
cudaError_t launch_reference_row_sums_of(const float* in, float* sums, unsigned blocks, unsigned warps) {
  const int bytes = static_cast<int>(warps * 128u * N);
  if (const cudaError_t e = cudaFuncSetAttribute(reference_row_sums<N>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
      e != cudaSuccess)
    return e;
  reference_row_sums<N><<<blocks, 32 * warps, static_cast<std::size_t>(bytes)>>>(in, sums);
  return cudaGetLastError();
}

// The reference for the graded variant's width (lab.toml [variants] cols).
cudaError_t launch_reference_row_sums(const float* in, float* sums, int rows, unsigned warps) {
  const unsigned blocks = static_cast<unsigned>(rows) / (32 * warps);
  switch (variant_cols()) {
    case 32: return launch_reference_row_sums_of<32>(in, sums, blocks, warps);
    case 64: return launch_reference_row_sums_of<64>(in, sums, blocks, warps);
    case 96: return launch_reference_row_sums_of<96>(in, sums, blocks, warps);
    case 128: return launch_reference_row_sums_of<128>(in, sums, blocks, warps);
    case 160: return launch_reference_row_sums_of<160>(in, sums, blocks, warps);
    default: return cudaErrorInvalidValue;
  }
}

// Whole numbers in [-16, 16]: every sum is exact, so any order of adding gives the same float.
std::vector<float> whole_numbers(std::size_t n) {
  std::vector<float> in = grader::gpu::random_floats(n);
  for (float& x : in) x = std::round(x * 16.0f);
  return in;
}
std::vector<float> row_sums_of(const std::vector<float>& in) {
  const std::size_t n = static_cast<std::size_t>(variant_cols());
  std::vector<float> s(in.size() / n, 0.0f);
  for (std::size_t r = 0; r < s.size(); ++r)
    for (std::size_t c = 0; c < n; ++c) s[r] += in[r * n + c];
  return s;
}

// The correctness check: the student's launcher's launches for kCorrectRows rows, guarded output,
// every sum against the grader's. The traced test traces this very launch.
::testing::AssertionResult row_sums_correct(const StudentRowSums& st) {
  const int kRows = static_cast<int>(lab01_desc::size("row_sums_launch", "traced")[0]);
  const grader::gpu::RecordedCall call = st.call(kRows);
  if (!call.ready) return call.ready;
  const std::size_t n = static_cast<std::size_t>(kRows) * static_cast<std::size_t>(variant_cols());
  const std::vector<float> in = whole_numbers(n);
  grader::gpu::DeviceBuffer<float> d_in(n);
  grader::gpu::GuardedBuffer<float> d_sums(kRows);
  d_in.upload(in);
  grader::gpu::announce_model_prediction("row_sums", lab01_judge::instructions_of_row_sums(), kRows / 32);
  std::string why;
  if (call({{d_in.get(), n * 4}, {d_sums.get(), kRows * 4u}}, &why) != cudaSuccess)
    return ::testing::AssertionFailure() << why;
  if (auto ok = grader::gpu::FinishesWithin(20.0, "lab01::row_sums"); !ok) return ok;
  if (auto ok = grader::gpu::LaunchSucceeded("lab01::row_sums"); !ok) return ok;
  if (auto ok = d_sums.guards_intact("lab01::row_sums"); !ok) return ok << "\n  (" << call.describe() << ")";
  return grader::gpu::AllMatch(row_sums_of(in), d_sums.download(), "row sums (all " + std::to_string(kRows) + " rows)");
}

}  // namespace

TEST(Lab01OnGpu, RowSumsAreCorrect) {
  BANKLAB_REQUIRE_GPU();
  StudentRowSums st;
  BANKLAB_ASSERT(st.found);
  BANKLAB_EXPECT(row_sums_correct(st));
}

TEST(Lab01OnGpu, TracedSharedAccessesAreConflictFree) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_REQUIRE_TRACE();
  StudentRowSums st;
  BANKLAB_ASSERT(st.found);
  const int rows = static_cast<int>(lab01_desc::size("row_sums_launch", "traced")[0]);
  BANKLAB_ASSERT(st.call(rows).ready);
  ::testing::AssertionResult correct = ::testing::AssertionSuccess();
  BANKLAB_EXPECT(grader::gpu::TracedSharedAccessesAreAtTheMinimum(
      "lab01::row_sums (the correctness check's launch, " + std::to_string(rows) + " rows)",
      [&] { correct = row_sums_correct(st); }, lab01_judge::hint_RowSumLoadsAreConflictFree,
      grader::gpu::work_minimum(lab01_judge::instructions_of_row_sums(), rows / 32),
      "per 32 rows: 32 staging stores and 32 row-sum loads of a warp"));
  BANKLAB_EXPECT(correct);
}

TEST(Lab01OnGpu, RowSumsMeetTheKernelTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  StudentRowSums st;
  BANKLAB_ASSERT(st.found);
  const int kRows = static_cast<int>(lab01_desc::size("row_sums_launch", "timing")[0]);  // 64 MiB of input
  const grader::gpu::RecordedCall call = st.call(kRows);
  BANKLAB_ASSERT(call.ready);
  const long cols = variant_cols();
  const std::vector<float> host_in = whole_numbers(static_cast<std::size_t>(kRows * cols));
  const std::vector<float> expected = row_sums_of(host_in);
  grader::gpu::DeviceBuffer<float> in(kRows * cols), sums(kRows), ref_sums(kRows);
  in.upload(host_in);
  std::string whose;
  const dim3 block = call.work_block(dim3(32), &whose);  // the handout's one warp per block
  const unsigned warps = block.x >= 32 && block.x % 32 == 0 && block.x <= 256 ? block.x / 32 : 1;
  grader::gpu::MatchesExpected<float> matches(expected, "row sums");
  BANKLAB_EXPECT(grader::gpu::KernelMeetsTimingTarget(
      "lab01::row_sums, " + std::to_string(kRows) + " rows of " + std::to_string(cols) + " columns (the grader's kernel with " + whose + " of " + std::to_string(warps * 32) + " threads)",
      [&] { CUDA_CHECK(call({{in.get(), kRows * 4ull * static_cast<unsigned long long>(cols)}, {sums.get(), kRows * 4ull}})); },
      [&] { CUDA_CHECK(launch_reference_row_sums(in.get(), ref_sums.get(), kRows, warps)); },
      [&] { sums.poison(); }, [&] { return matches(sums); }));
}
