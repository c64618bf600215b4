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
#include "grader/variants.hpp"

namespace {

using banklab::Op;
using grader::Instruction;
using grader::answers;
using grader::instruction;

// The kernel's contract, the graded variant's (lab.toml [variants] channels, lanes, terms; 4
// channels of 32 coefficients, 8 lanes a channel, as written): kChannels x kTerms coefficients, a
// block of kChannels * kTerms threads. The checks and the grader's oracle read the variant's numbers,
// never the student's constants.
// (Read when a test asks: the test process learns its variant in main(), after static initialisers.)
long long variant(const char* name) { return lab02_desc::variant_value(name, grader::graded_variant()); }
int kChannels() { return static_cast<int>(variant("channels")); }
int kTerms() { return static_cast<int>(variant("terms")); }
int kLanesPerChannel() { return static_cast<int>(variant("lanes")); }
int kBlockThreads() { return kChannels() * kTerms(); }

std::string variant_words() {
  return (grader::graded_variant() ? "your variant " + std::to_string(grader::graded_variant()) + "'s" : std::string("this lab's")) +
         " warp serves " + std::to_string(kChannels()) + " channels of " + std::to_string(kTerms()) + " coefficients, " +
         std::to_string(kLanesPerChannel()) + " lanes a channel";
}

}  // namespace

