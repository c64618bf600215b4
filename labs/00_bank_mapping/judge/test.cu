// Judge for lab 00 (bank mapping): the predictions, the tile walk on the CPU, and the GPU tier.
// Never compiled with a student's file: it reads the answers of labs/00_bank_mapping/judge/probe.cu and
// launches the student's compiled kernels.
// The "at the model's minimum" tests of each instruction (Lab00Layout, from lab.toml's
// at_minimum), the instructions' labels and the kernels' symbols are generated from the
// description: grader/lab00_judge.hpp and lab00_questions_test.cpp (python/banklab/lab/gen.py).
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
#include "grader/lab00_description.hpp"
#include "grader/lab00_judge.hpp"
#include "grader/variants.hpp"

namespace {

using banklab::Op;
using grader::Instruction;
using grader::answers;
using grader::instruction;

long long constant(const char* name) { return answers().value(name); }

// The tile's row length: the graded variant's (lab.toml [variants] cols; 32 as written). Its rows:
// 1024 floats in all. The checks and the grader's reference read the variant's, never the
// student's constants.
int variant_cols() { return static_cast<int>(lab00_desc::variant_value("cols", grader::graded_variant())); }
int variant_rows() { return 32 * 32 / variant_cols(); }

// The tile as the stub declares it for the graded variant: a file of another shape multiplies
// another tile (another student's exercise, and the checks below would read past its tables).
::testing::AssertionResult TileKept() {
  const int rows = variant_rows(), cols = variant_cols();
  if (constant("TILE_DIM") == 32 && constant("kTileCols") == cols && constant("kTileRows") == rows &&
      constant("kTileFloats") == 32 * 32)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "TILE_DIM = " << constant("TILE_DIM") << ", kTileCols = " << constant("kTileCols")
         << ", kTileRows = " << constant("kTileRows") << ", kTileFloats = " << constant("kTileFloats") << ": "
         << (grader::graded_variant() ? "your variant's" : "this lab's") << " tile is " << rows << " rows of " << cols
         << " floats (1024 floats, no padding), as its stub declares it."
         << "\n  Try: keep the stub's constants; change only cell_of(), the walk.";
}

}  // namespace

// ---- the layout: the tile walk, replayed on the CPU -----------------------------------------

TEST(Lab00Layout, CellsStayInsideTheTile) {
  BANKLAB_ASSERT(TileKept());
  const grader::Table& row = answers().table("cell_row");
  const grader::Table& col = answers().table("cell_col");
  const int rows = variant_rows(), cols = variant_cols();
  int bad = 0;
  std::string first;
  for (int lane = 0; lane < 32; ++lane)
    for (int step = 0; step < 32; ++step) {
      const long long r = row({lane, step}), c = col({lane, step});
      if (r >= 0 && r < rows && c >= 0 && c < cols) continue;
      if (bad++ == 0)
        first = "cell_of(" + std::to_string(lane) + ", " + std::to_string(step) + ") = [" + std::to_string(r) + "][" +
                std::to_string(c) + "]";
    }
  BANKLAB_CHECK(bad == 0) << bad << " of 1024 cells are outside the " << rows << "x" << cols << " tile; the first is "
                          << first << ".\n  Try: the row of a cell must be in 0-" << rows - 1 << " and its column in 0-"
                          << cols - 1 << ".";
}

TEST(Lab00Layout, EveryElementOfTheTileIsHandledOnce) {
  BANKLAB_ASSERT(TileKept());
  const grader::Table& row = answers().table("cell_row");
  const grader::Table& col = answers().table("cell_col");
  const grader::Table& index = answers().table("tile_index");
  const int rows = variant_rows(), cols = variant_cols();
  BANKLAB_EXPECT(grader::IsInBoundsAndOneToOne(
      "cell_of(lane, step) with tile_index", 32 * 32, answers().value("kTileFloats"),
      [&](int e) -> std::optional<long long> {
        const long long r = row({e % 32, e / 32}), c = col({e % 32, e / 32});
        if (r < 0 || r >= rows || c < 0 || c >= cols) return std::nullopt;
        return index({static_cast<int>(r), static_cast<int>(c)});
      },
      "(lane, step) pair",
      "over the 32 steps the warp must visit each of the 1024 cells once: let the lane and the step each pick "
      "part of the cell, so that no two (lane, step) pairs pick the same one."));
}

// ---- GPU tier ---------------------------------------------------------------------------------

