// Judge for lab 05 (swizzle): the transpose through an unpadded tile whose rows are permuted,
// and a transpose of float4 elements through a 16-byte-chunk swizzle. Never compiled with a
// student's file: it reads the answers of labs/05_swizzle/judge/probe.cu and launches the student's
// compiled kernels.
//   Lab05Predictions  the handout's questions, checked against the bank model (generated from
//                     labs/05_swizzle/judge/lab.toml, see python/banklab/lab/gen.py)
//   Lab05Layout       tile_index() and chunk_offset(): in bounds, one-to-one, no padding, every
//                     warp instruction of both kernels (as the probe describes them) conflict-free
//   Lab05OnGpu        the student's kernels on a GPU: correct results against the grader's own
//                     transposes, the traced real shared-memory traffic, and the timing targets
//                     (the float transpose's and each instruction's generated from lab.toml's
//                     [gpu.transpose] and timing: python/banklab/lab/gen_gpu.py); here the float4's
// The "at the model's minimum" tests of each instruction (Lab05Layout, from lab.toml's
// at_minimum), the instructions' labels and the kernels' symbols are generated from the
// description: grader/lab05_judge.hpp and lab05_questions_test.cpp (python/banklab/lab/gen.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grader/gpu/buffers.cuh"
#include "grader/gpu/kernel_timing.cuh"
#include "grader/gpu/ncu.cuh"
#include "grader/gpu/replay.cuh"
#include "grader/gpu/student.cuh"
#include "grader/gpu/trace.cuh"
#include "grader/gpu/transpose.cuh"
#include "grader/grader.hpp"
#include "grader/lab05_description.hpp"
#include "grader/lab05_judge.hpp"
#include "grader/tiled_transpose.cuh"
#include "grader/variants.hpp"

namespace {

using banklab::Op;
using grader::Instruction;
using grader::answers;

long long constant(const char* name) { return answers().value(name); }

// The float4 tile's rows: kChunksPerRow chunks of 16 bytes, as the graded variant's kernel.cu says
// (lab.toml [variants] chunks; 8, 128-byte rows, as written). The checks and the grader's reference
// read the variant's, never the student's constant.
int variant_chunks() { return static_cast<int>(lab05_desc::variant_value("chunks", grader::graded_variant())); }

// The float4 tile's constants as the stub declares them for the graded variant: a tile whose
// geometry changed is another exercise (and the checks below would read past its table).
::testing::AssertionResult Float4TileKept() {
  const int n = variant_chunks();
  if (constant("kChunkRows") == 32 && constant("kChunksPerRow") == n && constant("kChunkBytes") == 16) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "kChunkRows = " << constant("kChunkRows") << ", kChunksPerRow = " << constant("kChunksPerRow")
         << ", kChunkBytes = " << constant("kChunkBytes") << ": " << (grader::graded_variant() ? "your variant's" : "this lab's")
         << " float4 tile is 32 rows of " << n << " chunks of 16 bytes (" << 16 * n << "-byte rows), as its stub declares it."
         << "\n  Try: keep the stub's constants; change only chunk_offset(), the layout inside the tile.";
}

}  // namespace

// ---- the float tile ---------------------------------------------------------------------------

TEST(Lab05Layout, TileIndexIsInBoundsAndOneToOne) {
  const grader::Table& t = answers().table("tile_index");
  BANKLAB_EXPECT(grader::FunctionIsInBoundsAndOneToOne(
      {"tile_index", &t, 32, 32, constant("kTileFloats"), "kTileFloats, the floats of the tile",
       "row r of the tile is floats r * 32 to r * 32 + 31: keep every column of a row inside its row (move the "
       "columns within the row, never into another row).",
       "give each (row, col) its own place: permute the columns within each row (e.g. with a function of the "
       "column and the row that is one-to-one in the column for every row)."}));
}

TEST(Lab05Layout, TheFloatTileHasNoPadding) {
  BANKLAB_CHECK(constant("kTileFloats") == 32 * 32 && constant("TILE_DIM") == 32)
      << "kTileFloats = " << constant("kTileFloats") << ": this lab's tile is exactly 32 x 32 floats. Padding (lab 04) "
      << "works, but here the column read must become conflict-free by permuting where each row stores its "
      << "elements, at no cost in shared memory.";
}