// The kernel's constants are the graded variant's, as its stub declares them: a file of another
// variant (a classmate's, or the lab as written's) has another kernel, and every check below would
// judge a table that is not the student's exercise. A gate: the stub passes it, and while it fails
// the Layout and GPU groups earn nothing.
namespace {

::testing::AssertionResult KernelIsTheVariants() {
  const long long c = answers().value("kChannels"), l = answers().value("kLanesPerChannel"),
                  t = answers().value("kTerms");
  if (c == kChannels() && l == kLanesPerChannel() && t == kTerms()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
      << "kChannels = " << c << ", kLanesPerChannel = " << l << ", kTerms = " << t << ": " << variant_words()
      << " (kChannels = " << kChannels() << ", kLanesPerChannel = " << kLanesPerChannel() << ", kTerms = " << kTerms()
      << "), as its stub declares them. A file written for another kernel is judged against yours and loses this "
         "lab's Layout and GPU points."
      << "\n  Try: start again from your own stub (`build/dev/tools/banklab variant --lab 02 --variant "
      << grader::graded_variant() << " --write-stub kernel.cu`), keep its constants, and change only coef_index().";
}

}  // namespace

TEST(Lab02Layout, TheKernelIsYourVariants) { BANKLAB_EXPECT(KernelIsTheVariants()); }

// ---- the layout, replayed on the CPU ---------------------------------------------------------

TEST(Lab02Layout, EveryCoefficientHasItsOwnPlaceInTheTable) {
  BANKLAB_ASSERT(KernelIsTheVariants());
  const grader::Table& t = answers().table("coef_index");
  BANKLAB_EXPECT(grader::FunctionIsInBoundsAndOneToOne(
      {"coef_index", &t, kChannels(), kTerms(), answers().value("kTableFloats"), "kTableFloats, the floats of the table",
       "the table holds kTableFloats floats: keep every coef_index(channel, term) below it (or make the table as "
       "large as your layout needs).",
       "give each (channel, term) its own word of the table: for example term-major, or channel-major with each "
       "channel's row rotated."}));
}

TEST(Lab02Layout, LanesKeepTheHandoutsChannels) {
  const grader::Table& ch = answers().table("channel_of");
  int bad = -1;
  for (int lane = 0; lane < 32 && bad < 0; ++lane)
    if (ch({lane}) != lane / kLanesPerChannel()) bad = lane;
  BANKLAB_CHECK(bad < 0) << "channel_of(" << bad << ") = " << (bad >= 0 ? ch({bad}) : 0) << ", but " << variant_words()
                         << ": lanes " << kLanesPerChannel() << " c to " << kLanesPerChannel() << " c + " << kLanesPerChannel() - 1
                         << " take channel c (the output is checked against that rule).\n  Try: leave channel_of() as "
                            "it is; change where the table stores each coefficient instead.";
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
  const int lanes = kLanesPerChannel(), terms = kTerms();
  for (std::size_t s = 0; s < x.size(); ++s) {
    const int c = static_cast<int>(s % 32) / lanes;
    float acc = 0.0f;
    for (int t = terms - 1; t >= 0; --t) acc = std::fmaf(acc, x[s], coefs[static_cast<std::size_t>(c * terms + t)]);
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

// The grader's own evaluation for C channels of T coefficients (the variant's, a block of C * T
// threads): channel c's coefficients in row c of the table, each row rotated by c * (32 / C) words
// (term t of channel c at word c T + (t + c (32 / C)) % T) where T is a multiple of 32, so one
// step's C words sit in C banks; for shorter rows (T = 16) the table term by term (word t C + c).
template <int C, int T>
__global__ void reference_eval_channels(const float* x, const float* coefs, float* y) {
  constexpr int L = 32 / C;
  __shared__ volatile float table[C * T];
  auto at = [](int c, int t) { return T % 32 == 0 ? c * T + (t + c * L) % T : t * C + c; };
  const int i = static_cast<int>(threadIdx.x);
  const int sc = i % C, st = i / C;
  table[at(sc, st)] = coefs[sc * T + st];
  __syncthreads();
  const long s = static_cast<long>(blockIdx.x) * (C * T) + i;
  const int c = (i % 32) / L;
  const float xs = x[s];
  float acc = 0.0f;
  for (int t = T - 1; t >= 0; --t) acc = fmaf(acc, xs, table[at(c, t)]);
  y[s] = acc;
}

// The reference of the graded variant's kernel (lab.toml [variants] channels, terms).
cudaError_t launch_reference(const float* x, const float* coefs, float* y, int n) {
  const unsigned blocks = static_cast<unsigned>(n / kBlockThreads());
  switch (kChannels() * 1000 + kTerms()) {
    case 4032: reference_eval_channels<4, 32><<<blocks, 128>>>(x, coefs, y); break;
    case 8032: reference_eval_channels<8, 32><<<blocks, 256>>>(x, coefs, y); break;
    case 2064: reference_eval_channels<2, 64><<<blocks, 128>>>(x, coefs, y); break;
    case 16032: reference_eval_channels<16, 32><<<blocks, 512>>>(x, coefs, y); break;
    case 8016: reference_eval_channels<8, 16><<<blocks, 128>>>(x, coefs, y); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
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
  const std::vector<float> coefs = grader::gpu::random_floats(kChannels() * kTerms());
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
  BANKLAB_ASSERT(KernelIsTheVariants());
  StudentEval st;
  BANKLAB_ASSERT(st.found);
  BANKLAB_EXPECT(eval_correct(st));
}

TEST(Lab02OnGpu, TracedSharedAccessesAreConflictFree) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_REQUIRE_TRACE();
  BANKLAB_ASSERT(KernelIsTheVariants());
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
                                call.blocks() * (kChannels() * kTerms() / 32), grader::gpu::Layout::Counted);
  ::testing::AssertionResult correct = ::testing::AssertionSuccess();
  BANKLAB_EXPECT(grader::gpu::TracedSharedAccessesAreAtTheMinimum(
      "lab02::eval_channels (the correctness check's launch, " + std::to_string(n) + " samples)",
      [&] { correct = eval_correct(st); },
      std::string(lab02_judge::hint_CoefficientLoadsAreConflictFreeBroadcasts) + " The staging copy is judged too: thread by thread, which word of the table does "
                                "each store write, and are a warp's 32 words in 32 banks?",
      work, "per warp: " + std::to_string(kTerms()) + " coefficient loads; per block: staging the " +
                std::to_string(kChannels() * kTerms()) + "-float table"));
  BANKLAB_EXPECT(correct);
}

TEST(Lab02OnGpu, EvaluationMeetsTheKernelTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_ASSERT(KernelIsTheVariants());
  StudentEval st;
  BANKLAB_ASSERT(st.found);
  const int n = static_cast<int>(lab02_desc::size("eval_channels_launch", "timing")[0]);
  const grader::gpu::RecordedCall call = st.call(n);
  BANKLAB_ASSERT(call.ready);
  const std::vector<float> hx = grader::gpu::random_floats(n), hc = grader::gpu::random_floats(kChannels() * kTerms());
  const std::vector<float> expected = polynomials(hx, hc);
  grader::gpu::DeviceBuffer<float> x(n), coefs(kChannels() * kTerms()), y(n), ref_y(n);
  x.upload(hx);
  coefs.upload(hc);
  grader::gpu::MatchesExpected<float> matches(expected, "per-channel polynomials");
  BANKLAB_EXPECT(grader::gpu::KernelMeetsTimingTarget(
      "lab02::eval_channels, 16M samples",
      [&] { CUDA_CHECK(call({{x.get(), 4ull * n}, {coefs.get(), 4ull * kChannels() * kTerms()}, {y.get(), 4ull * n}})); },
      [&] {
        CUDA_CHECK(launch_reference(x.get(), coefs.get(), ref_y.get(), n));
      },
      [&] { y.poison(); }, [&] { return matches(y); }));
}
