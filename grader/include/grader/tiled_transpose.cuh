// The tiled transpose that labs 04 (padding) and 05 (swizzle) share, as the judge sees it: its
// shared instructions from the probe's access tables, the student's kernel launched as the
// student's launcher launched it (recorded by the probe), and its checks.
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

/// The student's transpose kernel from the fatbin, launched as the student's launcher
/// transpose(out, in, width, height) launched it when the probe called it (grader/probe/probe_runtime.cpp);
/// `block`: every shared instruction of one block, as the probe describes them (the lab's
/// generated labNN_judge::instructions_of_<kernel>).
struct StudentTranspose {
  StudentTranspose(const gpu::KernelName& n, std::vector<Instruction> (*b)())
      : name(n), block(b), found(lib.find(n, &k)) {}
  gpu::KernelName name;
  std::vector<Instruction> (*block)();
  gpu::StudentLibrary lib;
  cudaKernel_t k{};
  ::testing::AssertionResult found;
  gpu::RecordedCall call(int w, int h) const {
    return gpu::RecordedCall(k, name, grader_calls::name("transpose", {w, h}),
                             "transpose(out, in, " + std::to_string(w) + ", " + std::to_string(h) + ")");
  }
  cudaError_t operator()(float* o, const float* i, int w, int h) const {
    const std::size_t bytes = 4ull * static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    return call(w, h)({{o, bytes}, {i, bytes}});
  }
};

/// Correct on a width x height matrix (guarded output, the grader's CPU transpose), with the
/// model's prediction printed for the ncu cross-check (blocks of `tile_rows` x 32 tiles: 32, a
/// square tile, but in lab 04's variants of fewer rows).
inline ::testing::AssertionResult IsCorrect(const StudentTranspose& st, const char* kernel, const std::string& what,
                                            int width, int height, int tile_rows = 32) {
  if (!st.found) return st.found;
  const gpu::RecordedCall call = st.call(width, height);
  if (!call.ready) return call.ready;
  gpu::announce_model_prediction(kernel, st.block(), static_cast<long long>(width / 32) * (height / tile_rows));
  auto r = gpu::TransposesCorrectly(what, std::cref(st), width, height);
  if (!r) r << "\n  (" << call.describe() << ")";
  return r;
}

/// n x n (the description's "timing" size, 4096) against the grader's conflict-free transpose with
/// the block shape of the launch that does the work (RecordedCall::work_block), interleaved; every
/// timed run's output is checked too.
/// `rows`: the tile's rows of 32 floats the graded variant asks for (lab 04's variants); the
/// reference then moves a tile of that many rows (launch_reference_transpose_rows), so a variant's
/// kernel is timed against the same work at the model's minimum, not against the 32 x 32 tile.
inline ::testing::AssertionResult MeetsTheKernelTimingTarget(const StudentTranspose& st, const std::string& what, int n,
                                                             int rows = 32) {
  if (!st.found) return st.found;
  const gpu::RecordedCall call = st.call(n, n);
  if (!call.ready) return call.ready;
  const std::size_t count = static_cast<std::size_t>(n) * n;
  const std::vector<float> host_in = gpu::random_floats(count);
  const std::vector<float> expected = gpu::cpu_transpose(host_in, n, n);
  gpu::DeviceBuffer<float> in(count), out(count), ref_out(count);
  in.upload(host_in);
  std::string whose;
  const dim3 block = call.work_block(dim3(32, 8), &whose);  // the handout's 32 x 8
  gpu::MatchesExpected<float> matches(expected, "the transpose");
  const std::string against =
      rows == 32 ? "the grader's kernel with " + whose + " of " + std::to_string(block.x) + " x " +
                       std::to_string(block.y) + " threads"
                 : "the grader's kernel of a tile of " + std::to_string(rows) + " rows of 32 floats, 32 x " +
                       std::to_string(rows < 8 ? rows : 8) + " threads";
  ::testing::AssertionResult timed = gpu::KernelMeetsTimingTarget(
      what + ", " + std::to_string(n) + " x " + std::to_string(n) + " (" + against + ")",
      [&] { CUDA_CHECK(call({{out.get(), 4 * count}, {in.get(), 4 * count}})); },
      [&] { gpu::launch_reference_transpose_rows(ref_out.get(), in.get(), n, n, rows, block); }, [&] { out.poison(); },
      [&] { return matches(out); });
  // The reference's own output, after its timed runs: a wrong one is the grader's bug, said as such.
  gpu::MatchesExpected<float> reference_matches(expected, "the grader's reference transpose");
  if (auto ok = reference_matches(ref_out); !ok)
    return ::testing::AssertionFailure() << "grader bug, not your kernel's fault: " << ok.message();
  return timed;
}

/// Prints the fraction of a tiled copy's bandwidth (perf_n^2 under BANKLAB_PERF, else n^2: the
/// description's "perf" and "timing" sizes; the target lives in bench/gpu_perf.sh), then checks
/// the transpose at that size.
inline ::testing::AssertionResult TimedBesideATiledCopyStillTransposes(const StudentTranspose& st,
                                                                       const std::string& what, int n, int perf_n) {
  if (!st.found) return st.found;
  if (gpu::perf_mode()) n = perf_n;
  if (auto ok = st.call(n, n).ready; !ok) return ok;
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
