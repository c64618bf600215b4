// The instruction kinds beyond LDS/STS: names, widths, and how the model serves them.
#include <gtest/gtest.h>

#include <iterator>

#include "banklab/model.hpp"
#include "banklab/pattern_io.hpp"
#include "test_util.hpp"

namespace banklab {
namespace {

using test::make;

TEST(Instructions, EveryOpNameParsesBackToItsOp) {
  for (Op op : kAllOps) {
    Op parsed = Op::Load;
    EXPECT_FALSE(parse_op(to_string(op), parsed).has_value()) << to_string(op);
    EXPECT_EQ(parsed, op) << to_string(op);
  }
}

TEST(Instructions, EachOpHasItsOwnLegalWidths) {
  EXPECT_EQ(legal_widths_text(Op::LoadMatrix), "16");
  EXPECT_EQ(legal_widths_text(Op::StoreMatrix), "16");
  EXPECT_EQ(legal_widths_text(Op::AsyncCopy), "4, 8, 16");
  EXPECT_EQ(legal_widths_text(Op::Atomic), "4, 8");
  EXPECT_EQ(legal_widths_text(Op::AtomicIncrement), "4");
  EXPECT_EQ(legal_widths_text(Op::AtomicCas), "4, 8");
  EXPECT_EQ(legal_widths_text(Op::AtomicExchange), "4, 8");
  EXPECT_EQ(legal_widths_text(Op::AtomicCasLoop), "4, 8");
  EXPECT_EQ(legal_widths_text(Op::Load), "1, 2, 4, 8, 16");
  WarpAccess a;
  ASSERT_FALSE(parse_access_line("ldsm 8 ff 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", a)
                   .value_or("")
                   .empty());
  EXPECT_EQ(parse_access_line("atom 16 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", a).value_or(""),
            "atom width 16 is not one of 4, 8");
  EXPECT_TRUE(validate(make(Op::Atomic, 2, [](int) { return 0u; })).has_value());
}

TEST(Instructions, AnAccessLineOfEveryOpRoundTrips) {
  for (Op op : kAllOps) {
    const int w = is_legal_width(op, 16) ? 16 : 4;
    const WarpAccess a = make(op, w, [](int i) { return static_cast<std::uint32_t>(i) * 16u; });
    WarpAccess b;
    ASSERT_FALSE(parse_access_line(format_access_line(a), b).has_value()) << format_access_line(a);
    EXPECT_EQ(b.op, a.op);
    EXPECT_EQ(b.offset, a.offset);
  }
}

// Lane i gives row i % 8 of matrix i / 8; rows of `pitch` bytes, matrix m at column 16 m.
WarpAccess matrix_rows(Op op, std::uint32_t pitch, std::uint32_t mask = 0xffffffffu) {
  return make(op, 16, [=](int i) { return static_cast<std::uint32_t>(i % 8) * pitch + static_cast<std::uint32_t>(i / 8) * 16u; }, mask);
}

TEST(Instructions, LdmatrixFromRowsOf128BytesIsAnEightWayConflictPerMatrix) {
  for (Op op : {Op::LoadMatrix, Op::StoreMatrix}) {
    const Summary s = summarize(matrix_rows(op, 128));
    EXPECT_EQ(s.wavefronts, 32) << to_string(op);
    EXPECT_EQ(s.minimum, 4) << to_string(op);
    EXPECT_EQ(s.grouping, Grouping::QuarterWarps);
    EXPECT_EQ(analyze(matrix_rows(op, 128)).wavefronts, 32);
  }
}

TEST(Instructions, LdmatrixFromSwizzledRowsTakesOneWavefrontPerMatrix) {
  // Swizzle<3,4,3>: chunk c of row r goes to chunk c ^ (r % 8).
  const WarpAccess a = make(Op::LoadMatrix, 16, [](int i) {
    const std::uint32_t r = static_cast<std::uint32_t>(i % 8), c = static_cast<std::uint32_t>(i / 8);
    return r * 128u + ((c ^ r) * 16u);
  });
  EXPECT_EQ(summarize(a).wavefronts, 4);
  EXPECT_EQ(summarize(matrix_rows(Op::LoadMatrix, 128, 0x000000ffu)).wavefronts, 8);  // x1
  EXPECT_EQ(summarize(matrix_rows(Op::LoadMatrix, 16, 0x0000ffffu)).wavefronts, 2);   // x2, packed rows
}

TEST(Instructions, SummarizeAgreesWithAnalyzeForEveryOp) {
  std::uint64_t x = 12345;
  auto next = [&] { x = x * 6364136223846793005ull + 1442695040888963407ull; return static_cast<std::uint32_t>(x >> 33); };
  for (int n = 0; n < 4000; ++n) {
    const Op op = kAllOps[next() % std::size(kAllOps)];
    int w = 0;
    do w = kLegalWidths[next() % 5]; while (!is_legal_width(op, w));
    const std::uint32_t range = 64u << (next() % 10);
    WarpAccess a = make(op, w, [&](int) { return (next() % range) / static_cast<std::uint32_t>(w) * static_cast<std::uint32_t>(w); },
                        next() % 3 ? 0xffffffffu : next());
    ASSERT_FALSE(validate(a).has_value());
    const Summary s = summarize(a);
    const Analysis r = analyze(a);
    ASSERT_EQ(s.wavefronts, r.wavefronts) << format_access_line(a);
    ASSERT_EQ(s.minimum, r.minimum) << format_access_line(a);
    ASSERT_EQ(s.grouping, r.grouping) << format_access_line(a);
    ASSERT_EQ(s.instructions, r.instructions) << format_access_line(a);
    ASSERT_EQ(static_cast<int>(r.wavefront_detail.size()), r.wavefronts) << format_access_line(a);
    ASSERT_EQ(detail::summarize_portable(a).wavefronts, r.wavefronts) << format_access_line(a);
  }
}

}  // namespace
}  // namespace banklab