// ---- the float4 tile --------------------------------------------------------------------------

TEST(Lab05Layout, ChunkOffsetsAreSixteenByteAligned) {
  BANKLAB_ASSERT(Float4TileKept());
  const grader::Table& t = answers().table("chunk_offset");
  const int n = variant_chunks();
  int bad = 0, first_row = -1, first_chunk = -1;
  for (int row = 0; row < 32; ++row)
    for (int chunk = 0; chunk < n; ++chunk)
      if (t({row, chunk}) % 16 != 0 && bad++ == 0) {
        first_row = row;
        first_chunk = chunk;
      }
  BANKLAB_CHECK(bad == 0) << bad << " of " << 32 * n << " chunk offsets are not multiples of 16; the first, chunk_offset(" << first_row
                          << ", " << first_chunk << ") = " << (bad ? t({first_row, first_chunk}) : 0)
                          << ". A float4 access must be 16-byte aligned (a misaligned shared access is an error on the "
                             "GPU).\n  Try: swizzle whole 16-byte chunks: leave the low 4 bits of the offset alone.";
}

TEST(Lab05Layout, ChunkOffsetIsInBoundsAndOneToOne) {
  BANKLAB_ASSERT(Float4TileKept());
  const grader::Table& t = answers().table("chunk_offset");
  const int n = variant_chunks();
  const std::string row = std::to_string(16 * n), last = std::to_string(16 * n - 1), chunks = std::to_string(n);
  BANKLAB_EXPECT(grader::FunctionIsInBoundsAndOneToOne(
      {"chunk_offset", &t, 32, n, static_cast<long long>(constant("kChunkTileBytes") / 16 * 16),
       "kChunkTileBytes, the bytes of the float4 tile",
       "row r of the float4 tile is bytes r * " + row + " to r * " + row + " + " + last + ", " + chunks +
           " chunks of 16 bytes: keep every chunk of a row inside its row (move the chunks within the row, never "
           "into another row).",
       "permute the " + chunks + " chunks of each row among themselves: XOR (or add, modulo " + chunks +
           ") the chunk number with a function of the row only.", 16}));
}

TEST(Lab05Layout, TheFloat4TileHasNoPadding) {
  BANKLAB_ASSERT(Float4TileKept());
  const int n = variant_chunks();
  BANKLAB_CHECK(constant("kChunkTileBytes") == 32 * 16 * n)
      << "kChunkTileBytes = " << constant("kChunkTileBytes") << ": the float4 tile is exactly 32 rows of " << 16 * n
      << " bytes. Make the column read conflict-free by permuting the chunks of each row.";
}

// ---- on the GPU -------------------------------------------------------------------------------