namespace {

const grader::gpu::KernelName kMultiplyKernel{lab00_judge::kernel_multiply_by_i.symbol,
                                              lab00_judge::kernel_multiply_by_i.readable};
const grader::gpu::KernelName kReportKernel{lab00_judge::kernel_report_banks.symbol,
                                            lab00_judge::kernel_report_banks.readable};

struct StudentMultiply {
  grader::gpu::StudentLibrary lib;
  cudaKernel_t k{};
  ::testing::AssertionResult found = lib.find(kMultiplyKernel, &k);
  // What the student's launcher launched for `tiles` tiles (grader/probe/probe_runtime.cpp), replayed.
  grader::gpu::RecordedCall call(int tiles) const {
    return grader::gpu::RecordedCall(k, kMultiplyKernel, grader_calls::name("multiply_by_i_tiles", {tiles}),
                                     "multiply_by_i_tiles(in, out, " + std::to_string(tiles) + ")");
  }
};

// out = i * in, pair by pair: (re, im) * i = (-im, re).
std::vector<float> times_i(const std::vector<float>& in) {
  std::vector<float> expected(in.size());
  for (std::size_t i = 0; i + 1 < in.size(); i += 2) {
    expected[i] = -in[i + 1];
    expected[i + 1] = in[i];
  }
  return expected;
}

// The grader's own multiply_by_i for the same work: the student's walk (cell_row, cell_col from
// the probe, so the global accesses are the student's own) over the variant's tile of rows of
// `cols` floats, with a shared layout of the grader's: element f = row * cols + col (its place in
// the tile, row by row; its partner, col ^ 1, is f ^ 1) lives at where[f], chosen by
// conflict_free_layout() below.
__global__ void reference_multiply_by_i(const float* in, float* out, const int* cell_row, const int* cell_col,
                                        const int* where, int cols) {
  __shared__ volatile float tile[32 * 33];
  const int lane = static_cast<int>(threadIdx.x);
  const long base = static_cast<long>(blockIdx.x) * 32 * 32;
  for (int step = 0; step < 32; ++step) {
    const int f = cell_row[lane * 32 + step] * cols + cell_col[lane * 32 + step];
    tile[where[f]] = in[base + f];
  }
  __syncwarp();
  for (int step = 0; step < 32; ++step) {
    const int f = cell_row[lane * 32 + step] * cols + cell_col[lane * 32 + step];
    const float partner = tile[where[f ^ 1]];
    out[base + f] = (f & 1) ? partner : -partner;
  }
}

// A layout under which the student's walk is conflict-free in every store and load, checked with
// the model: either "where the lane that stores a cell keeps it" (step * 32 + lane: every store
// in 32 banks) or the tile padded by a word every 32 (f + f / 32; with rows of 32 floats,
// row * 33 + col). Empty when neither is.
std::vector<int> conflict_free_layout(const grader::Table& row, const grader::Table& col, int cols) {
  std::vector<int> by_owner(1024), padded(1024);
  auto flat = [&](int lane, int step) {
    return static_cast<int>(row({lane, step})) * cols + static_cast<int>(col({lane, step}));
  };
  for (int lane = 0; lane < 32; ++lane)
    for (int step = 0; step < 32; ++step) {
      const int f = flat(lane, step);
      by_owner[static_cast<std::size_t>(f)] = step * 32 + lane;
      padded[static_cast<std::size_t>(f)] = f + f / 32;
    }
  for (const std::vector<int>* where : {&by_owner, &padded}) {
    bool ok = true;
    for (int step = 0; step < 32 && ok; ++step)
      for (int load = 0; load < 2 && ok; ++load) {
        const Instruction in = instruction("", load ? Op::Load : Op::Store, 4, [&](int lane) {
          const int f = flat(lane, step);
          return 4 * (*where)[static_cast<std::size_t>(load ? (f ^ 1) : f)];
        });
        ok = banklab::count_wavefronts(in.access) == banklab::minimum_wavefronts(in.access);
      }
    if (ok) return *where;
  }
  return {};
}

}  // namespace

namespace {

// The correctness check: the student's launcher's launches for kCorrectTiles tiles, guarded
// output, every element against the grader's. The traced test traces this very launch.
::testing::AssertionResult multiply_correct(const StudentMultiply& st) {
  const int kTiles = static_cast<int>(lab00_desc::size("multiply_by_i_tiles", "traced")[0]);
  const grader::gpu::RecordedCall call = st.call(kTiles);
  if (!call.ready) return call.ready;
  const std::size_t n = static_cast<std::size_t>(kTiles) * 32 * 32;
  const std::vector<float> in = grader::gpu::random_floats(n);
  grader::gpu::DeviceBuffer<float> d_in(n);
  grader::gpu::GuardedBuffer<float> d_out(n);
  d_in.upload(in);
  grader::gpu::announce_model_prediction("multiply_by_i", lab00_judge::instructions_of_multiply_by_i(), kTiles);
  std::string why;
  if (call({{d_in.get(), n * 4}, {d_out.get(), n * 4}}, &why) != cudaSuccess) return ::testing::AssertionFailure() << why;
  if (auto ok = grader::gpu::FinishesWithin(20.0, "lab00::multiply_by_i"); !ok) return ok;
  if (auto ok = grader::gpu::LaunchSucceeded("lab00::multiply_by_i"); !ok) return ok;
  if (auto ok = d_out.guards_intact("lab00::multiply_by_i"); !ok) return ok << "\n  (" << call.describe() << ")";
  return grader::gpu::AllMatch(times_i(in), d_out.download(), "out = i * in");
}

}  // namespace

