// Judge for lab 02 (broadcast): the broadcast and multicast predictions, the coefficient table on
// the CPU, and the GPU tier. Never compiled with a student's file: it reads the answers of
// labs/02_broadcast/judge/probe.cu and launches the student's compiled kernel. The expected output comes
// from the handout's own channel rule (lanes 8c .. 8c+7 take channel c), never from the
// student's channel_of(). The staging copy's order lives in the kernel body, so only the trace
// of the real stores judges it.
// The "at the model's minimum" tests of each instruction (Lab02Layout, from lab.toml's
// at_minimum), the instructions' labels and the kernels' symbols are generated from the
// description: grader/lab02_judge.hpp and lab02_questions_test.cpp (python/banklab/lab/gen.py).
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
#include "grader/lab02_description.hpp"
#include "grader/lab02_judge.hpp"

namespace {

using banklab::Op;
using grader::Instruction;
using grader::answers;
using grader::instruction;

// The handout's contract: 4 channels of 32 coefficients, 8 lanes per channel, 128 threads a block.
constexpr int kChannels = 4, kTerms = 32, kLanesPerChannel = 8, kBlockThreads = 128;

}  // namespace

// ---- the layout, replayed on the CPU ---------------------------------------------------------

TEST(Lab02Layout, EveryCoefficientHasItsOwnPlaceInTheTable) {
  const grader::Table& t = answers().table("coef_index");
  BANKLAB_EXPECT(grader::FunctionIsInBoundsAndOneToOne(
      {"coef_index", &t, kChannels, kTerms, answers().value("kTableFloats"), "kTableFloats, the floats of the table",
       "the table holds kTableFloats floats: keep every coef_index(channel, term) below it (or make the table as "
       "large as your layout needs).",
       "give each (channel, term) its own word of the table: for example term-major, or channel-major with each "
       "channel's row rotated."}));
}

TEST(Lab02Layout, LanesKeepTheHandoutsChannels) {
  const grader::Table& ch = answers().table("channel_of");
  int bad = -1;
  for (int lane = 0; lane < 32 && bad < 0; ++lane)
    if (ch({lane}) != lane / kLanesPerChannel) bad = lane;
  BANKLAB_CHECK(bad < 0) << "channel_of(" << bad << ") = " << (bad >= 0 ? ch({bad}) : 0)
                         << ", but the handout gives lanes 8c .. 8c+7 channel c (the output is checked against that "
                            "rule).\n  Try: leave channel_of() as it is; change where the table stores each "
                            "coefficient instead.";
}

// ---- GPU tier ---------------------------------------------------------------------------------

