// The GPU tier that the GEMM labs (06 ldmatrix, 07 TMA swizzle) share, as the judge sees it:
// c = a * b^T (a: m x k halves, b: n x k halves, both row-major; c: m x n floats), the grader's
// own random operands and CPU product, the student's kernel launched as the student's launcher
// gemm(c, ..., m, n, k) launched it when the probe called it (grader/probe/probe_runtime.cpp), its
// product checked bit for bit, and its traced shared-memory traffic. What differs between the
// labs (what the launcher takes besides c: a and b, or tensor maps of them) is the lab's Gemm.
#pragma once

#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "grader/gpu/buffers.cuh"
#include "grader/gpu/ncu.cuh"
#include "grader/gpu/student.cuh"
#include "grader/gpu/trace.cuh"
#include "grader/grader.hpp"
#include "grader/launch_calls.hpp"

namespace grader::gemm {

/// Fresh random halves that are multiples of 1/8 in [-1, 1], never 0 (zeros hide unwritten or
/// skipped terms): every product is a multiple of 1/64 and every sum of up to 4096 of them is exact
/// in float, in any order, so the student's product must equal the grader's bit for bit.
inline std::vector<__half> random_halves(std::size_t n) {
  std::mt19937_64 rng(gpu::fresh_seed());
  std::uniform_int_distribution<int> d(-8, 8);
  std::vector<__half> v(n);
  for (__half& x : v) {
    int q = d(rng);
    while (q == 0) q = d(rng);
    x = __float2half(static_cast<float>(q) / 8.0f);
  }
  return v;
}

/// c = a * b^T on the CPU (exact: see random_halves).
inline std::vector<float> cpu_product(const std::vector<__half>& a, const std::vector<__half>& b, int m, int n, int k) {
  std::vector<float> af(a.size()), bf(b.size()), c(static_cast<std::size_t>(m) * n);
  for (std::size_t i = 0; i < a.size(); ++i) af[i] = __half2float(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) bf[i] = __half2float(b[i]);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int p = 0; p < k; ++p) s += af[static_cast<std::size_t>(i) * k + p] * bf[static_cast<std::size_t>(j) * k + p];
      c[static_cast<std::size_t>(i) * n + j] = s;
    }
  return c;
}

/// Blocks times steps of `tile_k` (64 unless a lab's tile says otherwise) along k: the units of work
/// of an m x n x k product in 64 x 64 tiles of c (each unit: one block's instructions for one step,
/// as the probe describes them).
inline long long units(int m, int n, int k, int tile_k = 64) {
  return static_cast<long long>(m / 64) * (n / 64) * (k / tile_k);
}

/// The device buffers a lab's launcher takes after c, made from the grader's a and b, and what
/// must live until the launch has finished (tensor maps, say).
struct Operands {
  std::vector<gpu::CallBuffer> after_c;
  std::shared_ptr<void> keep;
};

/// A GEMM lab's kernel and launcher, as its judge describes them.
struct Gemm {
  gpu::KernelName kernel;               ///< the kernel in the student's fatbin
  std::string what;                     ///< "lab06::gemm_ldmatrix", for messages
  const char* ncu_kernel;               ///< the kernel's name for ncu's cross-check ("gemm_ldmatrix")
  std::string operands;                 ///< the launcher's arguments after c, as called ("a, b")
  std::vector<Instruction> (*step)();   ///< one unit of work's instructions (labNN_judge::instructions_of_...)
  bool stores_in_model = true;          ///< the ncu cross-check counts the described stores (false: TMA writes the tiles)
  /// Makes the call's buffers after c from the device copies of a (m x k) and b (n x k); a failure
  /// says why in words.
  std::function<::testing::AssertionResult(const __half* a, const __half* b, int m, int n, int k, Operands* out)>
      make_operands;
  std::function<std::string()> wrong_product_note;  ///< added to a wrong product's message (may be empty)
  /// The halves along k of one step (one unit's instructions): 64 when null; a lab whose variants
  /// change the tile's k (lab 07) gives the graded variant's.
  int (*tile_k)() = nullptr;
  int step_k() const { return tile_k ? tile_k() : 64; }
};