namespace {

const grader::gpu::KernelName kTransposeKernel{lab05_judge::kernel_transpose_swizzled.symbol,
                                               lab05_judge::kernel_transpose_swizzled.readable};
const grader::gpu::KernelName kTranspose4Kernel{lab05_judge::kernel_transpose_float4.symbol,
                                                lab05_judge::kernel_transpose_float4.readable};

grader::transpose::StudentTranspose student_transpose() {
  return grader::transpose::StudentTranspose(kTransposeKernel, lab05_judge::instructions_of_transpose_swizzled);
}

// The grader's float4 transpose of a 32 x N tile (N chunks a row, the variant's): row r keeps chunk
// c at chunk (c + r / R) % N, R = the rows a 128-byte line holds (4 for N = 2, 2 for N = 4, else
// 1), so any 8 consecutive rows put one chunk column in 8 groups of 4 banks.
template <int N>
__global__ void reference_transpose4(float4* odata, const float4* idata, int width, int height) {
  constexpr int R = N < 8 ? 8 / N : 1;
  __shared__ float4 tile[32 * N];
  const int t = static_cast<int>(threadIdx.x), lane = t % 32, warp = t / 32, row = t / N, chunk = t % N;
  tile[row * N + (chunk + row / R) % N] = idata[static_cast<long>(blockIdx.y * 32 + row) * width + blockIdx.x * N + chunk];
  __syncthreads();
  odata[static_cast<long>(blockIdx.x * N + warp) * height + blockIdx.y * 32 + lane] = tile[lane * N + (warp + lane / R) % N];
}

// The reference for the graded variant's tile (lab.toml [variants] chunks: 2, 4, 8, 16 or 32).
cudaError_t launch_reference_transpose4(float4* o, const float4* i, int w, int h) {
  const int n = variant_chunks();
  const dim3 grid(static_cast<unsigned>(w / n), static_cast<unsigned>(h / 32));
  switch (n) {
    case 2: reference_transpose4<2><<<grid, 32 * 2>>>(o, i, w, h); break;
    case 4: reference_transpose4<4><<<grid, 32 * 4>>>(o, i, w, h); break;
    case 8: reference_transpose4<8><<<grid, 32 * 8>>>(o, i, w, h); break;
    case 16: reference_transpose4<16><<<grid, 32 * 16>>>(o, i, w, h); break;
    case 32: reference_transpose4<32><<<grid, 32 * 32>>>(o, i, w, h); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

struct StudentTranspose4 {
  grader::gpu::StudentLibrary lib;
  cudaKernel_t k{};
  ::testing::AssertionResult found = lib.find(kTranspose4Kernel, &k);
  // What the student's launcher transpose4 launched for w x h float4 (grader/probe/probe_runtime.cpp).
  grader::gpu::RecordedCall call(int w, int h) const {
    return grader::gpu::RecordedCall(k, kTranspose4Kernel, grader_calls::name("transpose4", {w, h}),
                                     "transpose4(out, in, " + std::to_string(w) + ", " + std::to_string(h) + ")");
  }
  cudaError_t operator()(float4* o, const float4* i, int w, int h) const {
    const std::size_t bytes = 16ull * static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    return call(w, h)({{o, bytes}, {i, bytes}});
  }
};

std::vector<float> float4_transpose(const std::vector<float>& in, int width, int height) {
  std::vector<float> expected(in.size());
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c)
      for (int k = 0; k < 4; ++k)
        expected[(static_cast<std::size_t>(c) * height + r) * 4 + k] = in[(static_cast<std::size_t>(r) * width + c) * 4 + k];
  return expected;
}

::testing::AssertionResult float4_transpose_correct(const StudentTranspose4& st, int width, int height) {
  const grader::gpu::RecordedCall call = st.call(width, height);
  if (!call.ready) return call.ready;
  const std::size_t n = static_cast<std::size_t>(width) * height;
  const std::vector<float> in = grader::gpu::random_floats(4 * n);
  const std::vector<float> expected = float4_transpose(in, width, height);
  grader::gpu::DeviceBuffer<float> d_in(4 * n);
  grader::gpu::GuardedBuffer<float> d_out(4 * n);
  d_in.upload(in);
  if (const cudaError_t e = st(reinterpret_cast<float4*>(d_out.get()), reinterpret_cast<const float4*>(d_in.get()), width, height); e != cudaSuccess)
    return ::testing::AssertionFailure() << "lab05::transpose_float4 could not be launched: " << cudaGetErrorString(e);
  grader::gpu::FinishesWithin(20.0, "lab05::transpose_float4");
  if (auto ok = grader::gpu::LaunchSucceeded("lab05::transpose_float4"); !ok) return ok;
  if (auto ok = d_out.guards_intact("lab05::transpose_float4"); !ok) return ok << "\n  (" << call.describe() << ")";
  return grader::gpu::AllMatch(expected, d_out.download(),
                               "float4 transpose of " + std::to_string(height) + " x " + std::to_string(width) +
                                   " float4 (float index = 4 * float4 index + component)");
}

}  // namespace

TEST(Lab05OnGpu, Float4TransposeIsCorrect) {
  BANKLAB_REQUIRE_GPU();
  StudentTranspose4 st;
  BANKLAB_ASSERT(st.found);
  const std::vector<long long>& s = lab05_desc::size("transpose4", "traced");  // 64 x 256 float4
  const int w = static_cast<int>(s[0]), h = static_cast<int>(s[1]);
  BANKLAB_ASSERT(Float4TileKept());
  grader::gpu::announce_model_prediction("transpose_float4", lab05_judge::instructions_of_transpose_float4(),
                                         (w / variant_chunks()) * (h / 32));
  BANKLAB_EXPECT(float4_transpose_correct(st, w, h));
}

TEST(Lab05OnGpu, TracedSharedAccessesOfBothKernelsAreConflictFree) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_REQUIRE_TRACE();
  const grader::transpose::StudentTranspose st = student_transpose();
  StudentTranspose4 st4;
  BANKLAB_ASSERT(st.found);
  BANKLAB_ASSERT(st4.found);
  BANKLAB_ASSERT(Float4TileKept());
  // The correctness checks' launches (the non-square float transpose, the float4 transpose), traced.
  const std::vector<long long>&s = lab05_desc::size("transpose", "traced"), &s4 = lab05_desc::size("transpose4", "traced");
  const int w = static_cast<int>(s[0]), h = static_cast<int>(s[1]), w4 = static_cast<int>(s4[0]), h4 = static_cast<int>(s4[1]);
  BANKLAB_ASSERT(st.call(w, h).ready);
  BANKLAB_ASSERT(st4.call(w4, h4).ready);
  ::testing::AssertionResult correct = ::testing::AssertionSuccess(), correct4 = ::testing::AssertionSuccess();
  const grader::gpu::Work work = grader::gpu::work_minimum(st.block(), (w / 32) * (h / 32)) +
                         grader::gpu::work_minimum(lab05_judge::instructions_of_transpose_float4(),
                                                     (w4 / variant_chunks()) * (h4 / 32));
  BANKLAB_EXPECT(grader::gpu::TracedSharedAccessesAreAtTheMinimum(
      "lab05::transpose_swizzled (96 x 256) and lab05::transpose_float4 (256 x 64 float4), the correctness checks' "
      "launches",
      [&] {
        correct = grader::transpose::IsCorrect(st, "transpose_swizzled", "lab05::transpose_swizzled", w, h);
        correct4 = float4_transpose_correct(st4, w4, h4);
      },
      std::string(lab05_judge::hint_ColumnReadsOfTheTileAreConflictFree) + " For the float4 tile: " +
          lab05_judge::hint_ChunkColumnReadsAreConflictFree, work,
      "per tile of each kernel: its row writes and column reads at full warps"));
  BANKLAB_EXPECT(correct);
  BANKLAB_EXPECT(correct4);
}

