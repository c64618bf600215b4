// The GPU tests a lab's description makes (python/banklab/lab/gpu_tier.py): one test of each kind,
// written once here, over the data python/banklab/lab/gen_gpu.py generates into labNN_gpu_test.cu
// (googletest's "tests as data", as grader/generated_tests.hpp does for the CPU kinds).
//   - Timing: LabNNOnGpu.<test>, one per `timing` of an [[instructions]] entry: warp instruction
//     `nth` of those `only` selects, replayed on the GPU against the conflict-free reference of its
//     op and width (grader::gpu::MeetsTimingTarget);
//   - the tiled transpose's ([gpu.transpose]): correct at the launch's "correct" and "traced"
//     sizes, traced (with `traced_hint`), its whole-kernel timing against the grader's reference,
//     its bandwidth beside a tiled copy (grader/tiled_transpose.cuh).
// Each keeps the plain "Suite.Name" a TEST() has; the list of these names is Lab.tests()
// (python/banklab/lab/lab_tests.py), and a lab's test.cu keeps only its oracles and reference kernels.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "grader/check.hpp"
#include "grader/gpu/buffers.cuh"
#include "grader/gpu/replay.cuh"
#include "grader/gpu/trace.cuh"
#include "grader/grader.hpp"
#include "grader/lab_judge.hpp"
#include "grader/tiled_transpose.cuh"

namespace grader {

/// A Timing test's instruction: labNN_judge::<instruction>(only)[nth].
struct InstructionTiming {
  std::vector<Instruction> (*instructions)(const std::vector<int>& only);  ///< labNN_judge::<instruction>
  std::vector<int> only;  ///< one index per dim, -1 for any; empty: all
  std::size_t nth;        ///< which of them, from 0
  const char* name;       ///< the instruction's name in the description (messages)
};

/// A [gpu.transpose] lab's transpose: the student's kernel and launcher transpose(out, in, w, h).
struct TransposeOfLab {
  const char* kernel_name;  ///< "lab04::transpose_padded": the tests' messages
  const char* kernel;       ///< "transpose_padded": the model's prediction (ncu cross-check)
  const char* lab_words;    ///< "lab04 transpose": the bandwidth line
  grader_desc::Kernel compiled;                          ///< labNN_judge::kernel_<kernel>
  std::vector<Instruction> (*block)();                   ///< labNN_judge::instructions_of_<kernel>
  const std::vector<long long>& (*size)(const char* launcher, const char* role);  ///< labNN_desc::size
  int (*tile_rows)();       ///< the graded variant's tile rows ([gpu.transpose] tile_rows); nullptr: 32
  const char* traced_hint;  ///< the traced test's hint (labNN_judge::hint_<traced_hint>); nullptr: no traced test
};

/// One generated GPU test: its name in LabNNOnGpu and its kind.
struct GpuTest {
  enum class Kind { Timing, TransposeCorrect, TransposeTraced, TransposeKernelTiming, TransposeBesideACopy };
  const char* test;  ///< LabNNOnGpu.<test>; nullptr ends the table
  Kind kind;
  InstructionTiming timing;  ///< Kind::Timing
  const char* role;          ///< Kind::TransposeCorrect: the launch's size, "correct" or "traced"
};

namespace generated {

inline void instruction_timing(const InstructionTiming& t) {
  BANKLAB_REQUIRE_GPU();
  // Warp `nth` as written; a variant whose tile has fewer warps of it (lab 05's 2 chunks a row:
  // 2 warps of column reads) times its last (gpu::MeetsTimingTarget(list, warp)).
  BANKLAB_EXPECT(gpu::MeetsTimingTarget(t.instructions(t.only), t.nth));
}

inline int tile_rows(const TransposeOfLab& l) { return l.tile_rows ? l.tile_rows() : 32; }

inline transpose::StudentTranspose student_transpose(const TransposeOfLab& l) {
  return transpose::StudentTranspose(gpu::KernelName{l.compiled.symbol, l.compiled.readable}, l.block);
}

inline void transpose_correct(const TransposeOfLab& l, const char* role) {
  BANKLAB_REQUIRE_GPU();
  const std::vector<long long>& s = l.size("transpose", role);
  const transpose::StudentTranspose st = student_transpose(l);
  BANKLAB_EXPECT(transpose::IsCorrect(st, l.kernel, l.kernel_name, static_cast<int>(s[0]), static_cast<int>(s[1]),
                                      tile_rows(l)));
}

// The non-square correctness check's launch (the "traced" size), traced: every shared access at the
// minimum the work needs, and the output still correct.
inline void transpose_traced(const TransposeOfLab& l) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_REQUIRE_TRACE();
  const transpose::StudentTranspose st = student_transpose(l);
  BANKLAB_ASSERT(st.found);
  const std::vector<long long>& s = l.size("transpose", "traced");
  const int w = static_cast<int>(s[0]), h = static_cast<int>(s[1]), rows = tile_rows(l);
  BANKLAB_ASSERT(st.call(w, h).ready);
  ::testing::AssertionResult correct = ::testing::AssertionSuccess();
  BANKLAB_EXPECT(gpu::TracedSharedAccessesAreAtTheMinimum(
      std::string(l.kernel_name) + " (the correctness check's launch, " + std::to_string(h) + " x " +
          std::to_string(w) + ")",
      [&] { correct = transpose::IsCorrect(st, l.kernel, l.kernel_name, w, h, rows); }, l.traced_hint,
      gpu::work_minimum(st.block(), (w / 32) * (h / rows)),
      "per " + std::to_string(rows) + " x 32 tile: its row writes and column reads, 4 bytes a lane, at full warps"));
  BANKLAB_EXPECT(correct);
}

inline void transpose_kernel_timing(const TransposeOfLab& l) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(transpose::MeetsTheKernelTimingTarget(student_transpose(l), l.kernel_name,
                                                        static_cast<int>(l.size("transpose", "timing")[0]),
                                                        tile_rows(l)));
}

