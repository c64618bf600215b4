// What a module holds beside its kernels: `.global` and `.const` variables with their initial
// values (PTX ISA 9.0, "State Spaces": global, const; "Variables": initializers), kept in the
// device's memory from one launch to the next as on the GPU, and `.func` functions called with
// params and a return value ("Function declarations and definitions", call).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "banklab_emu/emulator.hpp"

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
  const Module mod = parse_ptx(ptx);
  const Kernel& k = mod.kernels.at(0);
  Device dev;
  Launches r;
  for (int i = 0; i < times; ++i) {
    const std::uint64_t out = dev.alloc(32 * 8);
    void* args[] = {const_cast<std::uint64_t*>(&out)};
    LaunchConfig cfg;
    cfg.block.x = 32;
    r.results.push_back(launch(mod, k, cfg, pack_params(k, args), dev, nullptr));
    r.out.emplace_back(32);
    dev.read(out, r.out.back().data(), 32 * 8);
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

}  // namespace
}  // namespace banklab::emu::test
