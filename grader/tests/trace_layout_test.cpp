// grader/judge/trace_layout.cpp over hand-made trace records (what the tracer gives the judge: one
// record per distinct warp instruction, its kernel, source line, lanes' offsets and count): every
// traced shared-memory instruction must touch the addresses the description's accesses give
// through the student's own access functions. No GPU: the records are written here, in the shapes
// lab 04's kernels make (a 32 x 32 float tile, stored by rows and read by columns).
#include "trace_layout.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "grader/context.hpp"
#include "grader/generated_tests.hpp"

namespace {

using banklab::Op;
using Index = std::function<int(int row, int col)>;  // a tile_index(): float (row, col) -> word

Index padded(int pad) {
  return [pad](int r, int c) { return r * (32 + pad) + c; };
}
Index xor_swizzled(int key) {  // lab 05's kind: column c of row r at c ^ (key * r % 32)
  return [key](int r, int c) { return r * 32 + (c ^ (key * r % 32)); };
}

// One unit of work (a 32 x 32 tile, one warp of 32 x 1 threads, 32 steps) as the probe describes
// it through `index`: step s stores row s (lane = column) and loads column s (lane = row).
std::vector<grader::Instruction> described(const Index& index) {
  std::vector<grader::Instruction> d;
  for (int s = 0; s < 32; ++s)
    d.push_back(grader::instruction("warp 0, j = " + std::to_string(s) + ": store tile[" + std::to_string(s) +
                                        "][lane] (row write)",
                                    Op::Store, 4, [&](int lane) { return 4 * index(s, lane); }));
  for (int s = 0; s < 32; ++s)
    d.push_back(grader::instruction("warp 0, j = " + std::to_string(s) + ": load tile[lane][" + std::to_string(s) +
                                        "] (column read)",
                                    Op::Load, 4, [&](int lane) { return 4 * index(lane, s); }));
  return d;
}

banklab::trace::Instruction record(Op op, int line, const std::function<long long(int lane)>& offset,
                                   std::uint64_t count = 24, int width = 4) {
  banklab::trace::Instruction in;
  in.kernel = "_ZN5lab0416transpose_paddedEPfPKfii";
  in.file = "/work/build/kernel.cu";
  in.line = line;
  in.count = count;
  in.access.op = op;
  in.access.width = width;
  in.access.mask = 0xffffffffu;
  for (int l = 0; l < 32; ++l) in.access.offset[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(offset(l));
  return in;
}

// A traced launch of the kernel that stores tile[index_st(s, lane)] and loads tile[index_ld(lane, s)]
// for every step s (lines 36 and 47), its tile starting `base` bytes into shared memory.
std::vector<banklab::trace::Instruction> traced(const Index& stores, const Index& loads, int base = 0) {
  std::vector<banklab::trace::Instruction> t;
  for (int s = 0; s < 32; ++s) t.push_back(record(Op::Store, 36, [&](int l) { return base + 4 * stores(s, l); }));
  for (int s = 0; s < 32; ++s) t.push_back(record(Op::Load, 47, [&](int l) { return base + 4 * loads(l, s); }));
  return t;
}

std::string judge(const std::vector<banklab::trace::Instruction>& ins, const std::vector<grader::Instruction>& layout,
                  const std::vector<grader::gpu::RequiredKind>& required = {}) {
  return grader::gpu::accesses_off_the_layout(ins, layout, required, {"tile_index"}, "kernel.cu");
}

TEST(TraceLayout, TheDeclaredLayoutPassesWhereverItsTileStarts) {
  const auto layout = described(padded(1));
  EXPECT_EQ(judge(traced(padded(1), padded(1)), layout), "");
  EXPECT_EQ(judge(traced(padded(1), padded(1), 4224), layout), "") << "a second array before the tile moves it";
}

TEST(TraceLayout, ValidAlternativesPassAgainstTheirOwnDescription) {
  // Another padding, another XOR key: the description is the student's own access functions.
  for (const Index& index : {padded(3), padded(5), xor_swizzled(1), xor_swizzled(3)})
    EXPECT_EQ(judge(traced(index, index), described(index)), "");
}

TEST(TraceLayout, WhichLaneTakesWhichAddressIsTheKernelsChoice) {
  // Lane l loading row 31 - l: the same 32 addresses, the same banks.
  auto t = traced(padded(1), padded(1));
  for (auto& in : t)
    if (in.access.op == Op::Load) std::reverse(in.access.offset.begin(), in.access.offset.end());
  EXPECT_EQ(judge(t, described(padded(1))), "");
}

TEST(TraceLayout, StagingInAnIdentityLayoutFailsWithItsLineAndTheAccessItShouldBe) {
  // Held out on an H200: the padded tile_index and the right answers, but each lane stores and
  // reloads the same word (rows, 1 wavefront each) and the kernel transposes with shuffles.
  const std::string m = judge(traced(padded(1), [](int lane, int s) { return padded(1)(s, lane); }),
                              described(padded(1)));
  EXPECT_NE(m.find("768 of the 768 traced load (ld) warp instructions (on 1 source line)"), std::string::npos) << m;
  EXPECT_NE(m.find("at kernel.cu:47 (_ZN5lab0416transpose_paddedEPfPKfii), 4 bytes a lane: lanes 0-7 at byte "
                   "offsets 0 4 8 12 16 20 24 28"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("\"warp 0, j = 0: load tile[lane][0] (column read)\" is tile_index()'s: lanes 0-7 at byte offsets "
                   "0 132 264 396 528 660 792 924"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("  Try: index every load from the tile with tile_index()"), std::string::npos) << m;
  EXPECT_EQ(m.find("(st)"), std::string::npos) << "the stores are the declared layout's: only the loads are named\n" << m;
}

TEST(TraceLayout, AnotherLayoutThanTheDeclaredOneFails) {
  // The kernel indexes the tile unpadded, pads by 3 or swizzles while tile_index pads by 1: its
  // column reads are at other addresses. (A row write of any of them is a row's 32 words, the
  // same set as the declared one's: only the loads are named.)
  for (const Index& other : {padded(0), padded(3), xor_swizzled(1)}) {
    const std::string m = judge(traced(other, other), described(padded(1)));
    EXPECT_NE(m.find(" of the 768 traced load (ld) warp instructions"), std::string::npos) << m;
    EXPECT_EQ(m.find("(st)"), std::string::npos) << m;
  }
  // (Column 0 of the XOR-1 swizzle is row r's word 33 r, as padded by 1: 744 of its 768 loads are named.)
  EXPECT_NE(judge(traced(xor_swizzled(1), xor_swizzled(1)), described(padded(1))).find("  744 of the 768 traced load"),
            std::string::npos);
  // Stores of another shape than a row are named: a column written (the transpose done on the way in).
  const std::string m = judge(traced([](int s, int lane) { return padded(1)(lane, s); }, padded(1)), described(padded(1)));
  EXPECT_NE(m.find("768 of the 768 traced store (st) warp instructions (on 1 source line)"), std::string::npos) << m;
  EXPECT_NE(m.find("at kernel.cu:36"), std::string::npos) << m;
  EXPECT_NE(m.find("  Try: index every store to the tile with tile_index()"), std::string::npos) << m;
}

TEST(TraceLayout, TheMessageIsTheSameWhateverOrderTheWarpsRanIn) {
  auto t = traced(padded(0), padded(0));
  const std::string m = judge(t, described(padded(1)));
  std::reverse(t.begin(), t.end());
  EXPECT_EQ(judge(t, described(padded(1))), m);
}

TEST(TraceLayout, ABroadcastIsJudgedWithItsRepeats) {
  // Lab 02's kind: all 32 lanes load one coefficient. Two words (16 lanes each) is another access.
  const std::vector<grader::Instruction> layout{
      grader::instruction("term 0: load coefficient 0 of channel_of(lane)", Op::Load, 4, [](int) { return 8; })};
  EXPECT_EQ(judge({record(Op::Load, 20, [](int) { return 1032; })}, layout), "");
  EXPECT_NE(judge({record(Op::Load, 20, [](int l) { return l < 16 ? 1032 : 1036; })}, layout), "");
}

TEST(TraceLayout, WidthIsPartOfTheAccess) {
  // float4 chunks at 16 * lane against floats at 4 * lane: other widths, other instructions.
  const std::vector<grader::Instruction> layout{
      grader::instruction("row write", Op::Store, 16, [](int l) { return 16 * l; })};
  EXPECT_EQ(judge({record(Op::Store, 30, [](int l) { return 16 * l; }, 1, 16)}, layout), "");
  EXPECT_NE(judge({record(Op::Store, 30, [](int l) { return 16 * l; }, 1, 8)}, layout), "");
}

TEST(TraceLayout, OnlyTheOpsTheStudentsLayoutDescribesAreJudged) {
  // A grader-made access (lab 02's staging store) is counted, not a layout: work_minimum leaves it out.
  const auto counted = grader::gpu::work_minimum(
      {grader::instruction("staging store", Op::Store, 4, [](int l) { return 4 * l; })}, 8, grader::gpu::Layout::Counted);
  EXPECT_TRUE(counted.layout.empty());
  const auto students = grader::gpu::work_minimum(described(padded(1)), 8);
  EXPECT_EQ(students.layout.size(), 64u);
  EXPECT_EQ((students + counted).layout.size(), 64u);
  // Stores nobody described are not judged here (the per-kind counts judge them).
  std::vector<grader::Instruction> loads_only = described(padded(1));
  loads_only.erase(std::remove_if(loads_only.begin(), loads_only.end(),
                                  [](const grader::Instruction& i) { return i.access.op == Op::Store; }),
                   loads_only.end());
  EXPECT_EQ(judge(traced(padded(7), padded(1)), loads_only), "");
}

TEST(TraceLayout, RequiredKindsKeepTheirOwnCheck) {
  // ldmatrix: each 8 x 8 matrix's rows (lanes 8m .. 8m + 7) against the description's, in order.
  const auto rows = [](int first) {
    return grader::instruction("a_ldmatrix", Op::LoadMatrix, 16, [first](int l) { return (first + l) * 128; });
  };
  grader::gpu::RequiredKind k{Op::LoadMatrix, 1, "a_ldmatrix", "Try: load the fragment's rows.", {rows(0).access}};
  const std::vector<grader::Instruction> layout{rows(0)};
  const auto ldsm = [](int stride) { return record(Op::LoadMatrix, 60, [=](int l) { return 2048 + l * stride; }, 4, 16); };
  EXPECT_EQ(grader::gpu::matrices_not_described({ldsm(128)}, {k}, "kernel.cu"), "");
  const std::string m = grader::gpu::matrices_not_described({ldsm(16)}, {k}, "kernel.cu");
  EXPECT_NE(m.find("4 of the 4 traced ldmatrix (ldsm) warp instructions read a matrix whose row addresses are none of "
                   "the description's"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("at kernel.cu:60"), std::string::npos) << m;
  // The plain check leaves a required kind to that one (one message per mistake).
  EXPECT_EQ(judge({ldsm(16)}, layout, {k}), "");
}

// Which predictions ask about an access (grader::asked_about, the one rule every message follows):
// the `asked` of each LabNNLayout test (the graded variant's) one of whose warp instructions, as the
// student's access functions give them, has the access's pattern. A planted lab 98: its column
// reads (an unpadded tile's) asked by two predictions, by one in variants >= 1; its row writes by none.
std::vector<grader::Instruction> column_reads(const std::vector<int>&) {
  std::vector<grader::Instruction> d = described(padded(0));
  d.erase(d.begin(), d.begin() + 32);
  return d;
}
std::vector<grader::Instruction> row_writes(const std::vector<int>&) {
  std::vector<grader::Instruction> d = described(padded(0));
  d.resize(32);
  return d;
}
const grader::AtMinimum kPlantedLayout[] = {
    {"ColumnReadsAreConflictFree", column_reads, {}, "", "kUnpadded and kPadded", "kPadded"},
    {"RowWritesAreConflictFree", row_writes, {}, "", "", nullptr},
    {nullptr, nullptr, {}, nullptr, nullptr, nullptr},
};

TEST(AskedAbout, APatternOfAnAskedInstructionNamesItsPredictionsAndNoOtherDoes) {
  grader::register_layout_tests("98", kPlantedLayout);
  grader::Context c;
  c.lab = "98";
  grader::set_context(c);
  unsetenv("BANKLAB_VARIANT");
  // Column 5 of the unpadded tile, at another base (another tile, 4096 bytes on): asked.
  const auto column = [](int width, std::uint32_t base, std::uint32_t mask = 0xffffffffu) {
    return grader::instruction("column", Op::Load, width, [=](int lane) { return base + lane * 32 * width + 5 * width; },
                               mask).access;
  };
  EXPECT_EQ(grader::asked_about(column(4, 0)), "kUnpadded and kPadded");
  EXPECT_EQ(grader::asked_about(column(4, 4096)), "kUnpadded and kPadded");
  // Not that pattern: half the lanes, another width, a base that is no multiple of the width, a row write.
  EXPECT_EQ(grader::asked_about(column(4, 0, 0x0000ffffu)), "");
  EXPECT_EQ(grader::asked_about(column(8, 0)), "");
  EXPECT_EQ(grader::asked_about(column(4, 2)), "");
  EXPECT_EQ(grader::asked_about(row_writes({})[3].access), "");
  // A padded tile's column read is not the unpadded one the predictions ask about.
  EXPECT_EQ(grader::asked_about(described(padded(1))[40].access), "");
  // Variant 1: its own `asked` ([variants.asked]).
  setenv("BANKLAB_VARIANT", "1", 1);
  EXPECT_EQ(grader::asked_about(column(4, 0)), "kPadded");
  unsetenv("BANKLAB_VARIANT");
  EXPECT_EQ(grader::merged_names("kA", "kB and kA"), "kA and kB");
  EXPECT_EQ(grader::merged_names("", ""), "");
}

}  // namespace