TEST(Lab00OnGpu, MultiplyByIIsCorrect) {
  BANKLAB_REQUIRE_GPU();
  StudentMultiply st;
  BANKLAB_ASSERT(st.found);
  BANKLAB_EXPECT(multiply_correct(st));
}

TEST(Lab00OnGpu, RealAddressesHaveTheBanksOfTheFormula) {
  BANKLAB_REQUIRE_GPU();
  grader::gpu::StudentLibrary lib;
  cudaKernel_t k{};
  BANKLAB_ASSERT(lib.find(kReportKernel, &k));
  grader::gpu::GuardedBuffer<int> d_out(5 * 32);
  // The model's count for Nsight Compute's cross-check (grader/run_gpu_tool.py): the kernel only takes
  // shared addresses, it loads and stores no shared word.
  grader::gpu::announce_model_prediction("report_banks", 0, 0);
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
  const int tiles = static_cast<int>(lab00_desc::size("multiply_by_i_tiles", "traced")[0]);
  BANKLAB_ASSERT(st.call(tiles).ready);
  ::testing::AssertionResult correct = ::testing::AssertionSuccess();
  BANKLAB_EXPECT(grader::gpu::TracedSharedAccessesAreAtTheMinimum(
      "lab00::multiply_by_i (the correctness check's launch, " + std::to_string(tiles) +
          " tiles)",
      [&] { correct = multiply_correct(st); }, lab00_judge::hint_TileStoresAreConflictFree,
      grader::gpu::work_minimum(lab00_judge::instructions_of_multiply_by_i(), tiles),
      "per tile: 32 stores and 32 partner loads of a warp"));
  BANKLAB_EXPECT(correct);
}

TEST(Lab00OnGpu, MultiplyByIMeetsTheKernelTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  StudentMultiply st;
  BANKLAB_ASSERT(st.found);
  const grader::Table& row = answers().table("cell_row");
  const grader::Table& col = answers().table("cell_col");
  const int rows = variant_rows(), cols = variant_cols();
  BANKLAB_REQUIRE(row.values.size() == 1024 && col.values.size() == 1024) << "the walk is not 32 x 32";
  BANKLAB_REQUIRE(TileKept()) << "see Lab00Layout.CellsStayInsideTheTile";
  for (std::size_t k = 0; k < 1024; ++k)
    BANKLAB_REQUIRE(row.values[k] >= 0 && row.values[k] < rows && col.values[k] >= 0 && col.values[k] < cols)
        << "cell_of leaves the tile: see Lab00Layout.CellsStayInsideTheTile";
  {
    std::vector<bool> seen(1024);
    for (std::size_t k = 0; k < 1024; ++k) seen[static_cast<std::size_t>(row.values[k] * cols + col.values[k])] = true;
    for (std::size_t f = 0; f < 1024; ++f)
      BANKLAB_REQUIRE(seen[f]) << "cell_of misses an element: see Lab00Layout.EveryElementOfTheTileIsHandledOnce";
  }
  const std::vector<int> where = conflict_free_layout(row, col, cols);
  if (where.empty()) GTEST_SKIP() << "the grader has no conflict-free layout for this walk to time it against";
  std::vector<int> r32(row.values.begin(), row.values.end()), c32(col.values.begin(), col.values.end());
  grader::gpu::DeviceBuffer<int> d_row(1024), d_col(1024), d_where(1024);
  d_row.upload(r32);
  d_col.upload(c32);
  d_where.upload(where);
  const int kTiles = static_cast<int>(lab00_desc::size("multiply_by_i_tiles", "timing")[0]);  // 64 MiB each way
  const grader::gpu::RecordedCall call = st.call(kTiles);
  BANKLAB_ASSERT(call.ready);
  const std::vector<float> host_in = grader::gpu::random_floats(kTiles * 1024L);
  const std::vector<float> expected = times_i(host_in);
  grader::gpu::DeviceBuffer<float> in(kTiles * 1024L), out(kTiles * 1024L), ref_out(kTiles * 1024L);
  in.upload(host_in);
  const unsigned long long bytes = kTiles * 4096ull;
  grader::gpu::MatchesExpected<float> matches(expected, "out = i * in");
  BANKLAB_EXPECT(grader::gpu::KernelMeetsTimingTarget(
      "lab00::multiply_by_i, 16384 tiles (the grader's kernel walks the tile as yours does)",
      [&] { CUDA_CHECK(call({{in.get(), bytes}, {out.get(), bytes}})); },
      [&] {
        reference_multiply_by_i<<<kTiles, 32>>>(in.get(), ref_out.get(), d_row.get(), d_col.get(), d_where.get(), cols);
        CUDA_CHECK(cudaGetLastError());
      },
      [&] { out.poison(); }, [&] { return matches(out); }));
}
