// The warp-wide, matrix and atomic families, cases as data (as families_test.cpp): a few lines of
// PTX (lane t has %r10 = t, leaves its result in %rd1; %rd13 is a global buffer of 64 words, word 1
// = 5 unless the case gives its words) and chosen lanes' results, worked out by hand from the PTX
// ISA 9.0 sections each group names. Then the shared-memory records these families leave (op,
// width, active mask, count), as the hardware tracer records them, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "emu_harness.hpp"

namespace banklab::emu::test {
namespace {

constexpr std::uint64_t M1 = ~0ull, M2 = ~1ull;

// Half bits of the whole number n (0 <= n < 2048): the words of the mma cases.
std::uint64_t half_of(unsigned n) {
  if (n == 0) return 0;
  int e = 31 - __builtin_clz(n);
  return static_cast<std::uint64_t>(((e + 15) << 10) | ((n << (10 - e)) & 1023u));
}
// Word t = the half of t in both halves (a lane's f16x2 register).
std::vector<std::uint64_t> halves_of_lanes() {
  std::vector<std::uint64_t> v(64, 0);
  for (unsigned t = 0; t < 32; ++t) v[t] = half_of(t) | half_of(t) << 16;
  return v;
}

struct Case {
  const char* family;
  const char* body;
  std::vector<std::pair<int, std::uint64_t>> lanes;  // (lane, expected out[lane])
  std::vector<std::uint64_t> in = {};                 // the global words (empty: word 1 = 5)
};

// Row t of `buf` (16 bytes at buf + 16 t) holds the halfwords 8 t .. 8 t + 7; %r4 = its address.
#define FILL_ROWS                                                                            \
  "shl.b32 %r2, %r10, 4;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\nshl.b32 %r5, %r10, 3;\n" \
  "mad.lo.s32 %r6, %r5, 65537, 65536;\nadd.s32 %r7, %r6, 131074;\nadd.s32 %r8, %r7, 131074;\n" \
  "add.s32 %r9, %r8, 131074;\nst.shared.v4.u32 [%r4], {%r6, %r7, %r8, %r9};\n"
// Lane t's registers for mma: %r1 = its global word t (the half of t, twice), %r2 = 1.0 twice.
#define LANE_HALVES \
  "mul.wide.u32 %rd2, %r10, 8;\nadd.s64 %rd3, %rd13, %rd2;\nld.global.u32 %r1, [%rd3];\nmov.u32 %r2, 0x3C003C00;\nmov.u32 %r3, 0;\n"
#define D01_OUT "mov.b32 %r11, %f1;\nmov.b32 %r12, %f2;\nmov.b64 %rd1, {%r11, %r12};"

const std::vector<Case> kCases = {
    // ---- shfl.sync (Data Movement and Conversion Instructions: shfl.sync): c[4:0] the clamp,
    // c[12:8] the segment mask; a source outside the segment gives the lane its own value, p = 0.
    {"shfl.down 1", "shfl.sync.down.b32 %r1|%p1, %r10, 1, 31, -1;\nselp.u32 %r2, 1000, 0, %p1;\nadd.s32 %r3, %r1, %r2;\ncvt.u64.u32 %rd1, %r3;",
     {{0, 1001}, {1, 1002}, {30, 1031}, {31, 31}}},
    {"shfl.up 2", "shfl.sync.up.b32 %r1|%p1, %r10, 2, 0, -1;\nselp.u32 %r2, 1000, 0, %p1;\nadd.s32 %r3, %r1, %r2;\ncvt.u64.u32 %rd1, %r3;",
     {{0, 0}, {1, 1}, {2, 1000}, {5, 1003}, {31, 1029}}},
    {"shfl.bfly 3", "shfl.sync.bfly.b32 %r1, %r10, 3, 31, -1;\ncvt.u64.u32 %rd1, %r1;", {{0, 3}, {1, 2}, {2, 1}, {3, 0}, {4, 7}, {31, 28}}},
    {"shfl.idx, segments of 8", "add.s32 %r2, %r10, 100;\nshfl.sync.idx.b32 %r1, %r2, 2, 6175, -1;\ncvt.u64.u32 %rd1, %r1;",
     {{0, 102}, {7, 102}, {13, 110}, {31, 126}}},  // c = 0x181f: segment mask 24, clamp 31
    {"shfl.down 4, width 16", "shfl.sync.down.b32 %r1|%p1, %r10, 4, 4127, -1;\nselp.u32 %r2, 1000, 0, %p1;\nadd.s32 %r3, %r1, %r2;\ncvt.u64.u32 %rd1, %r3;",
     {{11, 1015}, {12, 12}, {27, 1031}, {28, 28}}},  // c = 0x101f: segment mask 16
    {"shfl.idx takes b's low 5 bits", "add.s32 %r2, %r10, 100;\nshfl.sync.idx.b32 %r1, %r2, 40, 31, -1;\ncvt.u64.u32 %rd1, %r1;",
     {{0, 108}, {31, 108}}},
    // ---- vote.sync (Parallel Synchronization and Communication Instructions: vote.sync)
    {"vote.ballot", "setp.lt.u32 %p1, %r10, 3;\nvote.sync.ballot.b32 %r1, %p1, -1;\ncvt.u64.u32 %rd1, %r1;", {{0, 7}, {31, 7}}},
    {"vote.all/any/uni", "setp.lt.u32 %p1, %r10, 31;\nvote.sync.all.pred %p2, %p1, -1;\nvote.sync.any.pred %p3, %p1, -1;\n"
     "vote.sync.uni.pred %p4, %p1, -1;\nvote.sync.any.pred %p5, !%p1, -1;\nselp.u64 %rd2, 1, 0, %p2;\nselp.u64 %rd3, 2, 0, %p3;\n"
     "selp.u64 %rd4, 4, 0, %p4;\nselp.u64 %rd5, 8, 0, %p5;\nadd.s64 %rd1, %rd2, %rd3;\nadd.s64 %rd1, %rd1, %rd4;\nadd.s64 %rd1, %rd1, %rd5;",
     {{0, 10}, {31, 10}}},  // all false, any true, uni false, any of the negation true
    {"vote.all/uni of all lanes", "setp.lt.u32 %p1, %r10, 40;\nvote.sync.all.pred %p2, %p1, -1;\nvote.sync.uni.pred %p4, %p1, -1;\n"
     "selp.u64 %rd2, 1, 0, %p2;\nselp.u64 %rd4, 4, 0, %p4;\nadd.s64 %rd1, %rd2, %rd4;", {{0, 5}, {17, 5}}},
    {"vote in one side of a branch", "setp.lt.u32 %p1, %r10, 16;\n@!%p1 bra $L1;\nsetp.eq.u32 %p2, %r10, 3;\n"
     "vote.sync.ballot.b32 %r1, %p2, 65535;\ncvt.u64.u32 %rd1, %r1;\n$L1:", {{0, 8}, {15, 8}, {16, 0}, {31, 0}}},
    // ---- activemask, match.sync, redux.sync (same chapter)
    {"activemask", "setp.lt.u32 %p1, %r10, 5;\n@!%p1 bra $L1;\nactivemask.b32 %r1;\ncvt.u64.u32 %rd1, %r1;\n$L1:", {{0, 31}, {4, 31}, {5, 0}}},
    {"match.any", "shr.u32 %r2, %r10, 2;\nmatch.any.sync.b32 %r1, %r2, -1;\ncvt.u64.u32 %rd1, %r1;",
     {{0, 0xf}, {5, 0xf0}, {31, 0xf0000000ull}}},
    {"match.all, equal", "and.b32 %r2, %r10, 0;\nmatch.all.sync.b32 %r1|%p1, %r2, -1;\nselp.u32 %r3, 1, 0, %p1;\nmov.b64 %rd1, {%r1, %r3};",
     {{0, 0x1ffffffffull}, {31, 0x1ffffffffull}}},
    {"match.all, different", "match.all.sync.b32 %r1|%p1, %r10, -1;\nselp.u32 %r3, 1, 0, %p1;\nmov.b64 %rd1, {%r1, %r3};", {{0, 0}, {31, 0}}},
    {"redux.add", "redux.sync.add.u32 %r1, %r10, -1;\ncvt.u64.u32 %rd1, %r1;", {{0, 496}, {31, 496}}},
    {"redux.min.s32", "sub.s32 %r2, %r10, 5;\nredux.sync.min.s32 %r1, %r2, -1;\ncvt.s64.s32 %rd1, %r1;", {{0, ~4ull}, {9, ~4ull}}},
    {"redux.max u32/s32", "sub.s32 %r2, %r10, 5;\nredux.sync.max.u32 %r1, %r2, -1;\nredux.sync.max.s32 %r3, %r2, -1;\n"
     "mov.b64 %rd1, {%r3, %r1};", {{0, 0xffffffff0000001aull}}},
    {"redux.and/or/xor", "or.b32 %r2, %r10, 240;\nredux.sync.and.b32 %r1, %r2, -1;\nredux.sync.or.b32 %r3, %r10, -1;\n"
     "redux.sync.xor.b32 %r4, %r10, -1;\nadd.s32 %r1, %r1, %r3;\nadd.s32 %r1, %r1, %r4;\ncvt.u64.u32 %rd1, %r1;", {{0, 271}}},  // 240 + 31 + 0
    // ---- atom, red (Parallel Synchronization and Communication Instructions: atom, red), global
    // word 2 of the buffer (starts at 0) unless said; the lanes in lane order.
    {"atom.global.add", "atom.global.add.u32 %r1, [%rd13+16], 1;\ncvt.u64.u32 %rd1, %r1;", {{0, 0}, {5, 5}, {31, 31}}},
    {"atom.global.exch", "atom.global.exch.b32 %r1, [%rd13+16], %r10;\ncvt.u64.u32 %rd1, %r1;", {{0, 0}, {1, 0}, {2, 1}, {31, 30}}},
    {"atom.global.cas", "add.s32 %r11, %r10, 1;\natom.global.cas.b32 %r1, [%rd13+16], 0, %r11;\ncvt.u64.u32 %rd1, %r1;", {{0, 0}, {1, 1}, {31, 1}}},
    {"atom.global.inc", "atom.global.inc.u32 %r1, [%rd13+16], 9;\ncvt.u64.u32 %rd1, %r1;", {{0, 0}, {9, 9}, {10, 0}, {31, 1}}},
    {"atom.global.dec", "atom.global.dec.u32 %r1, [%rd13+16], 3;\ncvt.u64.u32 %rd1, %r1;", {{0, 0}, {1, 3}, {2, 2}, {3, 1}, {4, 0}, {5, 3}}},
    {"atom.global.min.s32", "sub.s32 %r2, 10, %r10;\natom.global.min.s32 %r1, [%rd13+16], %r2;\ncvt.s64.s32 %rd1, %r1;",
     {{0, 0}, {11, 0}, {12, M1}, {13, M2}}},
    {"atom.global.max.u64", "cvt.u64.u32 %rd2, %r10;\natom.global.max.u64 %rd1, [%rd13+8], %rd2;", {{0, 5}, {6, 5}, {7, 6}, {8, 7}}},
    {"atom.global.add.f32", "atom.global.add.f32 %f1, [%rd13+16], 0f3F000000;\nmov.b32 %r1, %f1;\ncvt.u64.u32 %rd1, %r1;",
     {{0, 0}, {1, 0x3F000000}, {2, 0x3F800000}, {3, 0x3FC00000}}},
    {"atom generic to global", "atom.add.u64 %rd1, [%rd13+8], 2;", {{0, 5}, {1, 7}, {31, 67}}},
    {"red.global.add", "red.global.add.u32 [%rd13+16], %r10;\nbar.sync 0;\nld.global.u32 %r1, [%rd13+16];\ncvt.u64.u32 %rd1, %r1;", {{0, 496}, {31, 496}}},
    // shared
    {"atom.shared.add", "mov.u32 %r3, buf;\natom.shared.add.u32 %r1, [%r3], 3;\ncvt.u64.u32 %rd1, %r1;", {{0, 0}, {1, 3}, {31, 93}}},
    {"atom.shared.add.f64 (a loop)", "mov.u32 %r3, buf;\natom.shared.add.f64 %fd1, [%r3+8], 0d3FF0000000000000;\nmov.b64 %rd1, %fd1;",
     {{0, 0}, {1, 0x3FF0000000000000ull}, {2, 0x4000000000000000ull}, {3, 0x4008000000000000ull}}},
    {"red.shared.add then ld", "mov.u32 %r3, buf;\nred.shared.add.u32 [%r3], 2;\nbar.sync 0;\nld.shared.u32 %r1, [%r3];\ncvt.u64.u32 %rd1, %r1;", {{0, 64}}},
    // ---- .local memory (State Spaces: local): each thread's own bytes at the same offsets; the
    // generic window of cvta.local reaches them too.
    {".local st/ld", ".local .align 8 .b8 depot[32];\nmov.u64 %rd2, depot;\ncvt.u64.u32 %rd3, %r10;\nst.local.u64 [%rd2+8], %rd3;\n"
     "st.local.u32 [depot+4], 9;\nbar.sync 0;\nld.local.u64 %rd4, [%rd2+8];\nld.local.u32 %r1, [depot+4];\ncvt.u64.u32 %rd5, %r1;\nadd.s64 %rd1, %rd4, %rd5;",
     {{0, 9}, {1, 10}, {31, 40}}},
    {".local through cvta.local", ".local .align 8 .b8 depot[16];\nmov.u64 %rd2, depot;\ncvta.local.u64 %rd6, %rd2;\ncvt.u64.u32 %rd3, %r10;\n"
     "st.u64 [%rd6+8], %rd3;\nld.local.u64 %rd1, [%rd2+8];", {{0, 0}, {7, 7}, {31, 31}}},
    // ---- ldmatrix / stmatrix (Warp-level matrix load / store instructions): lane 8 i + r gives
    // row r of matrix i; lane t's register i holds (t / 4, 2 (t % 4)) and the next column, low first
    // (.trans: (2 (t % 4), t / 4) and the next row). Row t of buf holds halfwords 8 t .. 8 t + 7,
    // so element (i, r, c) is 64 i + 8 r + c.
    {"ldmatrix.x4", FILL_ROWS "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r11, %r12, %r13, %r14}, [%r4];\nmov.b64 %rd1, {%r11, %r14};",
     {{0, 0x00C100C000010000ull}, {5, 0x00CB00CA000B000Aull}, {31, 0x00FF00FE003F003Eull}}},
    {"ldmatrix.x4.trans", FILL_ROWS "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r11, %r12, %r13, %r14}, [%r4];\nmov.b64 %rd1, {%r11, %r14};",
     {{0, 0x00C800C000080000ull}, {5, 0x00D900D100190011ull}}},
    {"ldmatrix.x1 ignores lanes 8-31", FILL_ROWS "setp.lt.u32 %p1, %r10, 8;\nselp.u32 %r15, %r4, 1000000, %p1;\n"
     "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r11}, [%r15];\ncvt.u64.u32 %rd1, %r11;", {{5, 0x000B000A}, {31, 0x003F003E}}},
    {"ldmatrix.x2", FILL_ROWS "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r11, %r12}, [%r4];\ncvt.u64.u32 %rd1, %r12;", {{0, 0x00410040}}},
    {"stmatrix.x1", "shl.b32 %r2, %r10, 4;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\nshl.b32 %r5, %r10, 1;\n"
     "mad.lo.s32 %r6, %r5, 65537, 65536;\nstmatrix.sync.aligned.m8n8.x1.shared.b16 [%r4], {%r6};\nbar.sync 0;\n"
     "shl.b32 %r7, %r10, 1;\nadd.s32 %r8, %r3, %r7;\nld.shared.u16 %rs1, [%r8];\ncvt.u64.u16 %rd1, %rs1;", {{0, 0}, {1, 1}, {9, 9}, {31, 31}}},
    {"stmatrix.x1.trans", "shl.b32 %r2, %r10, 4;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\nshl.b32 %r5, %r10, 1;\n"
     "mad.lo.s32 %r6, %r5, 65537, 65536;\nstmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%r4], {%r6};\nbar.sync 0;\n"
     "shl.b32 %r7, %r10, 1;\nadd.s32 %r8, %r3, %r7;\nld.shared.u16 %rs1, [%r8];\ncvt.u64.u16 %rd1, %rs1;", {{0, 0}, {1, 8}, {2, 16}, {8, 1}, {9, 9}}},
    // ---- mma.sync (Matrix Fragments for mma.m16n8k16 / m16n8k8 with floating point type).
    // B's element (p, n) is held by lane 4 n + t with p in {2t, 2t+1, 2t+8, 2t+9}: with B = the
    // holder's lane number and A = 1, D's column n is 4 (16 n + 6) = 64 n + 24; lane L's d_0, d_1 are
    // columns 2 (L % 4) and 2 (L % 4) + 1.
    {"mma.m16n8k16 (B and D's columns)", LANE_HALVES "mov.f32 %f5, 0f00000000;\n"
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r2, %r2, %r2, %r2}, {%r1, %r1}, {%f5, %f5, %f5, %f5};\n" D01_OUT,
     {{0, 0x42b0000041c00000ull}, {1, 0x4358000043180000ull}}, halves_of_lanes()},
    // A's rows g (registers 0 and 2) = the holder's lane, rows g + 8 (registers 1, 3) 0; B = 1,
    // C = 0.5: D's row g is 64 g + 24 + 0.5, row g + 8 is 0.5; d_0 is row L / 4, d_2 row L / 4 + 8.
    {"mma.m16n8k16 (A and D's rows, C)", LANE_HALVES "mov.f32 %f5, 0f3F000000;\n"
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r3, %r1, %r3}, {%r2, %r2}, {%f5, %f5, %f5, %f5};\n"
     "mov.b32 %r11, %f1;\nmov.b32 %r12, %f3;\nmov.b64 %rd1, {%r11, %r12};",
     {{0, 0x3f00000041c40000ull}, {5, 0x3f00000042b10000ull}}, halves_of_lanes()},
    // k8: B's (p, n) held by lane 4 n + t for p in {2t, 2t+1}: column n of D is 2 (16 n + 6) = 32 n + 12.
    {"mma.m16n8k8", LANE_HALVES "mov.f32 %f5, 0f00000000;\n"
     "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r2, %r2}, {%r1}, {%f5, %f5, %f5, %f5};\n" D01_OUT,
     {{0, 0x4230000041400000ull}, {1, 0x42d8000042980000ull}}, halves_of_lanes()},
};