/// The student's GEMM kernel from the fatbin and the launcher calls the probe recorded.
struct StudentGemm {
  explicit StudentGemm(const Gemm& g) : lab(g), found(lib.find(g.kernel, &kernel)) {}
  const Gemm& lab;
  gpu::StudentLibrary lib;
  cudaKernel_t kernel{};
  ::testing::AssertionResult found;
  /// What the student's launcher gemm launched for m x n x k.
  gpu::RecordedCall call(int m, int n, int k) const {
    return gpu::RecordedCall(kernel, lab.kernel, grader_calls::name("gemm", {m, n, k}),
                             "gemm(c, " + lab.operands + ", " + std::to_string(m) + ", " + std::to_string(n) + ", " +
                                 std::to_string(k) + ")");
  }
};

/// The student's product for m x n x k (fresh random a and b, guarded c) equals the grader's CPU
/// product; the model's prediction is printed for ncu's cross-check.
inline ::testing::AssertionResult ProductIsCorrect(const StudentGemm& st, int m, int n, int k) {
  if (!st.found) return st.found;
  const gpu::RecordedCall call = st.call(m, n, k);
  if (!call.ready) return call.ready;
  const Gemm& g = st.lab;
  const std::vector<__half> a = random_halves(static_cast<std::size_t>(m) * k), b = random_halves(static_cast<std::size_t>(n) * k);
  const std::vector<float> expected = cpu_product(a, b, m, n, k);
  gpu::DeviceBuffer<__half> da(a.size()), db(b.size());
  gpu::GuardedBuffer<float> dc(expected.size());
  da.upload(a);
  db.upload(b);
  Operands ops;
  if (auto ok = g.make_operands(da.get(), db.get(), m, n, k, &ops); !ok) return ok;
  // For ncu's op_ld/op_st wavefront counters: op_ld counts the LDSM wavefronts (measured on the
  // H200 for lab 06: 6144 for the 1536 ldmatrix.x4 of the solution's launch here, 49152 for the stub's,
  // at k = 256, before lab 06's sizes became multiples of its variants' rows).
  const std::vector<Instruction> step = g.step();
  const long long steps = units(m, n, k, g.step_k());
  gpu::announce_model_prediction(
      g.ncu_kernel, steps * (total_wavefronts(step, banklab::Op::Load) + total_wavefronts(step, banklab::Op::LoadMatrix)),
      g.stores_in_model ? steps * total_wavefronts(step, banklab::Op::Store) : 0);
  std::vector<gpu::CallBuffer> bufs{{dc.get(), 4ull * m * n}};
  bufs.insert(bufs.end(), ops.after_c.begin(), ops.after_c.end());
  std::string why;
  if (const cudaError_t e = call(bufs, &why); e != cudaSuccess)
    return ::testing::AssertionFailure() << g.what << " could not be launched: "
                                         << (why.empty() ? std::string(cudaGetErrorString(e)) : why);
  gpu::FinishesWithin(20.0, g.what);
  if (auto ok = gpu::LaunchSucceeded(g.what); !ok) return ok;
  if (auto ok = dc.guards_intact(g.what.c_str()); !ok) return ok << "\n  (" << call.describe() << ")";
  auto ok = gpu::AllMatch(expected, dc.download(),
                          "c = a * b^T for m = " + std::to_string(m) + ", n = " + std::to_string(n) + ", k = " +
                              std::to_string(k) + " (c[i][j] at index i * n + j)");
  if (!ok && g.wrong_product_note) ok << g.wrong_product_note();
  return ok;
}

/// The correctness check's launch of m x n x k, traced (after one to three untraced ones): every
/// shared-memory instruction at the model's minimum, in all no more than the work needs
/// (`work`: what that counts), and at least the `required` ldmatrix; the product right too.
inline void ExpectTracedSharedAccessesAreConflictFree(const StudentGemm& st, int m, int n, int k, const std::string& hint,
                                                      const std::string& work,
                                                      const std::vector<gpu::RequiredKind>& required) {
  BANKLAB_ASSERT(st.found);
  BANKLAB_ASSERT(st.call(m, n, k).ready);
  ::testing::AssertionResult correct = ::testing::AssertionSuccess();
  BANKLAB_EXPECT(gpu::TracedSharedAccessesAreAtTheMinimum(
      st.lab.what + " (m = " + std::to_string(m) + ", n = " + std::to_string(n) + ", k = " + std::to_string(k) +
          "), the correctness check's launch",
      [&] { correct = ProductIsCorrect(st, m, n, k); }, hint, gpu::work_minimum(st.lab.step(), units(m, n, k, st.lab.step_k())), work,
      required));
  BANKLAB_EXPECT(correct);
}

}  // namespace grader::gemm