namespace {

const grader::gpu::KernelName kEvalKernel{lab02_judge::kernel_eval_channels.symbol,
                                          lab02_judge::kernel_eval_channels.readable};

struct StudentEval {
  grader::gpu::StudentLibrary lib;
  cudaKernel_t k{};
  ::testing::AssertionResult found = lib.find(kEvalKernel, &k);
  // What the student's launcher launched for n samples (grader/probe/probe_runtime.cpp), replayed.
  grader::gpu::RecordedCall call(int n) const {
    return grader::gpu::RecordedCall(k, kEvalKernel, grader_calls::name("eval_channels_launch", {n}),
                                     "eval_channels_launch(x, coefs, y, " + std::to_string(n) + ")");
  }
};

// The grader's oracle: channel = (s % 32) / kLanesPerChannel, the handout's rule, not the
// student's channel_of().
inline __attribute__((always_inline)) void evaluate(const std::vector<float>& x, const std::vector<float>& coefs,
                                                     std::vector<float>& expected) {
  for (std::size_t s = 0; s < x.size(); ++s) {
    const int c = static_cast<int>(s % 32) / kLanesPerChannel;
    float acc = 0.0f;
    for (int t = kTerms - 1; t >= 0; --t) acc = std::fmaf(acc, x[s], coefs[static_cast<std::size_t>(c * kTerms + t)]);
    expected[s] = acc;
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same loop where the CPU has an FMA instruction: std::fmaf is then that instruction instead of
// a call into the maths library (the same result, rounded once): 16M samples of 32 terms, the
// timing test's oracle, took 1.3 s without it and 0.45 s with it.
__attribute__((target("fma"))) void evaluate_fma(const std::vector<float>& x, const std::vector<float>& coefs,
                                                 std::vector<float>& expected) {
  evaluate(x, coefs, expected);
}
#endif

std::vector<float> polynomials(const std::vector<float>& x, const std::vector<float>& coefs) {
  std::vector<float> expected(x.size());
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("fma")) {
    evaluate_fma(x, coefs, expected);
    return expected;
  }
#endif
  evaluate(x, coefs, expected);
  return expected;
}

// The grader's own evaluation: channel c's coefficients stored in row c of the table, rotated by
// 8c words (term t of channel c at word 32 c + (t + 8 c) % 32): one step's 4 words in 4 banks.
__global__ void reference_eval_channels(const float* x, const float* coefs, float* y) {
  __shared__ volatile float table[kChannels * kTerms];
  const int i = static_cast<int>(threadIdx.x);
  const int sc = i % kChannels, st = i / kChannels;
  table[sc * kTerms + (st + 8 * sc) % kTerms] = coefs[sc * kTerms + st];
  __syncthreads();
  const long s = static_cast<long>(blockIdx.x) * kBlockThreads + i;
  const int c = (i % 32) / kLanesPerChannel;
  const float xs = x[s];
  float acc = 0.0f;
  for (int t = kTerms - 1; t >= 0; --t) acc = fmaf(acc, xs, table[c * kTerms + (t + 8 * c) % kTerms]);
  y[s] = acc;
}

}  // namespace

namespace {

// The correctness check: the student's launcher's launches for kCorrectSamples samples, guarded
// output, every sample against the grader's. The traced test traces this very launch.
::testing::AssertionResult eval_correct(const StudentEval& st) {
  const int n = static_cast<int>(lab02_desc::size("eval_channels_launch", "traced")[0]);
  const grader::gpu::RecordedCall call = st.call(n);
  if (!call.ready) return call.ready;
  const std::vector<float> x = grader::gpu::random_floats(static_cast<std::size_t>(n));
  const std::vector<float> coefs = grader::gpu::random_floats(kChannels * kTerms);
  grader::gpu::DeviceBuffer<float> d_x(x.size()), d_coefs(coefs.size());
  grader::gpu::GuardedBuffer<float> d_y(x.size());
  d_x.upload(x);
  d_coefs.upload(coefs);
  grader::gpu::announce_model_prediction("eval_channels", lab02_judge::table_load(), n / 32, false);
  std::string why;
  if (call({{d_x.get(), x.size() * 4}, {d_coefs.get(), coefs.size() * 4}, {d_y.get(), x.size() * 4}}, &why) !=
      cudaSuccess)
    return ::testing::AssertionFailure() << why;
  if (auto ok = grader::gpu::FinishesWithin(20.0, "lab02::eval_channels"); !ok) return ok;
  if (auto ok = grader::gpu::LaunchSucceeded("lab02::eval_channels"); !ok) return ok;
  if (auto ok = d_y.guards_intact("lab02::eval_channels"); !ok) return ok << "\n  (" << call.describe() << ")";
  return grader::gpu::AllMatch(polynomials(x, coefs), d_y.download(), "per-channel polynomials");
}

}  // namespace

TEST(Lab02OnGpu, ChannelPolynomialsAreCorrect) {
  BANKLAB_REQUIRE_GPU();
  StudentEval st;
  BANKLAB_ASSERT(st.found);
  BANKLAB_EXPECT(eval_correct(st));
}

TEST(Lab02OnGpu, TracedSharedAccessesAreConflictFree) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_REQUIRE_TRACE();
  StudentEval st;
  BANKLAB_ASSERT(st.found);
  const int n = static_cast<int>(lab02_desc::size("eval_channels_launch", "traced")[0]);
  const grader::gpu::RecordedCall call = st.call(n);
  BANKLAB_ASSERT(call.ready);
  // The work: kTerms coefficient loads per warp, and each block stages the table once (one
  // 4-byte store per coefficient: kTableFloats / 32 warp stores at 1 wavefront).
  const grader::gpu::Work work =
      grader::gpu::work_minimum(lab02_judge::table_load(), n / 32) +
      grader::gpu::work_minimum({grader::instruction("staging store", banklab::Op::Store, 4, [](int l) { return 4 * l; })},
                                call.blocks() * (kChannels * kTerms / 32), grader::gpu::Layout::Counted);
  ::testing::AssertionResult correct = ::testing::AssertionSuccess();
  BANKLAB_EXPECT(grader::gpu::TracedSharedAccessesAreAtTheMinimum(
      "lab02::eval_channels (the correctness check's launch, " + std::to_string(n) + " samples)",
      [&] { correct = eval_correct(st); },
      std::string(lab02_judge::hint_CoefficientLoadsAreConflictFreeBroadcasts) + " The staging copy is judged too: thread by thread, which word of the table does "
                                "each store write, and are a warp's 32 words in 32 banks?",
      work, "per warp: 32 coefficient loads; per block: staging the 128-float table"));
  BANKLAB_EXPECT(correct);
}

TEST(Lab02OnGpu, EvaluationMeetsTheKernelTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  StudentEval st;
  BANKLAB_ASSERT(st.found);
  const int n = static_cast<int>(lab02_desc::size("eval_channels_launch", "timing")[0]);
  const grader::gpu::RecordedCall call = st.call(n);
  BANKLAB_ASSERT(call.ready);
  const std::vector<float> hx = grader::gpu::random_floats(n), hc = grader::gpu::random_floats(kChannels * kTerms);
  const std::vector<float> expected = polynomials(hx, hc);
  grader::gpu::DeviceBuffer<float> x(n), coefs(kChannels * kTerms), y(n), ref_y(n);
  x.upload(hx);
  coefs.upload(hc);
  grader::gpu::MatchesExpected<float> matches(expected, "per-channel polynomials");
  BANKLAB_EXPECT(grader::gpu::KernelMeetsTimingTarget(
      "lab02::eval_channels, 16M samples",
      [&] { CUDA_CHECK(call({{x.get(), 4ull * n}, {coefs.get(), 4ull * kChannels * kTerms}, {y.get(), 4ull * n}})); },
      [&] {
        reference_eval_channels<<<n / kBlockThreads, kBlockThreads>>>(x.get(), coefs.get(), ref_y.get());
        CUDA_CHECK(cudaGetLastError());
      },
      [&] { y.poison(); }, [&] { return matches(y); }));
}

TEST(Lab02OnGpu, CoefficientLoadsMeetTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(lab02_judge::table_load()[5]));
}
