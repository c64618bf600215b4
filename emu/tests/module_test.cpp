// What a module holds beside its kernels: `.global` and `.const` variables with their initial
// values (PTX ISA 9.0, "State Spaces": global, const; "Variables": initializers), kept in the
// device's memory from one launch to the next as on the GPU, and `.func` functions called with
// params and a return value ("Function declarations and definitions", call).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "emu_harness.hpp"

namespace banklab::emu::test {
namespace {

const char* const kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n";

// Each thread t of one warp writes out[t] = {low: what `body` leaves in %r7, high: %r2}.
std::string module_around(const std::string& top, const std::string& body) {
  return std::string(kHeader) + top +
         "\n.visible .entry t(\n\t.param .u64 t_param_0\n)\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n"
         "\t.reg .f32 %f<4>;\n\tld.param.u64 %rd1, [t_param_0];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, 0;\n" + body +
         "\n\tmul.wide.u32 %rd5, %r1, 8;\n\tadd.s64 %rd6, %rd1, %rd5;\n\tmov.b64 %rd7, {%r7, %r2};\n\tst.global.u64 [%rd6], %rd7;\n\tret;\n}\n";
}

struct Launches {
  std::vector<LaunchResult> results;
  std::vector<std::vector<std::uint64_t>> out;  // per launch
};

Launches launch_times(const std::string& ptx, int times) {
  Emu e(ptx);  // one device: the module's variables live across its launches
  Launches r;
  for (int i = 0; i < times; ++i) {
    const std::uint64_t out = e.alloc(32 * 8);
    r.results.push_back(e.run(e.kernel(), {out}, false));
    r.out.push_back(e.download<std::uint64_t>(out, 32));
  }
  return r;
}

const char* const kVariables =
    ".global .align 4 .u32 counter = 7;\n"
    ".global .align 4 .b8 table[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64};\n"  // 1.0f 2.0f 3.0f 4.0f
    ".const .align 4 .b8 scale[8] = {3, 0, 0, 0, 5};\n";

TEST(ModuleVariables, HaveTheirInitialValuesAndKeepTheirWritesAcrossLaunches) {
  // %r2 = counter's old value (7 + lane, then 32 more a launch); %r7 = 3 * table[t % 4] + 5 (scale's words).
  const std::string body =
      "atom.global.add.u32 %r2, [counter], 1;\nand.b32 %r3, %r1, 3;\nmul.wide.u32 %rd2, %r3, 4;\nmov.u64 %rd3, table;\n"
      "add.s64 %rd4, %rd3, %rd2;\nld.global.f32 %f1, [%rd4];\ncvt.rzi.u32.f32 %r4, %f1;\nld.const.u32 %r5, [scale+4];\n"
      "ld.const.u32 %r6, [scale];\nmad.lo.s32 %r7, %r4, %r6, %r5;";
  const Launches r = launch_times(module_around(kVariables, body), 2);
  for (const LaunchResult& res : r.results) ASSERT_TRUE(res.ok()) << res.message;
  const std::uint64_t want[2][4] = {{8 | 7ull << 32, 11 | 8ull << 32, 14 | 9ull << 32, 17 | 10ull << 32},
                                    {8 | 39ull << 32, 11 | 40ull << 32, 14 | 41ull << 32, 17 | 42ull << 32}};
  for (int l = 0; l < 2; ++l)
    for (int t = 0; t < 4; ++t) EXPECT_EQ(r.out[static_cast<std::size_t>(l)][static_cast<std::size_t>(t)], want[l][t]) << "launch " << l << ", lane " << t;
}

TEST(ModuleVariables, AnAccessPastAVariableFaults) {
  const Launches r = launch_times(module_around(kVariables, "ld.global.u32 %r7, [counter+4];"), 1);
  EXPECT_EQ(r.results[0].status, LaunchResult::Status::Fault) << r.results[0].message;
  EXPECT_NE(r.results[0].message.find("outside every allocation"), std::string::npos) << r.results[0].message;
}

TEST(ModuleVariables, AnInitializerLongerThanItsVariableIsRefusedWithItsLine) {
  EXPECT_THROW(parse_ptx(module_around(".global .align 4 .b8 x[2] = {1, 2, 3};\n", "mov.u32 %r7, 0;")), std::runtime_error);
}

// nvcc's PTX of emu/tests/data/module_vars.cu: a local array, module variables and a call, at once.
TEST(ModuleVariables, NvccsKernelWithLocalsVariablesAndACallGivesItsSourcesValues) {
  Emu e(read_text(BANKLAB_EMU_PTX_MODULE_VARS));
  const std::uint64_t out = e.alloc(32 * 4);
  const LaunchResult r = e.run(e.kernel("_Z11module_varsPi"), {out}, false);
  ASSERT_TRUE(r.ok()) << r.message;
  const std::vector<std::int32_t> got = e.download<std::int32_t>(out, 32);
  const std::pair<int, int> want[] = {{0, 37}, {1, 44}, {5, 188}, {9, 92}, {31, 1342}};  // 3 (2 t (t % 8) + 12) + t % 4 + 1
  for (const auto& [t, v] : want) EXPECT_EQ(got[static_cast<std::size_t>(t)], v) << "thread " << t;
}

// Hand-written calls: a callee that returns early on some lanes (divergence inside the callee,
// reconverging at the caller), a callee calling another, and what cannot be inlined.
const char* const kFunctions =
    ".func (.param .b32 f_ret) half_or_ten(.param .b32 f_x)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n"
    "\tld.param.u32 %r1, [f_x];\n\tsetp.lt.u32 %p1, %r1, 4;\n\t@%p1 bra $L1;\n\tshr.u32 %r2, %r1, 1;\n"
    "\tst.param.b32 [f_ret], %r2;\n\tret;\n$L1:\n\tst.param.b32 [f_ret], 10;\n\tret;\n}\n"
    ".func (.param .b32 g_ret) plus_one_of(.param .b32 g_x)\n{\n\t.reg .b32 %r<4>;\n\tld.param.u32 %r1, [g_x];\n"
    "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r1;\n\t.param .b32 retval0;\n"
    "\tcall.uni (retval0),\n\thalf_or_ten,\n\t(\n\tparam0\n\t);\n\tld.param.b32 %r2, [retval0+0];\n\t}\n"
    "\tadd.s32 %r3, %r2, 1;\n\tst.param.b32 [g_ret], %r3;\n\tret;\n}\n";
const char* const kCallsPlusOne =
    "{\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\n.param .b32 retval0;\n"
    "call.uni (retval0), plus_one_of, (param0);\nld.param.b32 %r7, [retval0+0];\n}\n"
    "{\n.param .b64 param0;\ncvt.u64.u32 %rd8, %r1;\nst.param.b64 [param0+0], %rd8;\n.param .b32 retval0;\n"
    "call.uni (retval0), half_or_ten, (param0);\nld.param.b32 %r2, [retval0+0];\n}";

TEST(Calls, ReturnValuesAcrossNestedCallsAndAnEarlyReturnOfSomeLanes) {
  // %r7 = half_or_ten(t) + 1; %r2 = half_or_ten(t) again (its argument a .b64 param in a second
  // call block: each block's param0 is its own): t < 4 gives 10, else t / 2.
  const Launches r = launch_times(module_around(kFunctions, kCallsPlusOne), 1);
  ASSERT_TRUE(r.results[0].ok()) << r.results[0].message;
  const std::pair<int, std::uint64_t> want[] = {{0, 11 | 10ull << 32}, {3, 11 | 10ull << 32}, {4, 3 | 2ull << 32}, {31, 16 | 15ull << 32}};
  for (const auto& [t, v] : want) EXPECT_EQ(r.out[0][static_cast<std::size_t>(t)], v) << "thread " << t;
}

TEST(Calls, ACallOfAFunctionNotDefinedBeforeItIsNotJudged) {
  const std::string top = ".func (.param .b32 r_ret) self(.param .b32 r_x)\n{\n\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [r_x];\n"
                          "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r1;\n\t.param .b32 retval0;\n"
                          "\tcall.uni (retval0), self, (param0);\n\tld.param.b32 %r2, [retval0+0];\n\t}\n"
                          "\tst.param.b32 [r_ret], %r2;\n\tret;\n}\n";
  const std::string body = "{\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\n.param .b32 retval0;\n"
                           "call.uni (retval0), self, (param0);\nld.param.b32 %r7, [retval0+0];\n}";
  const Launches r = launch_times(module_around(top, body), 1);
  EXPECT_EQ(r.results[0].status, LaunchResult::Status::NotJudged) << r.results[0].message;
  EXPECT_NE(r.results[0].message.find("a call of `self`"), std::string::npos) << r.results[0].message;
}

}  // namespace
}  // namespace banklab::emu::test
