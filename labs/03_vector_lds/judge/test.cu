// Judge for lab 03 (vector loads and stores): 8- and 16-byte shared accesses, their half- and
// quarter-warp groups, when loads merge, and a deinterleave kernel staged through shared memory.
// Never compiled with a student's file: it reads the answers of labs/03_vector_lds/judge/probe.cu and
// launches the student's compiled kernel.
// The "at the model's minimum" tests of each instruction (Lab03Layout, from lab.toml's
// at_minimum), the instructions' labels and the kernels' symbols are generated from the
// description: grader/lab03_judge.hpp and lab03_questions_test.cpp (python/banklab/lab/gen.py).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "grader/gpu/buffers.cuh"
#include "grader/gpu/kernel_timing.cuh"
#include "grader/gpu/ncu.cuh"
#include "grader/gpu/replay.cuh"
#include "grader/gpu/student.cuh"
#include "grader/gpu/trace.cuh"
#include "grader/grader.hpp"
#include "grader/lab03_description.hpp"
#include "grader/lab03_judge.hpp"
#include "grader/variants.hpp"

namespace {

using banklab::Op;
using grader::Instruction;
using grader::answers;

Instruction pattern(const char* what, Op op, int width, std::uint32_t (*offset)(int)) {
  return grader::instruction(what, op, width, offset);
}

// The kernel's contract, the graded variant's (lab.toml [variants] pairs, per, threads; 256 pairs a
// block, one a thread, as written). Read when a test asks (the test process learns its variant in
// main()); the checks and the grader's reference read these, never the student's constants.
long long variant(const char* name) { return lab03_desc::variant_value(name, grader::graded_variant()); }
int kPairs() { return static_cast<int>(variant("pairs")); }
int kPer() { return static_cast<int>(variant("per")); }
int kThreadsOf() { return static_cast<int>(variant("threads")); }

// The file's constants are the graded variant's, as its stub declares them: a file of another
// variant (a classmate's, or the lab as written's) has another kernel, and every check would judge
// accesses that are not the student's exercise. A gate: the stub passes it, and while it fails the
// Layout and GPU groups earn nothing.
::testing::AssertionResult KernelIsTheVariants() {
  const long long p = answers().value("kPairsPerBlock"), r = answers().value("kPairsPerThread"),
                  th = answers().value("kThreads"), v = answers().value("kVecBytes");
  if (p == kPairs() && r == kPer() && th == kThreadsOf() && v == 16) return ::testing::AssertionSuccess();
  const int k = grader::graded_variant();
  return ::testing::AssertionFailure()
         << "kPairsPerBlock = " << p << ", kPairsPerThread = " << r << ", kThreads = " << th << ", kVecBytes = " << v
         << ": " << (k ? "your variant " + std::to_string(k) + "'s" : std::string("this lab's")) << " block stages "
         << kPairs() << " pairs of float4 and each of its " << kThreadsOf() << " threads picks up " << kPer()
         << (kPer() == 1 ? " pair" : " pairs") << " (kPairsPerBlock = " << kPairs() << ", kPairsPerThread = " << kPer()
         << ", kThreads = " << kThreadsOf() << ", kVecBytes = 16), as its stub declares them. A file written for "
            "another kernel is judged against yours and loses this lab's Layout and GPU points."
         << "\n  Try: start again from your own stub (`build/dev/tools/banklab variant --lab 03 --variant " << k
         << " --write-stub kernel.cu`), keep its constants, and change only slot_offset() and kTileBytes.";
}

}  // namespace

TEST(Lab03Layout, TheKernelIsYourVariants) { BANKLAB_EXPECT(KernelIsTheVariants()); }

// ---- the layout -------------------------------------------------------------------------------