// Prints the fraction of a tiled copy's bandwidth; the speed target itself lives in
// bench/gpu_perf.sh (a timed unit test would flip with the machine's load).
inline void transpose_beside_a_copy(const TransposeOfLab& l) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(transpose::TimedBesideATiledCopyStillTransposes(
      student_transpose(l), l.lab_words, static_cast<int>(l.size("transpose", "timing")[0]),
      static_cast<int>(l.size("transpose", "perf")[0])));
}

/// Every generated GPU test: the body its kind runs.
class GpuTestOfTheDescription : public ::testing::Test {
 public:
  GpuTestOfTheDescription(const GpuTest& t, const TransposeOfLab* l) : t_(t), l_(l) {}
  void TestBody() override {
    switch (t_.kind) {
      case GpuTest::Kind::Timing: instruction_timing(t_.timing); return;
      case GpuTest::Kind::TransposeCorrect: transpose_correct(*l_, t_.role); return;
      case GpuTest::Kind::TransposeTraced: transpose_traced(*l_); return;
      case GpuTest::Kind::TransposeKernelTiming: transpose_kernel_timing(*l_); return;
      case GpuTest::Kind::TransposeBesideACopy: transpose_beside_a_copy(*l_); return;
    }
  }

 private:
  const GpuTest& t_;
  const TransposeOfLab* l_;
};

}  // namespace generated

/// Registers lab `lab`'s generated GPU tests (at static initialisation, before main) in the
/// table's order, in the suite LabNNOnGpu, after test.cu's own (its translation unit comes first).
/// `transpose`: the lab's [gpu.transpose] (nullptr: none; then the table holds no transpose test).
inline bool register_generated_gpu_tests(const char* lab, const GpuTest* tests, const TransposeOfLab* transpose,
                                         const char* file) {
  const std::string suite = std::string("Lab") + lab + "OnGpu";  // googletest copies the names
  for (const GpuTest* t = tests; t->test; ++t)
    ::testing::RegisterTest(suite.c_str(), t->test, nullptr, nullptr, file, 0, [t, transpose]() -> ::testing::Test* {
      return new generated::GpuTestOfTheDescription(*t, transpose);
    });
  return true;
}

}  // namespace grader