class WarpFamily : public ::testing::TestWithParam<Case> {};

TEST_P(WarpFamily, GivesTheHandComputedResult) {
  const Case& c = GetParam();
  std::vector<std::uint64_t> in = c.in;
  if (in.empty()) {
    in.assign(64, 0);
    in[1] = 5;
  }
  const BodyRun r = run_body(c.body, 32, 1'000'000, in);
  ASSERT_TRUE(r.result.ok()) << c.family << ": " << r.result.message;
  for (const auto& [lane, want] : c.lanes)
    EXPECT_EQ(r.out[static_cast<std::size_t>(lane)], want) << c.family << ", lane " << lane << "\n" << c.body;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.family; }

std::string name_of(const char* family, std::size_t index) {
  std::string n = std::to_string(index) + "_";
  for (const char* p = family; *p; ++p) n += std::isalnum(static_cast<unsigned char>(*p)) ? *p : '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Cases, WarpFamily, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return name_of(i.param.family, i.index); });

// ---- the records: what the tracer's decode() makes of them (op, width, active mask) and how
// often, as the hardware tracer records these instructions (trace/, banklab/model.hpp's ops;
// common/data/README.md for which ATOMS ptxas makes of each atomic); then the wavefronts.
struct Rec {
  Op op;
  int width;
  std::uint32_t mask;
  std::uint64_t count;
};
struct RecordCase {
  const char* name;
  const char* body;
  std::vector<Rec> records;
  long long wavefronts;
};

#define WORD_OF_LANE "shl.b32 %r2, %r10, 2;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\n"
#define DWORD_OF_LANE "shl.b32 %r2, %r10, 3;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\n"

// Pass k of a loop over lanes at one word serves one lane, the lowest left: masks ~0 << k (for 8
// bytes too: each half-warp serves its lowest lane, and of the two at one word the lower succeeds).
std::vector<Rec> loop_passes(int width, int passes) {
  std::vector<Rec> v;
  for (int k = 0; k < passes; ++k) {
    const std::uint32_t mask = ~0u << k;
    v.push_back({Op::Load, width, mask, 1});
    v.push_back({Op::AtomicCasLoop, width, mask, 1});
  }
  return v;
}

const std::vector<RecordCase> kRecords = {
    {"atom.shared.add, result used: ATOMS.ADD", WORD_OF_LANE "atom.shared.add.u32 %r1, [%r4], %r10;\ncvt.u64.u32 %rd1, %r1;",
     {{Op::Atomic, 4, ~0u, 1}}, 1},
    {"atom.shared.add of 1, result unused: ATOMS.POPC.INC", WORD_OF_LANE "atom.shared.add.u32 %r5, [%r4], 1;", {{Op::AtomicIncrement, 4, ~0u, 1}}, 1},
    {"red.shared.add of 1: ATOMS.POPC.INC", WORD_OF_LANE "red.shared.add.u32 [%r4], 1;", {{Op::AtomicIncrement, 4, ~0u, 1}}, 1},
    {"red.shared.add of a register: ATOMS.ADD", WORD_OF_LANE "red.shared.add.u32 [%r4], %r10;", {{Op::Atomic, 4, ~0u, 1}}, 1},
    {"atom.shared.cas.b32: ATOMS.CAS", WORD_OF_LANE "atom.shared.cas.b32 %r1, [%r4], 0, %r10;\ncvt.u64.u32 %rd1, %r1;", {{Op::AtomicCas, 4, ~0u, 1}}, 2},
    {"atom.shared.exch.b64: ATOMS.EXCH.64", DWORD_OF_LANE "cvt.u64.u32 %rd2, %r10;\natom.shared.exch.b64 %rd1, [%r4], %rd2;",
     {{Op::AtomicExchange, 8, ~0u, 1}}, 2},
    // A float add of every lane to one word: 32 passes, 64 wavefronts, 32 LDS (common/data/README.md,
    // atomop_n_stride0_w4_atom_addf, measured on the H200).
    {"atom.shared.add.f32 at one word: the loop, 32 passes", "mov.u32 %r3, buf;\natom.shared.add.f32 %f1, [%r3], 0f3F800000;",
     loop_passes(4, 32), 32 + 64},
    {"atom.shared.add.f32 at 32 banks: one pass", WORD_OF_LANE "atom.shared.add.f32 %f1, [%r4], 0f3F800000;", loop_passes(4, 1), 1 + 2},
    // 64 bits: half-warps; each lane at its own 8 bytes: one pass (2 wavefronts a half-warp).
    {"atom.shared.add.u64, each lane its word: one pass", DWORD_OF_LANE "atom.shared.add.u64 %rd1, [%r4], 1;", loop_passes(8, 1), 2 + 4},
    // 64 bits at one word: a pass per lane (atom_n_stride0_w8_atom); passes 0-15 have lanes in both
    // half-warps (4 wavefronts), 16-31 in one (2); each load is one broadcast wavefront.
    {"atom.shared.max.u64 at one word: 32 passes", "mov.u32 %r3, buf;\ncvt.u64.u32 %rd2, %r10;\nadd.s64 %rd2, %rd2, 1;\n"
     "atom.shared.max.u64 %rd1, [%r3], %rd2;", loop_passes(8, 32), 32 * 1 + 16 * 4 + 16 * 2},
    // A min that changes no word (the word is 0): every lane leaves the loop at its load.
    {"atom.shared.min.u64 that changes nothing: the load only", "mov.u32 %r3, buf;\ncvt.u64.u32 %rd2, %r10;\nadd.s64 %rd2, %rd2, 1;\n"
     "atom.shared.min.u64 %rd1, [%r3], %rd2;", {{Op::Load, 8, ~0u, 1}}, 1},
    {"ldmatrix.x1: 8 lanes", FILL_ROWS "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r11}, [%r4];",
     {{Op::Store, 16, ~0u, 1}, {Op::LoadMatrix, 16, 0xffu, 1}}, 4 + 1},
    {"ldmatrix.x2.trans: 16 lanes", FILL_ROWS "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r11, %r12}, [%r4];",
     {{Op::Store, 16, ~0u, 1}, {Op::LoadMatrix, 16, 0xffffu, 1}}, 4 + 2},
    {"stmatrix.x4", FILL_ROWS "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r4], {%r6, %r7, %r8, %r9};",
     {{Op::Store, 16, ~0u, 1}, {Op::StoreMatrix, 16, ~0u, 1}}, 4 + 4},
    {"global atomics are not recorded", "atom.global.add.u32 %r1, [%rd13+16], 1;\ncvt.u64.u32 %rd1, %r1;", {}, 0},
};

class FamilyRecords : public ::testing::TestWithParam<RecordCase> {};

TEST_P(FamilyRecords, AreTheTracersRecords) {
  const RecordCase& c = GetParam();
  const BodyRun r = run_body(c.body);
  ASSERT_TRUE(r.result.ok()) << c.name << ": " << r.result.message;
  std::map<std::tuple<int, int, std::uint32_t>, std::uint64_t> got, want;
  long long wavefronts = 0;
  for (const trace::Instruction& i : r.shared) {
    got[{static_cast<int>(i.access.op), i.access.width, i.access.mask}] += i.count;
    wavefronts += static_cast<long long>(trace::cost_of(i).wavefronts) * static_cast<long long>(i.count);
  }
  for (const Rec& x : c.records) want[{static_cast<int>(x.op), x.width, x.mask}] += x.count;
  EXPECT_EQ(got, want) << c.name;
  EXPECT_EQ(wavefronts, c.wavefronts) << c.name;
}

void PrintTo(const RecordCase& c, std::ostream* os) { *os << c.name; }

INSTANTIATE_TEST_SUITE_P(Cases, FamilyRecords, ::testing::ValuesIn(kRecords),
                         [](const ::testing::TestParamInfo<RecordCase>& i) { return name_of(i.param.name, i.index); });

// ---- refusals: what the emulator cannot run as the GPU would, named.
struct Refusal {
  const char* name;
  const char* body;
  const char* says;  // in the message
};
const std::vector<Refusal> kRefusals = {
    {"shfl whose mask names lanes on another path", "setp.lt.u32 %p1, %r10, 16;\n@!%p1 bra $L1;\nshfl.sync.bfly.b32 %r1, %r10, 1, 31, -1;\n$L1:",
     "member mask"},
    {"vote whose mask leaves out a lane that runs it", "vote.sync.ballot.b32 %r1, %p1, 65535;", "member mask"},
    {"ldmatrix by half a warp", "setp.lt.u32 %p1, %r10, 16;\nmov.u32 %r4, buf;\n@%p1 ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r11}, [%r4];",
     "part of a warp"},
    {"mma of bf16", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};",
     "bf16"},
    {"atom.add of f16", "mov.u32 %r3, buf;\natom.shared.add.noftz.f16 %rs1, [%r3], %rs2;", "noftz"},
    {"an atomic on local memory", "atom.local.add.u32 %r1, [%rd2], 1;", "atomic outside"},
};

class FamilyRefusal : public ::testing::TestWithParam<Refusal> {};

TEST_P(FamilyRefusal, IsNotJudgedAndSaysWhy) {
  const Refusal& c = GetParam();
  const BodyRun r = run_body(c.body);
  EXPECT_EQ(r.result.status, LaunchResult::Status::NotJudged) << c.name << ": " << r.result.message;
  EXPECT_NE(r.result.message.find(c.says), std::string::npos) << c.name << ": " << r.result.message;
}

void PrintTo(const Refusal& c, std::ostream* os) { *os << c.name; }

INSTANTIATE_TEST_SUITE_P(Cases, FamilyRefusal, ::testing::ValuesIn(kRefusals),
                         [](const ::testing::TestParamInfo<Refusal>& i) { return name_of(i.param.name, i.index); });

}  // namespace
}  // namespace banklab::emu::test
