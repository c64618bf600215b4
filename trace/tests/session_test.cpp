// banklab::trace::Session on kernels the way the judge runs them: a -lineinfo cubin loaded with
// cudaLibraryLoadFromFile and launched with cudaLaunchKernel. Skips (with the reason) where
// tracing cannot run: no GPU, no driver, the sanitizer library missing.
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "banklab_trace/session.hpp"
#include "banklab_trace/trace.hpp"

namespace {

banklab::trace::Session* g_session = nullptr;
std::string g_unavailable;

constexpr int kBlocks = 4, kThreads = 64;
constexpr int kWarps = kBlocks * kThreads / 32;

int line_of(const std::string& tag) {
  std::ifstream in(BANKLAB_TRACE_KERNELS_SOURCE);
  std::string s;
  for (int n = 1; std::getline(in, s); ++n)
    if (s.find("LINE:" + tag) != std::string::npos) return n;
  return -1;
}

// Loads the cubin, runs one kernel, returns what the session recorded for it (and, in `module`,
// the handle of the module it ran from).
std::vector<banklab::trace::Instruction> run(const char* kernel_name, CUmodule* module = nullptr) {
  cudaLibrary_t lib{};
  EXPECT_EQ(cudaLibraryLoadFromFile(&lib, BANKLAB_TRACE_KERNELS_CUBIN, nullptr, nullptr, 0, nullptr, nullptr, 0),
            cudaSuccess);
  cudaKernel_t kernel{};
  EXPECT_EQ(cudaLibraryGetKernel(&kernel, lib, kernel_name), cudaSuccess);
  float* out = nullptr;
  EXPECT_EQ(cudaMalloc(&out, kBlocks * kThreads * sizeof(float)), cudaSuccess);
  // After the first runtime call that makes the context (the driver's call needs one current).
  if (module) EXPECT_EQ(cuLibraryGetModule(module, reinterpret_cast<CUlibrary>(lib)), CUDA_SUCCESS);
  void* args[] = {&out};
  g_session->clear();
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(kBlocks), dim3(kThreads), args, 0, nullptr),
            cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto got = g_session->take_instructions();
  EXPECT_TRUE(g_session->take_unmodelled().empty());
  cudaFree(out);
  cudaLibraryUnload(lib);
  return got;
}

struct PerLine {
  std::uint64_t count = 0, wavefronts = 0, minimum = 0;
  banklab::Op op = banklab::Op::Load;
};

std::map<int, PerLine> per_line(const std::vector<banklab::trace::Instruction>& ins, const std::string& kernel) {
  std::map<int, PerLine> m;
  for (const auto& i : ins) {
    EXPECT_EQ(i.kernel, kernel);
    EXPECT_NE(i.file.find("session_kernels.cu"), std::string::npos) << "file: " << i.file;
    EXPECT_EQ(i.access.mask, 0xffffffffu);
    EXPECT_EQ(i.access.width, 4);
    const auto c = banklab::trace::cost_of(i.access);
    auto& p = m[i.line];
    p.count += i.count;
    p.wavefronts += i.count * c.wavefronts;
    p.minimum += i.count * c.minimum;
    p.op = i.access.op;
  }
  return m;
}

TEST(TraceSession, RecordsAThirtyTwoWayColumnStoreAndLoadAtTheirSourceLines) {
  if (!g_unavailable.empty()) GTEST_SKIP() << "tracing unavailable: " << g_unavailable;
  const auto m = per_line(run("column_conflict"), "column_conflict");
  ASSERT_EQ(m.count(line_of("column_store")), 1u) << "no record at the column store's line";
  ASSERT_EQ(m.count(line_of("column_load")), 1u) << "no record at the column load's line";
  const PerLine& st = m.at(line_of("column_store"));
  EXPECT_EQ(st.op, banklab::Op::Store);
  EXPECT_EQ(st.count, std::uint64_t(kWarps));
  EXPECT_EQ(st.wavefronts, std::uint64_t(32 * kWarps));
  EXPECT_EQ(st.minimum, std::uint64_t(kWarps));
  const PerLine& ld = m.at(line_of("column_load"));
  EXPECT_EQ(ld.op, banklab::Op::Load);
  EXPECT_EQ(ld.count, std::uint64_t(kWarps));
  EXPECT_EQ(ld.wavefronts, std::uint64_t(32 * kWarps));
}

TEST(TraceSession, RecordsAConflictFreeRowAtTheMinimum) {
  if (!g_unavailable.empty()) GTEST_SKIP() << "tracing unavailable: " << g_unavailable;
  const auto ins = run("row_free");
  const auto m = per_line(ins, "row_free");
  ASSERT_EQ(m.size(), 2u);
  for (const auto& [line, p] : m) {
    EXPECT_EQ(p.count, std::uint64_t(kWarps)) << "line " << line;
    EXPECT_EQ(p.wavefronts, p.minimum) << "line " << line;
    EXPECT_EQ(p.wavefronts, std::uint64_t(kWarps)) << "line " << line;
  }
  // Offsets are relative to the first __shared__ byte: lane i of warp w at (32 w + i) * 4.
  for (const auto& i : ins)
    for (int lane = 0; lane < 32; ++lane) EXPECT_EQ(i.access.offset[lane] % 128, std::uint32_t(lane * 4));
}

// The judge loads the student's code afresh for every judged call and unloads it after: the driver
// hands a new module the handle of one unloaded before, and the tracer must patch it all the same
// (it once kept the handles it had patched, and a module at a reused handle ran unpatched, its
// launch missing from the trace).
TEST(TraceSession, RecordsEveryLaunchOfAModuleLoadedAfresh) {
  if (!g_unavailable.empty()) GTEST_SKIP() << "tracing unavailable: " << g_unavailable;
  std::set<CUmodule> seen;
  int reused = 0;
  for (int round = 0; round < 24; ++round) {
    const char* kernel = round % 3 == 2 ? "row_free" : "column_conflict";
    CUmodule module{};
    const auto m = per_line(run(kernel, &module), kernel);
    const bool again = !seen.insert(module).second;
    reused += again;
    std::uint64_t count = 0;
    for (const auto& [line, p] : m) count += p.count;
    EXPECT_EQ(count, std::uint64_t(2 * kWarps)) << "round " << round << ", " << kernel << " (module " << module
                                                << (again ? ", a handle an unloaded module had" : "")
                                                << "): its launch is missing from the trace";
  }
  std::printf("[   INFO   ] 24 modules loaded afresh, %d at a handle an unloaded module had\n", reused);
}

}  // namespace

int main(int argc, char** argv) {
  // The session must exist before the first CUDA call of the process.
  static banklab::trace::Session session;
  g_session = &session;
  g_unavailable = banklab::trace::Session::unavailable_reason();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
