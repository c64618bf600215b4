// One test per instruction family, cases as data: a few lines of PTX (lane t has %r10 = t and
// leaves its result in %rd1) and the results of lanes 0, 1, 2, 3, ... worked out by hand.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "emu_harness.hpp"

namespace banklab::emu::test {
namespace {

struct Case {
  const char* family;
  const char* body;
  std::vector<std::uint64_t> lanes;  // expected out[0], out[1], ... (hand-computed)
  unsigned threads = 32;
};

constexpr std::uint64_t M1 = ~0ull;  // -1 as 64 bits
constexpr std::uint64_t M2 = ~1ull;  // -2

const std::vector<Case> kCases = {
    // ---- integer arithmetic
    {"add", "add.s32 %r1, %r10, 5;\ncvt.u64.u32 %rd1, %r1;", {5, 6, 7, 8}},
    {"sub", "sub.s32 %r1, %r10, 2;\ncvt.s64.s32 %rd1, %r1;", {M2, M1, 0, 1}},
    {"mul.lo", "mul.lo.s32 %r1, %r10, 7;\ncvt.u64.u32 %rd1, %r1;", {0, 7, 14, 21}},
    {"mul.wide", "mul.wide.u32 %rd1, %r10, 1073741824;", {0, 1ull << 30, 1ull << 31, 3ull << 30}},
    {"mul.wide.s32", "sub.s32 %r2, %r10, 1;\nmul.wide.s32 %rd1, %r2, 3;", {~2ull, 0, 3, 6}},
    {"mul.hi", "mul.hi.u32 %r1, %r10, -1;\ncvt.u64.u32 %rd1, %r1;", {0, 0, 1, 2}},
    {"mad.lo", "mad.lo.s32 %r1, %r10, 3, 100;\ncvt.u64.u32 %rd1, %r1;", {100, 103, 106, 109}},
    {"mad.wide", "mad.wide.u32 %rd1, %r10, 4, 4294967296;", {1ull << 32, (1ull << 32) + 4, (1ull << 32) + 8}},
    {"add.s64", "cvt.u64.u32 %rd2, %r10;\nadd.s64 %rd1, %rd2, 4294967295;", {0xffffffffull, 1ull << 32, (1ull << 32) + 1}},
    {"div.s32", "sub.s32 %r2, %r10, 3;\ndiv.s32 %r1, %r2, 2;\ncvt.s64.s32 %rd1, %r1;", {M1, M1, 0, 0, 0, 1}},
    {"rem.u32", "rem.u32 %r1, %r10, 3;\ncvt.u64.u32 %rd1, %r1;", {0, 1, 2, 0, 1}},
    {"min.s32", "sub.s32 %r2, %r10, 2;\nmin.s32 %r1, %r2, 0;\ncvt.s64.s32 %rd1, %r1;", {M2, M1, 0, 0}},
    {"max.u32", "max.u32 %r1, %r10, 2;\ncvt.u64.u32 %rd1, %r1;", {2, 2, 2, 3}},
    {"max.u32 (unsigned)", "sub.s32 %r2, %r10, 1;\nmax.u32 %r1, %r2, 5;\ncvt.u64.u32 %rd1, %r1;", {0xffffffffull, 5, 5, 5}},
    {"abs", "sub.s32 %r2, %r10, 2;\nabs.s32 %r1, %r2;\ncvt.u64.u32 %rd1, %r1;", {2, 1, 0, 1}},
    {"neg", "neg.s32 %r1, %r10;\ncvt.s64.s32 %rd1, %r1;", {0, M1, M2}},
    // ---- logic and shifts
    {"and", "and.b32 %r1, %r10, 2;\ncvt.u64.u32 %rd1, %r1;", {0, 0, 2, 2}},
    {"or", "or.b32 %r1, %r10, 4;\ncvt.u64.u32 %rd1, %r1;", {4, 5, 6, 7}},
    {"xor", "xor.b32 %r1, %r10, 1;\ncvt.u64.u32 %rd1, %r1;", {1, 0, 3, 2}},
    {"not", "not.b32 %r1, %r10;\ncvt.u64.u32 %rd1, %r1;", {0xffffffffull, 0xfffffffeull}},
    {"shl", "shl.b32 %r1, %r10, 4;\ncvt.u64.u32 %rd1, %r1;", {0, 16, 32, 48}},
    {"shl (too far)", "shl.b32 %r1, 1, 33;\ncvt.u64.u32 %rd1, %r1;", {0, 0}},
    {"shl.b64", "cvt.u64.u32 %rd2, %r10;\nshl.b64 %rd1, %rd2, 40;", {0, 1ull << 40, 2ull << 40}},
    {"shr.s32", "sub.s32 %r2, %r10, 8;\nshr.s32 %r1, %r2, 1;\ncvt.s64.s32 %rd1, %r1;", {~3ull, ~3ull, ~2ull, ~2ull}},
    {"shr.u32", "sub.s32 %r2, %r10, 8;\nshr.u32 %r1, %r2, 28;\ncvt.u64.u32 %rd1, %r1;", {15, 15}},
    {"popc", "popc.b32 %r1, %r10;\ncvt.u64.u32 %rd1, %r1;", {0, 1, 1, 2, 1, 2, 2, 3}},
    {"clz", "clz.b32 %r1, %r10;\ncvt.u64.u32 %rd1, %r1;", {32, 31, 30, 30}},
    // bfi / bfe (PTX ISA 9.0, Integer Arithmetic Instructions: bfi, bfe)
    {"bfi", "bfi.b32 %r1, %r10, 0, 8, 4;\ncvt.u64.u32 %rd1, %r1;", {0, 0x100, 0x200, 0x300}},
    {"bfi into ones", "bfi.b32 %r1, 5, 65280, 4, 3;\ncvt.u64.u32 %rd1, %r1;", {0xff50, 0xff50}},
    {"bfe.u32", "bfe.u32 %r1, 43981, 4, 8;\ncvt.u64.u32 %rd1, %r1;", {0xbc, 0xbc}},
    {"bfe.s32 sign", "bfe.s32 %r1, 3968, 4, 8;\ncvt.s64.s32 %rd1, %r1;", {~7ull, ~7ull}},
    {"bfe.u32 of lanes", "bfe.u32 %r1, %r10, 1, 2;\ncvt.u64.u32 %rd1, %r1;", {0, 0, 1, 1, 2, 2, 3, 3, 0}},
    {"brev", "brev.b32 %r1, %r10;\ncvt.u64.u32 %rd1, %r1;", {0, 0x80000000ull, 0x40000000ull, 0xc0000000ull}},
    // ---- floating point (results as their bits)
    {"add.f32", "cvt.rn.f32.u32 %f1, %r10;\nadd.f32 %f2, %f1, 0f3F000000;\nmov.b32 %r1, %f2;\ncvt.u64.u32 %rd1, %r1;",
     {0x3F000000, 0x3FC00000, 0x40200000, 0x40600000}},
    {"fma.f32", "cvt.rn.f32.u32 %f1, %r10;\nfma.rn.f32 %f2, %f1, 0f40000000, 0f3F800000;\nmov.b32 %r1, %f2;\ncvt.u64.u32 %rd1, %r1;",
     {0x3F800000, 0x40400000, 0x40A00000, 0x40E00000}},
    {"neg.f32", "cvt.rn.f32.u32 %f1, %r10;\nneg.f32 %f2, %f1;\nmov.b32 %r1, %f2;\ncvt.u64.u32 %rd1, %r1;",
     {0x80000000, 0xBF800000, 0xC0000000, 0xC0400000}},
    {"div.f32", "cvt.rn.f32.u32 %f1, %r10;\ndiv.rn.f32 %f2, %f1, 0f40000000;\nmov.b32 %r1, %f2;\ncvt.u64.u32 %rd1, %r1;",
     {0, 0x3F000000, 0x3F800000, 0x3FC00000}},
    {"mul.f64", "cvt.rn.f64.u32 %fd1, %r10;\nmul.f64 %fd2, %fd1, 0d4000000000000000;\nmov.b64 %rd1, %fd2;",
     {0, 0x4000000000000000ull, 0x4010000000000000ull, 0x4018000000000000ull}},
    // ---- conversions
    {"cvt.s64.s32", "sub.s32 %r2, %r10, 2;\ncvt.s64.s32 %rd1, %r2;", {M2, M1, 0, 1}},
    {"cvt.u16.u32", "mad.lo.s32 %r2, %r10, 65537, 65535;\ncvt.u16.u32 %rs1, %r2;\ncvt.u64.u16 %rd1, %rs1;", {0xffff, 0, 1, 2}},
    {"cvt.rzi.s32.f32", "cvt.rn.f32.u32 %f1, %r10;\nsub.f32 %f2, %f1, 0f3FC00000;\ncvt.rzi.s32.f32 %r1, %f2;\ncvt.s64.s32 %rd1, %r1;",
     {M1, 0, 0, 1}},
    {"cvt.rni.s32.f32", "cvt.rn.f32.u32 %f1, %r10;\nsub.f32 %f2, %f1, 0f3FC00000;\ncvt.rni.s32.f32 %r1, %f2;\ncvt.s64.s32 %rd1, %r1;",
     {M2, 0, 0, 2}},
    {"cvt.f64.f32", "cvt.rn.f32.u32 %f1, %r10;\nadd.f32 %f2, %f1, 0f3F000000;\ncvt.f64.f32 %fd1, %f2;\nmov.b64 %rd1, %fd1;",
     {0x3FE0000000000000ull, 0x3FF8000000000000ull, 0x4004000000000000ull}},
    {"cvt.rzi.u32.f32 (saturates)", "cvt.rn.f32.u32 %f1, %r10;\nsub.f32 %f2, %f1, 0f40000000;\ncvt.rzi.u32.f32 %r1, %f2;\ncvt.u64.u32 %rd1, %r1;",
     {0, 0, 0, 1}},
    // ---- comparisons and selection
    {"setp+selp", "setp.lt.s32 %p1, %r10, 2;\nselp.u32 %r1, 10, 20, %p1;\ncvt.u64.u32 %rd1, %r1;", {10, 10, 20, 20}},
    {"setp.and", "setp.ne.s32 %p2, %r10, 0;\nsetp.lt.and.s32 %p1, %r10, 3, %p2;\nselp.u32 %r1, 1, 0, %p1;\ncvt.u64.u32 %rd1, %r1;",
     {0, 1, 1, 0}},
    {"setp.hi (unsigned)", "sub.s32 %r2, %r10, 2;\nsetp.hi.u32 %p1, %r2, 5;\nselp.u32 %r1, 1, 0, %p1;\ncvt.u64.u32 %rd1, %r1;",
     {1, 1, 0, 0}},
    {"setp.f32", "cvt.rn.f32.u32 %f1, %r10;\nsetp.ge.f32 %p1, %f1, 0f40000000;\nselp.u64 %rd1, 7, 9, %p1;", {9, 9, 7, 7}},
    {"pred logic", "setp.eq.s32 %p1, %r10, 1;\nsetp.eq.s32 %p2, %r10, 2;\nor.pred %p3, %p1, %p2;\nnot.pred %p4, %p3;\nselp.u64 %rd1, 1, 0, %p4;",
     {1, 0, 0, 1}},
    {"guard @!%p", "setp.eq.s32 %p1, %r10, 1;\n@!%p1 mov.u64 %rd1, 5;", {5, 0, 5, 5}},
    // ---- moves, special registers, addresses
    {"mov special", "mov.u32 %r1, %laneid;\nmov.u32 %r2, %ntid.x;\nmad.lo.s32 %r3, %r2, 100, %r1;\ncvt.u64.u32 %rd1, %r3;",
     {3200, 3201, 3202}},
    {"lanemask_lt", "mov.u32 %r1, %lanemask_lt;\ncvt.u64.u32 %rd1, %r1;", {0, 1, 3, 7}},
    // %clock64: the launch's warp instructions so far (no time passes): two readings two apart
    {"clock64", "mov.u64 %rd2, %clock64;\nadd.u32 %r1, %r10, 1;\nmov.u64 %rd3, %clock64;\nsub.s64 %rd1, %rd3, %rd2;", {2, 2, 2}},
    {"nanosleep", "nanosleep.u32 100;\nmov.u64 %rd1, 4;", {4, 4}},
    // ---- half precision conversions; a line of several statements in braces (cuda_fp16.hpp's
    // inline asm): half 0x3c00 + 0x400 t is 2^t, whose float is 0x3f800000 + t << 23
    {"cvt.f32.f16 in braces", "shl.b32 %r1, %r10, 10;\nadd.s32 %r1, %r1, 15360;\ncvt.u16.u32 %rs1, %r1;\n{  cvt.f32.f16 %f1, %rs1;}\n"
     "mov.b32 %r2, %f1;\ncvt.u64.u32 %rd1, %r2;", {0x3f800000, 0x40000000, 0x40800000, 0x41000000}},
    // t + 0.33333334 to the nearest half: 0x3555 (0.33325), 0x3d55 (1 + 341/1024), 0x40ab (2 (1 + 171/1024))
    {"cvt.rn.f16.f32", "cvt.rn.f32.u32 %f1, %r10;\nadd.f32 %f1, %f1, 0f3EAAAAAB;\ncvt.rn.f16.f32 %rs1, %f1;\ncvt.u64.u16 %rd1, %rs1;",
     {0x3555, 0x3d55, 0x40ab}},
    {"mov pack", "mov.u32 %r11, 1;\nmov.b64 %rd1, {%r10, %r11};", {1ull << 32, (1ull << 32) + 1}},
    {"mov unpack", "mov.u64 %rd2, 0x0000000500000009;\nmov.b64 {%r1, %r2}, %rd2;\nadd.s32 %r3, %r1, %r2;\ncvt.u64.u32 %rd1, %r3;",
     {14, 14}},
    {"shared address", "mov.u32 %r1, buf;\ncvt.u64.u32 %rd1, %r1;", {0x400, 0x400}},
    {"cvta shared", "mov.u64 %rd2, buf;\ncvta.shared.u64 %rd3, %rd2;\ncvta.to.shared.u64 %rd1, %rd3;", {0x400}},
    // bar.red over a block of 64 (__syncthreads_or/_and/_count): thread 37 alone, all but thread 63, threads 0-4
    {"bar.red.or.pred", "setp.eq.u32 %p1, %r10, 37;\nbar.red.or.pred %p2, 0, %p1;\nselp.u64 %rd1, 1, 0, %p2;", {1, 1, 1}, 64},
    {"bar.red.and.pred", "setp.lt.u32 %p1, %r10, 63;\nbar.red.and.pred %p2, 0, %p1;\nselp.u64 %rd1, 1, 0, %p2;", {0, 0, 0}, 64},
    {"bar.red.popc.u32 of !p", "setp.lt.u32 %p1, %r10, 5;\nbar.red.popc.u32 %r1, 0, !%p1;\nbar.red.popc.u32 %r2, 0, %p1;\n"
     "mad.lo.s32 %r3, %r1, 100, %r2;\ncvt.u64.u32 %rd1, %r3;", {5905, 5905, 5905}, 64},
    {"multi-warp tid", "mov.u32 %r1, %warpid;\ncvt.u64.u32 %rd1, %r1;", {0, 0}, 64},
    // ---- control flow: divergence and reconvergence
    {"if/else", "setp.lt.u32 %p1, %r10, 2;\n@%p1 bra $L1;\nmov.u32 %r1, 200;\nbra.uni $L2;\n$L1:\nmov.u32 %r1, 100;\n$L2:\nadd.u32 %r1, %r1, 1;\ncvt.u64.u32 %rd1, %r1;",
     {101, 101, 201, 201}},
    {"loop per lane", "mov.u32 %r1, 0;\nmov.u32 %r2, 0;\n$L1:\nsetp.gt.u32 %p1, %r2, %r10;\n@%p1 bra $L2;\nadd.u32 %r1, %r1, %r2;\nadd.u32 %r2, %r2, 1;\nbra.uni $L1;\n$L2:\ncvt.u64.u32 %rd1, %r1;",
     {0, 1, 3, 6, 10}},
    {"nested if", "setp.lt.u32 %p1, %r10, 4;\n@!%p1 bra $L3;\nsetp.lt.u32 %p2, %r10, 2;\n@%p2 bra $L1;\nmov.u32 %r1, 20;\nbra.uni $L2;\n$L1:\nmov.u32 %r1, 10;\n$L2:\nadd.u32 %r1, %r1, 1;\nbra.uni $L4;\n$L3:\nmov.u32 %r1, 30;\n$L4:\ncvt.u64.u32 %rd1, %r1;",
     {11, 11, 21, 21, 30}},
    {"ret early", "mov.u64 %rd1, 9;\nsetp.ge.u32 %p1, %r10, 2;\n@%p1 ret;", {9, 9, 0, 0}},
    // ---- memory: shared (with barriers), global, params, vectors, widths
    {"shared st/ld", "shl.b32 %r2, %r10, 2;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\nst.shared.u32 [%r4], %r10;\nbar.sync 0;\nsub.s32 %r5, 31, %r10;\nshl.b32 %r6, %r5, 2;\nadd.s32 %r7, %r3, %r6;\nld.shared.u32 %r1, [%r7];\ncvt.u64.u32 %rd1, %r1;",
     {31, 30, 29, 28}},
    {"bar.sync across warps", "shl.b32 %r2, %r10, 2;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\nst.shared.u32 [%r4], %r10;\nbar.sync 0;\nadd.s32 %r5, %r10, 32;\nand.b32 %r5, %r5, 63;\nshl.b32 %r6, %r5, 2;\nadd.s32 %r7, %r3, %r6;\nld.shared.u32 %r1, [%r7];\ncvt.u64.u32 %rd1, %r1;",
     {32, 33, 34}, 64},
    {"ld/st.v2", "shl.b32 %r2, %r10, 3;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\nadd.s32 %r11, %r10, 100;\nst.shared.v2.u32 [%r4], {%r10, %r11};\nld.shared.v2.u32 {%r5, %r6}, [%r4];\nmul.lo.s32 %r1, %r6, 1000;\nadd.s32 %r1, %r1, %r5;\ncvt.u64.u32 %rd1, %r1;",
     {100000, 101001, 102002}},
    {"ld.v4 / st.v4", "shl.b32 %r2, %r10, 4;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\nmov.u32 %r11, 1;\nmov.u32 %r12, 2;\nmov.u32 %r13, 3;\nst.shared.v4.u32 [%r4], {%r10, %r11, %r12, %r13};\nld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%r4+0];\nadd.s32 %r1, %r5, %r8;\ncvt.u64.u32 %rd1, %r1;",
     {3, 4, 5}},
    {"ld.s8 sign", "mov.u32 %r3, buf;\nst.shared.u8 [%r3+5], 250;\nld.shared.s8 %rs1, [%r3+5];\ncvt.s64.s16 %rd1, %rs1;", {~5ull, ~5ull}},
    {"ld.volatile.shared", "mov.u32 %r3, buf;\nst.volatile.shared.u32 [%r3+64], 77;\nld.volatile.shared.u32 %r1, [%r3+64];\ncvt.u64.u32 %rd1, %r1;", {77, 77}},
    {"ld.global", "cvta.to.global.u64 %rd2, %rd13;\nld.global.u64 %rd1, [%rd2+8];", {5, 5}},
    {"generic ld to global", "ld.u64 %rd1, [%rd13+8];", {5, 5}},
    {"ld.param", "ld.param.u64 %rd2, [t_param_1];\nsub.s64 %rd1, %rd2, %rd13;", {0, 0}},
};

class Family : public ::testing::TestWithParam<Case> {};

TEST_P(Family, GivesTheHandComputedResult) {
  const Case& c = GetParam();
  std::vector<std::uint64_t> in(64, 0);
  in[1] = 5;
  const BodyRun r = run_body(c.body, c.threads, 1'000'000, in);
  ASSERT_TRUE(r.result.ok()) << c.family << ": " << r.result.message;
  for (std::size_t lane = 0; lane < c.lanes.size(); ++lane)
    EXPECT_EQ(r.out[lane], c.lanes[lane]) << c.family << ", lane " << lane << "\n" << c.body;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.family; }  // a stable test name in ctest

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  std::string n = std::to_string(info.index) + "_";
  for (const char* p = info.param.family; *p; ++p) n += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Cases, Family, ::testing::ValuesIn(kCases), name_of);

}  // namespace
}  // namespace banklab::emu::test
