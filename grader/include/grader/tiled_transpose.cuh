// The tiled transpose that labs 04 (padding) and 05 (swizzle) share, as the judge sees it: its
// shared instructions from the probe's access tables, the student's kernel launched as the
// handout's launcher does (TILE_DIM x BLOCK_ROWS threads a 32 x 32 tile), and its checks.
#pragma once

#include <string>
#include <vector>

#include "grader/gpu/buffers.cuh"
#include "grader/gpu/kernel_timing.cuh"
#include "grader/gpu/ncu.cuh"
#include "grader/gpu/replay.cuh"
#include "grader/gpu/student.cuh"
#include "grader/gpu/transpose.cuh"
#include "grader/grader.hpp"

namespace grader::transpose {

/// Row writes (access table "row_write"): warp w, loop step s stores tile[w + s * BLOCK_ROWS][lane].
inline std::vector<Instruction> row_writes() {
  const long long rows = answers().value("BLOCK_ROWS");
  return all_of(answers().access("row_write"), [rows](const std::vector<int>& i) {
    return "warp " + std::to_string(i[0]) + ", j = " + std::to_string(i[1] * rows) + ": store tile[" +
           std::to_string(i[0] + i[1] * rows) + "][lane] (row write)";
  });
}

/// Column reads (access table "column_read"): warp w, loop step s loads tile[lane][w + s * BLOCK_ROWS].
inline std::vector<Instruction> column_reads() {
  const long long rows = answers().value("BLOCK_ROWS");
  return all_of(answers().access("column_read"), [rows](const std::vector<int>& i) {
    return "warp " + std::to_string(i[0]) + ", j = " + std::to_string(i[1] * rows) + ": load tile[lane][" +
           std::to_string(i[0] + i[1] * rows) + "] (column read)";
  });
}

/// The student's transpose kernel from the fatbin, launched with grid (w / TILE_DIM, h / TILE_DIM)
/// and block (TILE_DIM, BLOCK_ROWS) from the student's constants.
struct StudentTranspose {
  explicit StudentTranspose(const gpu::KernelName& name) : found(lib.find(name, &k)) {}
  gpu::StudentLibrary lib;
  cudaKernel_t k{};
  ::testing::AssertionResult found;
  cudaError_t operator()(float* o, const float* i, int w, int h) const {
    const int tile = static_cast<int>(answers().value("TILE_DIM")), rows = static_cast<int>(answers().value("BLOCK_ROWS"));
    return gpu::launch(k, dim3(static_cast<unsigned>(w / tile), static_cast<unsigned>(h / tile)),
                       dim3(static_cast<unsigned>(tile), static_cast<unsigned>(rows)), o, i, w, h);
  }
};

/// Correct on a width x height matrix (guarded output, the grader's CPU transpose), with the
/// model's prediction printed for the ncu cross-check.
inline ::testing::AssertionResult IsCorrect(const StudentTranspose& st, const char* kernel, const std::string& what,
                                            int width, int height) {
  if (!st.found) return st.found;
  std::vector<Instruction> block = row_writes();
  for (Instruction& i : column_reads()) block.push_back(i);
  gpu::announce_model_prediction(kernel, block, static_cast<long long>(width / 32) * (height / 32));
  return gpu::TransposesCorrectly(what, std::cref(st), width, height);
}

/// 4096 x 4096 against the grader's conflict-free transpose, interleaved.
inline ::testing::AssertionResult MeetsTheKernelTimingTarget(const StudentTranspose& st, const std::string& what) {
  if (!st.found) return st.found;
  const int n = 4096;
  gpu::DeviceBuffer<float> in(static_cast<std::size_t>(n) * n), out(static_cast<std::size_t>(n) * n);
  in.upload(gpu::random_floats(static_cast<std::size_t>(n) * n));
  return gpu::KernelMeetsTimingTarget(what + ", 4096 x 4096", [&] { CUDA_CHECK(st(out.get(), in.get(), n, n)); },
                                      [&] { gpu::launch_reference_transpose(out.get(), in.get(), n, n); });
}

/// Prints the fraction of a tiled copy's bandwidth (16384^2 under BANKLAB_PERF, else 4096^2; the
/// target lives in bench/gpu_perf.sh), then checks the transpose at that size.
inline ::testing::AssertionResult TimedBesideATiledCopyStillTransposes(const StudentTranspose& st,
                                                                       const std::string& what) {
  if (!st.found) return st.found;
  const int n = gpu::perf_mode() ? 16384 : 4096;
  {
    gpu::DeviceBuffer<float> d_in(static_cast<std::size_t>(n) * n), d_out(static_cast<std::size_t>(n) * n);
    d_in.upload(gpu::random_floats(static_cast<std::size_t>(n) * n));
    float* o = d_out.get();
    const float* i = d_in.get();
    gpu::fraction_of_copy_bandwidth(what, [&] { CUDA_CHECK(st(o, i, n, n)); }, i, o, n);
  }
  return gpu::TransposesCorrectly(what, std::cref(st), n, n);
}

}  // namespace grader::transpose