TEST(Lab05OnGpu, Float4TransposeMeetsTheKernelTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  StudentTranspose4 st;
  BANKLAB_ASSERT(st.found);
  BANKLAB_ASSERT(Float4TileKept());
  const std::vector<long long>& s = lab05_desc::size("transpose4", "timing");
  const int w = static_cast<int>(s[0]), h = static_cast<int>(s[1]);  // float4: 64 MiB each way
  BANKLAB_ASSERT(st.call(w, h).ready);
  const std::vector<float> hin = grader::gpu::random_floats(4L * w * h);
  const std::vector<float> expected = float4_transpose(hin, w, h);
  grader::gpu::DeviceBuffer<float> in(4L * w * h), out(4L * w * h), ref_out(4L * w * h);
  in.upload(hin);
  auto* o = reinterpret_cast<float4*>(out.get());
  auto* i = reinterpret_cast<const float4*>(in.get());
  grader::gpu::MatchesExpected<float> matches(expected, "the float4 transpose");
  BANKLAB_EXPECT(grader::gpu::KernelMeetsTimingTarget(
      "lab05::transpose_float4, " + std::to_string(h) + " x " + std::to_string(w) + " float4", [&] { CUDA_CHECK(st(o, i, w, h)); },
      [&] {
        CUDA_CHECK(launch_reference_transpose4(reinterpret_cast<float4*>(ref_out.get()), i, w, h));
      },
      [&] { out.poison(); }, [&] { return matches(out); }));
}