TEST(Lab03Layout, SlotOffsetsAreSixteenByteAligned) {
  BANKLAB_ASSERT(KernelIsTheVariants());
  const grader::Table& t = answers().table("slot_offset");
  const int pairs = kPairs();
  int bad = 0, fp = -1, fm = -1;
  for (int pair = 0; pair < pairs; ++pair)
    for (int member = 0; member < 2; ++member)
      if (t({pair, member}) % 16 != 0 && bad++ == 0) {
        fp = pair;
        fm = member;
      }
  BANKLAB_CHECK(bad == 0) << bad << " of " << 2 * pairs << " slot offsets are not multiples of 16; the first, slot_offset(" << fp << ", "
                          << fm << ") = " << (bad ? t({fp, fm}) : 0)
                          << ": a float4 in shared memory must be 16-byte aligned.\n  Try: move whole 16-byte slots, "
                             "and skew by multiples of 16 bytes.";
}

TEST(Lab03Layout, SlotOffsetIsInBoundsAndOneToOne) {
  BANKLAB_ASSERT(KernelIsTheVariants());
  const grader::Table& t = answers().table("slot_offset");
  BANKLAB_EXPECT(grader::FunctionIsInBoundsAndOneToOne(
      {"slot_offset", &t, kPairs(), 2, answers().value("kTileBytes") / 16 * 16, "kTileBytes, the bytes of the tile",
       "make kTileBytes large enough for your layout, or keep every slot_offset(pair, member) below it.",
       "give every (pair, member) its own 16-byte slot, and make kTileBytes large enough for your layout.", 16}));
}

// ---- on the GPU -------------------------------------------------------------------------------