namespace banklab {
namespace {

// red.shared.add.u32 [p], 1 (atomicAdd(p, 1) with its result unused) compiles to
// ATOMS.POPC.INC.32 (op atominc), which the H200 serves like a 32-bit store: lanes at one word
// share it, unlike ATOMS.ADD.
TEST(Instructions, AtomicIncrementWithoutResultCostsLikeAStoreOnTheH200) {
  const auto rows = read_measurements_file(std::string(BANKLAB_DATA_DIR) + "/calibration_h200_atom.csv");
  int n = 0;
  for (const Measurement& m : rows) {
    if (m.access.op != Op::AtomicIncrement) continue;
    ++n;
    WarpAccess st = m.access;
    st.op = Op::Store;
    EXPECT_EQ(summarize(st).wavefronts, m.wavefronts) << m.id;
    EXPECT_EQ(summarize(st).conflicts(), m.bank_conflicts) << m.id;
    EXPECT_EQ(summarize(m.access).wavefronts, m.wavefronts) << m.id;
  }
  EXPECT_EQ(n, 75);
  const WarpAccess same_word = make(Op::AtomicIncrement, 4, [](int) { return 0u; });
  EXPECT_EQ(summarize(same_word).wavefronts, 1);
  WarpAccess add = same_word;
  add.op = Op::Atomic;
  EXPECT_EQ(summarize(add).wavefronts, 32);
}

// cp.async of 4 and 8 bytes: lanes in lane order, lane i after the last wavefront of an earlier
// lane with the same i % 8 or bank. Lanes 0 and 31 alone share one wavefront (4 bytes), every
// lane of a consecutive row takes 4 (lane i and i + 8 share i % 8), and two lanes per word take
// 5, not 8: the second lane of each pair goes one wavefront later, pipelined.
TEST(Instructions, CpAsyncOfFourBytesIsServedLaneByLaneInLaneOrder) {
  EXPECT_EQ(summarize(make(Op::AsyncCopy, 4, [](int i) { return static_cast<std::uint32_t>(i) * 4u; })).wavefronts, 4);
  EXPECT_EQ(summarize(make(Op::AsyncCopy, 4, [](int i) { return static_cast<std::uint32_t>(i) * 4u; }, 0x80000001u)).wavefronts, 1);
  EXPECT_EQ(summarize(make(Op::AsyncCopy, 8, [](int i) { return static_cast<std::uint32_t>(i) * 8u; }, 0x80000001u)).wavefronts, 2);
  EXPECT_EQ(summarize(make(Op::AsyncCopy, 4, [](int i) { return static_cast<std::uint32_t>(i / 2) * 4u; })).wavefronts, 5);
  EXPECT_EQ(summarize(make(Op::AsyncCopy, 4, [](int i) { return static_cast<std::uint32_t>(i / 16) * 4u; })).wavefronts, 25);
  EXPECT_EQ(summarize(make(Op::AsyncCopy, 16, [](int) { return 0u; })).wavefronts, 32);
}

// 64-bit shared atomicAdd: a CAS loop. 32 lanes at one word run 32 passes; while lanes of both
// halves are left a pass takes 4 wavefronts, then 2: 16 x 4 + 16 x 2 = 96.
TEST(Instructions, SixtyFourBitAtomicIsACompareAndSwapLoop) {
  const WarpAccess one_word = make(Op::Atomic, 8, [](int) { return 0u; });
  const Analysis r = analyze(one_word);
  EXPECT_EQ(r.wavefronts, 96);
  EXPECT_EQ(r.instructions, 32);
  EXPECT_EQ(summarize(one_word).instructions, 32);
  EXPECT_EQ(static_cast<int>(r.wavefront_detail.size()), 96);
  EXPECT_EQ(r.minimum, 4);
  EXPECT_EQ(expected_counters(one_word).bank_conflicts, 0);
  const WarpAccess row = make(Op::Atomic, 8, [](int i) { return static_cast<std::uint32_t>(i) * 8u; });
  EXPECT_EQ(summarize(row).wavefronts, 4);
  EXPECT_EQ(summarize(row).instructions, 1);
  EXPECT_EQ(cas_pass_wavefronts(0x80000001u, 8), 4);
  EXPECT_EQ(cas_pass_wavefronts(0x0000ffffu, 8), 2);
}

// The other shared atomics, as the H200 served them (common/data/calibration_h200_atomop.csv;
// the pattern ids in the comments).
TEST(Instructions, EveryThirtyTwoBitAtomicOperationIsServedLikeAdd) {
  // atomop_n_stride0_w4_atom_{exch,min,...}: 32 lanes at one word, 32 wavefronts, 31 conflicts.
  const WarpAccess one_word = make(Op::Atomic, 4, [](int) { return 0u; });
  EXPECT_EQ(expected_counters(one_word), (Counters{32, 31, 1}));
  WarpAccess exch = one_word;
  exch.op = Op::AtomicExchange;
  EXPECT_EQ(expected_counters(exch), expected_counters(one_word));
}

TEST(Instructions, CompareAndSwapCostsTwiceTheWavefrontsOfAnExchange) {
  // atomop_n_stride0_w4_atom_cas: 64 wavefronts, ncu's conflict counter 31;
  // atomop_n_stride0_w8_atom_cas: 64 and 30 (half-warps); atomop_n_stride1_w4_atom_cas: 2 and 0.
  EXPECT_EQ(expected_counters(make(Op::AtomicCas, 4, [](int) { return 0u; })), (Counters{64, 31, 1}));
  EXPECT_EQ(expected_counters(make(Op::AtomicCas, 8, [](int) { return 0u; })), (Counters{64, 30, 1}));
  EXPECT_EQ(expected_counters(make(Op::AtomicCas, 4, [](int i) { return static_cast<std::uint32_t>(i) * 4u; })),
            (Counters{2, 0, 1}));
  const Analysis r = analyze(make(Op::AtomicCas, 4, [](int i) { return static_cast<std::uint32_t>(i % 2) * 128u; }));
  EXPECT_EQ(r.wavefronts, 64);
  EXPECT_EQ(r.minimum, 2);
  // atomop_n_stride0_w8_atom_exch: ATOMS.EXCH.64, half-warps, every lane apart: 32 and 30.
  EXPECT_EQ(expected_counters(make(Op::AtomicExchange, 8, [](int) { return 0u; })), (Counters{32, 30, 1}));
}

TEST(Instructions, FloatAtomicAddIsACompareAndSwapLoopOverTheWholeWarp) {
  // atomop_n_stride0_w4_atom_addf: 32 passes of 2 wavefronts, no conflict counted;
  // atomop_n_stride2_w4_atom_addf: lanes 16-31 meet lanes 0-15's banks: 2 passes.
  EXPECT_EQ(expected_counters(make(Op::AtomicCasLoop, 4, [](int) { return 0u; })), (Counters{64, 0, 32}));
  EXPECT_EQ(expected_counters(make(Op::AtomicCasLoop, 4, [](int i) { return static_cast<std::uint32_t>(i) * 8u; })),
            (Counters{4, 0, 2}));
  EXPECT_EQ(expected_counters(make(Op::AtomicCasLoop, 4, [](int i) { return static_cast<std::uint32_t>(i) * 4u; }, 0x80000001u)),
            (Counters{2, 0, 1}));
  EXPECT_EQ(cas_pass_wavefronts(0x80000001u, 4), 2);
  EXPECT_EQ(cas_pass_wavefronts(0x80000001u, 8), 4);
  // A double add (atomloop 8) is the loop of a 64-bit atomicAdd (atom 8).
  const WarpAccess d = make(Op::AtomicCasLoop, 8, [](int i) { return static_cast<std::uint32_t>(i / 4) * 8u; });
  WarpAccess a = d;
  a.op = Op::Atomic;
  EXPECT_EQ(expected_counters(d), expected_counters(a));
}

}  // namespace
}  // namespace banklab