namespace {

const grader::gpu::KernelName kDeinterleaveKernel{lab03_judge::kernel_deinterleave.symbol,
                                                  lab03_judge::kernel_deinterleave.readable};

struct StudentDeinterleave {
  grader::gpu::StudentLibrary lib;
  cudaKernel_t k{};
  ::testing::AssertionResult found = lib.find(kDeinterleaveKernel, &k);
  // What the student's launcher launched for `pairs` pairs (grader/probe/probe_runtime.cpp), replayed.
  grader::gpu::RecordedCall call(int pairs) const {
    return grader::gpu::RecordedCall(k, kDeinterleaveKernel, grader_calls::name("split_pairs", {pairs}),
                                     "split_pairs(a, b, in, " + std::to_string(pairs) + ")");
  }
};

// a[i] = in[2 i], b[i] = in[2 i + 1], as floats (4 per float4).
void split(const std::vector<float>& in, std::vector<float>& a, std::vector<float>& b) {
  const std::size_t pairs = in.size() / 8;
  a.assign(4 * pairs, 0.0f);
  b.assign(4 * pairs, 0.0f);
  for (std::size_t i = 0; i < pairs; ++i)
    for (int c = 0; c < 4; ++c) {
      a[4 * i + static_cast<std::size_t>(c)] = in[8 * i + static_cast<std::size_t>(c)];
      b[4 * i + static_cast<std::size_t>(c)] = in[8 * i + 4 + static_cast<std::size_t>(c)];
    }
}

// The grader's own deinterleave of P pairs a block, R a thread (the variant's; T = P / R threads):
// member m's pairs in R rows of T slots, row j holding the pairs t R + j, each group of 8 slots of a
// row rotated by (j + 4 m) * 4 / R' slots (R' = min(R, 4)): one load reads 8 consecutive pairs' rows
// per quarter-warp in 8 groups of banks, and the 4 a's and 4 b's a quarter-warp stores (4
// consecutive pairs) use 8 different groups of 4 banks. No padding.
template <int P, int R>
__global__ void reference_deinterleave(float4* a_out, float4* b_out, const float4* in, int) {
  constexpr int T = P / R, Q = R < 4 ? R : 4;
  __shared__ float4 tile[2 * P];
  const int t = static_cast<int>(threadIdx.x);
  const long first = static_cast<long>(blockIdx.x) * P;
  auto slot = [](int pair, int member) {
    const int j = pair % R, c = pair / R, rot = ((j % Q) * (4 / Q) + 4 * member) & 7;
    return member * P + j * T + (c & ~7) + ((c + rot) & 7);
  };
  for (int k = 0; k < 2 * R; ++k) {
    const int e = k * T + t;
    tile[slot(e / 2, e % 2)] = in[2 * first + e];
  }
  __syncthreads();
  for (int j = 0; j < R; ++j) {
    const int p = t * R + j;
    a_out[first + p] = tile[slot(p, 0)];
    b_out[first + p] = tile[slot(p, 1)];
  }
}

// The reference of the graded variant's kernel (lab.toml [variants] pairs, per).
cudaError_t launch_reference(float4* a, float4* b, const float4* in, int pairs) {
  const unsigned blocks = static_cast<unsigned>(pairs / kPairs());
  switch (kPairs() * 100 + kPer()) {
    case 25601: reference_deinterleave<256, 1><<<blocks, 256>>>(a, b, in, pairs); break;
    case 25602: reference_deinterleave<256, 2><<<blocks, 128>>>(a, b, in, pairs); break;
    case 25604: reference_deinterleave<256, 4><<<blocks, 64>>>(a, b, in, pairs); break;
    case 51202: reference_deinterleave<512, 2><<<blocks, 256>>>(a, b, in, pairs); break;
    case 25608: reference_deinterleave<256, 8><<<blocks, 32>>>(a, b, in, pairs); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

// Lanes 2k and 2k+1 load the same float4; pairs 32 bytes apart (the handout's counter example).
Instruction pair_shared_float4_load() {
  return pattern("lab03 pair-shared float4 load (lane i at (i / 2) * 32)", Op::Load, 16, [](int l) { return 32u * (l / 2); });
}

}  // namespace

namespace {

// The correctness check: the student's launcher's launches for kCorrectPairs pairs, guarded
// outputs, every element against the grader's. The traced test traces this very launch.
::testing::AssertionResult deinterleave_correct(const StudentDeinterleave& st) {
  const int pairs = static_cast<int>(lab03_desc::size("split_pairs", "traced")[0]);
  const grader::gpu::RecordedCall call = st.call(pairs);
  if (!call.ready) return call.ready;
  const std::vector<float> in = grader::gpu::random_floats(8 * static_cast<std::size_t>(pairs));
  std::vector<float> a, b;
  split(in, a, b);
  grader::gpu::DeviceBuffer<float> d_in(in.size());
  grader::gpu::GuardedBuffer<float> d_a(a.size()), d_b(b.size());
  d_in.upload(in);
  grader::gpu::announce_model_prediction("deinterleave", lab03_judge::instructions_of_deinterleave(), pairs / kPairs());
  std::string why;
  if (call({{d_a.get(), a.size() * 4}, {d_b.get(), b.size() * 4}, {d_in.get(), in.size() * 4}}, &why) != cudaSuccess)
    return ::testing::AssertionFailure() << why;
  if (auto ok = grader::gpu::FinishesWithin(20.0, "lab03::deinterleave"); !ok) return ok;
  if (auto ok = grader::gpu::LaunchSucceeded("lab03::deinterleave"); !ok) return ok;
  if (auto ok = d_a.guards_intact("lab03::deinterleave (a_out)"); !ok) return ok << "\n  (" << call.describe() << ")";
  if (auto ok = d_b.guards_intact("lab03::deinterleave (b_out)"); !ok) return ok << "\n  (" << call.describe() << ")";
  if (auto ok = grader::gpu::AllMatch(a, d_a.download(), "a_out (float index = 4 * pair + component)"); !ok) return ok;
  return grader::gpu::AllMatch(b, d_b.download(), "b_out (float index = 4 * pair + component)");
}

}  // namespace

TEST(Lab03OnGpu, DeinterleaveIsCorrect) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_ASSERT(KernelIsTheVariants());
  StudentDeinterleave st;
  BANKLAB_ASSERT(st.found);
  BANKLAB_EXPECT(deinterleave_correct(st));
}

TEST(Lab03OnGpu, TracedSharedAccessesAreConflictFree) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_REQUIRE_TRACE();
  BANKLAB_ASSERT(KernelIsTheVariants());
  StudentDeinterleave st;
  BANKLAB_ASSERT(st.found);
  const int pairs = static_cast<int>(lab03_desc::size("split_pairs", "traced")[0]);
  BANKLAB_ASSERT(st.call(pairs).ready);
  const long long per_block = answers().value("kPairsPerBlock");
  BANKLAB_REQUIRE(per_block > 0 && pairs % per_block == 0) << "kPairsPerBlock must divide " << pairs;
  ::testing::AssertionResult correct = ::testing::AssertionSuccess();
  BANKLAB_EXPECT(grader::gpu::TracedSharedAccessesAreAtTheMinimum(
      "lab03::deinterleave (the correctness check's launch, " + std::to_string(pairs) + " pairs)",
      [&] { correct = deinterleave_correct(st); },
      "a 16-byte access is served in quarter-warps: each quarter-warp's 8 lanes must use 8 different groups of 4 "
      "banks, for the stores and for both loads.",
      grader::gpu::work_minimum(lab03_judge::instructions_of_deinterleave(), pairs / per_block),
      "per block: the staging stores and the loads of a and b, 16 bytes a lane, at full warps"));
  BANKLAB_EXPECT(correct);
}

TEST(Lab03OnGpu, DeinterleaveMeetsTheKernelTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_ASSERT(KernelIsTheVariants());
  StudentDeinterleave st;
  BANKLAB_ASSERT(st.found);
  const int pairs = static_cast<int>(lab03_desc::size("split_pairs", "timing")[0]);  // 32 MiB in
  const grader::gpu::RecordedCall call = st.call(pairs);
  BANKLAB_ASSERT(call.ready);
  const std::vector<float> hin = grader::gpu::random_floats(8L * pairs);
  std::vector<float> ea, eb;
  split(hin, ea, eb);
  grader::gpu::DeviceBuffer<float> in(8L * pairs), a(4L * pairs), b(4L * pairs), ra(4L * pairs), rb(4L * pairs);
  in.upload(hin);
  grader::gpu::MatchesExpected<float> matches_a(ea, "a_out"), matches_b(eb, "b_out");
  BANKLAB_EXPECT(grader::gpu::KernelMeetsTimingTarget(
      "lab03::deinterleave, 1M pairs",
      [&] { CUDA_CHECK(call({{a.get(), 16ull * pairs}, {b.get(), 16ull * pairs}, {in.get(), 32ull * pairs}})); },
      [&] {
        CUDA_CHECK(launch_reference(reinterpret_cast<float4*>(ra.get()), reinterpret_cast<float4*>(rb.get()),
                                    reinterpret_cast<const float4*>(in.get()), pairs));
      },
      [&] {
        a.poison();
        b.poison();
      },
      [&] {
        if (auto ok = matches_a(a); !ok) return ok;
        return matches_b(b);
      }));
}

// The handout's point about the counter: this load shows 2 "bank conflicts" in Nsight Compute,
// yet costs no more than a plain contiguous float4 load (4 wavefronts each).
TEST(Lab03OnGpu, PairSharedFloat4LoadCostsNoMoreThanAContiguousOne) {
  BANKLAB_REQUIRE_GPU();
  const grader::gpu::TimingResult r = grader::gpu::time_pattern(grader::gpu::pattern_of(pair_shared_float4_load().access));
  // (Its figures in wavefronts are the answers of predictions of this lab: kFloat4ContiguousLoad's
  // among them. The times and their ratio say the point without them.)
  std::printf("[ TIMING   ] lab03 pair-shared float4 load: %.2f times the time of a contiguous float4 load\n",
              r.pattern_ms / r.reference_ms);
  BANKLAB_CHECK(r.pattern_ms <= 1.10 * r.reference_ms)
      << "the pair-shared float4 load took " << r.pattern_ms << " ms against " << r.reference_ms
      << " ms for a contiguous float4 load; the model counts both alike.";
}
