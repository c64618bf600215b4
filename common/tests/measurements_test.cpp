// The model against every measured pattern committed under common/data/.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include "banklab/model.hpp"
#include "banklab/pattern_io.hpp"

namespace banklab {
namespace {

std::vector<Measurement> load(const std::string& name) {
  return read_measurements_file(std::string(BANKLAB_DATA_DIR) + "/" + name);
}

// Every counter the file holds must read what expected_counters() says: wavefronts, Nsight
// Compute's bank-conflict counter and the warp instructions executed.
void expect_model_matches(const std::vector<Measurement>& rows) {
  for (const Measurement& m : rows) {
    const Counters c = expected_counters(m.access);
    EXPECT_EQ(c.wavefronts, m.wavefronts) << m.id << " (line " << m.line << ")";
    EXPECT_EQ(c.bank_conflicts, m.bank_conflicts)
        << m.id << ": Nsight Compute's conflict counter (wavefronts - minimum; 0 for a CAS loop)";
    EXPECT_EQ(c.instructions, m.instructions) << m.id << ": warp instructions executed (CAS loop passes)";
    EXPECT_EQ(analyze(m.access).wavefronts, m.wavefronts) << m.id << ": analyze() and summarize() disagree";
  }
}

TEST(Measurements, TheH200FileHoldsAll260Patterns) {
  EXPECT_EQ(load("h200_wavefronts_named.csv").size(), 260u);
}

TEST(Measurements, TheModelMatchesEveryMeasuredH200Pattern) {
  expect_model_matches(load("h200_wavefronts_named.csv"));
}

TEST(Measurements, TheModelMatchesEveryCalibrationFileCommitted) {
  // banklab calibrate writes calibration_*.csv; every one committed must match in full.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(BANKLAB_DATA_DIR)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("calibration_", 0) != 0 || e.path().extension() != ".csv") continue;
    ++files;
    SCOPED_TRACE(name);
    expect_model_matches(load(name));
  }
  if (files == 0) GTEST_SKIP() << "no calibration_*.csv committed yet";
}

TEST(Measurements, EveryNewInstructionFamilyIsCheckedInFull) {
  // The rows the model was fitted on (common/data/README.md), counted so that none goes missing.
  auto count = [](const std::vector<Measurement>& rows, Op op, int width) {
    return std::count_if(rows.begin(), rows.end(),
                         [&](const Measurement& m) { return m.access.op == op && m.access.width == width; });
  };
  const auto cp = load("calibration_h200_cpasync.csv");
  EXPECT_EQ(count(cp, Op::AsyncCopy, 4), 82);
  EXPECT_EQ(count(cp, Op::AsyncCopy, 8), 85);
  EXPECT_EQ(count(cp, Op::AsyncCopy, 16), 75);
  const auto at = load("calibration_h200_atom.csv");  // all 320 patterns of --family atom --random 200
  EXPECT_EQ(count(at, Op::Atomic, 4), 82);
  EXPECT_EQ(count(at, Op::Atomic, 8), 163);  // atom.add.u64 85, red.add.u64 78: one CAS loop
  EXPECT_EQ(count(at, Op::AtomicIncrement, 4), 75);
  // The other shared atomics (calibration_h200_atomop.csv): 32-bit exch, min, max.s32, and, or,
  // xor, inc, dec and red.{add,min,or} of a register (ATOMS.<op>: the atom rule), cas (32 and
  // 64), exch.64, and the CAS loops of float and double add.
  const auto ao = load("calibration_h200_atomop.csv");
  EXPECT_EQ(count(ao, Op::Atomic, 4), 272);
  EXPECT_EQ(count(ao, Op::AtomicCas, 4), 26);
  EXPECT_EQ(count(ao, Op::AtomicCas, 8), 25);
  EXPECT_EQ(count(ao, Op::AtomicExchange, 8), 28);
  EXPECT_EQ(count(ao, Op::AtomicCasLoop, 4), 18);
  EXPECT_EQ(count(ao, Op::AtomicCasLoop, 8), 24);
  EXPECT_EQ(load("calibration_h200_ldsm.csv").size(), 318u);
  EXPECT_EQ(load("calibration_h200_stsm.csv").size(), 318u);
}

// bench/experiments/cpasync_source/cpasync_source_probe.cu on the H200: the same shared-memory patterns of 4- and 8-byte
// The global offset lane i reads in a probe row, from the id's last part: "src16i" 16 * i (as the
// calibration rows), "srcwi" width * i (contiguous), "src16xor8" 16 * (i ^ 8), "src32i" 32 * i,
// "src128i" 128 * i (every lane's source starts in bank 0).
std::array<std::uint64_t, kWarpSize> probe_sources(const Measurement& m) {
  const std::string src = m.id.substr(m.id.rfind('_') + 1);
  std::array<std::uint64_t, kWarpSize> source{};
  for (int i = 0; i < kWarpSize; ++i) {
    const auto lane = static_cast<std::uint64_t>(i);
    source[static_cast<std::size_t>(i)] = src == "src16i"      ? 16u * lane
                                          : src == "srcwi"     ? static_cast<std::uint64_t>(m.access.width) * lane
                                          : src == "src16xor8" ? 16u * (lane ^ 8u)
                                          : src == "src32i"    ? 32u * lane
                                          : src == "src128i"   ? 128u * lane
                                                               : ~0ull;
  }
  return source;
}

// Every row's wavefronts and instructions equal the model's with the row's sources; its conflict
// counter equals wavefronts - minimum except on the rows returned (space-separated ids), where
// ncu's LDGSTS conflict counter reads less.
std::string expect_probe_rows_match(const std::vector<Measurement>& rows) {
  std::string fewer;
  for (const Measurement& m : rows) {
    const auto source = probe_sources(m);
    EXPECT_NE(source[1], ~0ull) << m.id << ": unknown source";
    const Summary s = summarize_async_copy(m.access, source);
    EXPECT_EQ(s.wavefronts, m.wavefronts) << m.id;
    if (s.conflicts() != m.bank_conflicts) {
      EXPECT_LT(m.bank_conflicts, s.conflicts()) << m.id;
      fewer += (fewer.empty() ? "" : " ") + m.id;
    }
    EXPECT_EQ(m.instructions, 1) << m.id;
    if (m.id.substr(m.id.rfind('_') + 1) == "src16i") {
      EXPECT_EQ(expected_counters(m.access), (Counters{m.wavefronts, m.bank_conflicts, 1})) << m.id;
    }
  }
  return fewer;
}

// cp.async with lane i reading global offset 16 * i (as the calibration rows), width * i
// (contiguous) and 16 * (i ^ 8). The id's last part names the source.
TEST(Measurements, CpAsyncDependsOnWhereTheLanesReadGlobalMemory) {
  const auto rows = load("probe_h200_cpasync_source.csv");
  ASSERT_EQ(rows.size(), 42u);
  EXPECT_EQ(expect_probe_rows_match(rows), "") << "conflict counters that differ from wavefronts - minimum";
}

// 16-byte copies too: lanes whose sources share banks wait for each other (128 * i: every source
// in banks 0-3, 32 wavefronts for a contiguous shared row that takes 4 from 16 * i). All 28 rows'
// wavefronts match. ncu's conflict counter reads 2 less per quarter-warp than wavefronts -
// minimum where all 8 lanes of a quarter-warp wait on one another's sources (the 128 * i rows
// with whole quarter-warps active); it is not the model's rule, so it is named here, not fitted.
TEST(Measurements, CpAsyncOf16BytesAlsoDependsOnWhereTheLanesReadGlobalMemory) {
  const auto rows = load("probe_h200_cpasync_source_w16.csv");
  ASSERT_EQ(rows.size(), 28u);
  for (const Measurement& m : rows) ASSERT_EQ(m.access.width, 16) << m.id;
  EXPECT_EQ(expect_probe_rows_match(rows),
            "cpsrc_stride1_w16_src128i cpsrc_share2_w16_src128i cpsrc_share4_w16_src128i cpsrc_stride8_w16_src128i "
            "cpsrc_stride1_half0_w16_src128i");
}

// Zero-filling copies (`cp.async.ca ... , src-size` with src-size 0, LDGSTS.E*.ZFILL: what a
// GEMM's main loop issues past the end of K): 724 distinct replays of cuBLAS's own copies
// (docs/perf/trace_cublas_hopper.md, F9), every lane zero-filling ("z" for all) or the odd lanes
// only. A lane that reads nothing waits on no source bank; a group mixing both kinds of lane takes
// one wavefront more. Columns: id,width,mask,offsets,sources,wavefronts (sources: lane i's global
// byte offset, or z; read_sourced_copies_file()).
TEST(Measurements, ZeroFillingCopiesWaitOnNoSourceAndAMixedGroupTakesOneMore) {
  const auto rows = read_sourced_copies_file(std::string(BANKLAB_DATA_DIR) + "/probe_h200_cpasync_zfill.csv");
  int all_zero = 0, mixed = 0;
  for (const SourcedCopy& c : rows) {
    EXPECT_EQ(summarize_async_copy(c.access, c.source).wavefronts, c.wavefronts) << c.id << " (line " << c.line << ")";
    const auto zeros = std::count(c.source.begin(), c.source.end(), kNoSource);
    (zeros == kWarpSize ? all_zero : mixed) += 1;
  }
  EXPECT_EQ(rows.size(), 724u);
  EXPECT_EQ(all_zero, 352);
  EXPECT_EQ(mixed, 372);
}

// cp.async.cg (LDGSTS.E.BYPASS.128): NOT checked against the model. On the H200 every one of the
// 62 shared-memory counters ncu lists reads the same on all 78 patterns (0 LDGSTS wavefronts and
// conflicts; the kernel's 4 misc wavefronts): no counter sees where .cg writes shared memory, so
// no pattern rule can be tested on them. This test names the rows and asserts only what ncu said.
TEST(Measurements, CpAsyncCgRowsCannotBeCheckedBecauseNoCounterSeesTheirSharedWrites) {
  const auto rows = load("uncounted_h200_cpasync_cg.csv");
  ASSERT_EQ(rows.size(), 78u);
  std::string ids;
  for (const Measurement& m : rows) {
    EXPECT_EQ(m.access.op, Op::AsyncCopy) << m.id;
    EXPECT_EQ(m.access.width, 16) << m.id;
    EXPECT_EQ(m.id.substr(m.id.size() - 3), "_cg") << m.id;
    EXPECT_EQ(m.wavefronts, 0) << m.id;
    EXPECT_EQ(m.bank_conflicts, 0) << m.id;
    EXPECT_EQ(m.instructions, 1) << m.id;
    ids += (ids.empty() ? "" : " ") + m.id;
  }
  std::cout << "[ note ] not checked against the model (ncu counts no shared wavefront for cp.async.cg): "
            << rows.size() << " rows of uncounted_h200_cpasync_cg.csv: " << ids << "\n";
  RecordProperty("unchecked_rows", static_cast<int>(rows.size()));
}

// The 64-bit min and or (LDS.64 + ATOMS.CAST.SPIN.64 loops, like add) depend on the values, which
// the model does not take: a min exits the loop when the word already holds a smaller value, and
// an or that leaves its word unchanged lets the next lane's compare-and-swap at that word succeed
// in the same pass. So the model's passes (every successful CAS changes its word) are an upper
// bound there, exact on 25 of these 41 rows (min 13 of 26, or 12 of 15): this test asserts the
// bound on every row and counts the exact ones; common/data/README.md says which differ and why.
TEST(Measurements, ValueDependentCasLoopsNeverTakeMoreThanTheModelSays) {
  const auto rows = load("valuedep_h200_atomop.csv");
  ASSERT_EQ(rows.size(), 41u);
  int exact = 0;
  for (const Measurement& m : rows) {
    EXPECT_EQ(m.access.op, Op::AtomicCasLoop) << m.id;
    EXPECT_EQ(m.access.width, 8) << m.id;
    const Counters c = expected_counters(m.access);
    EXPECT_LE(m.wavefronts, c.wavefronts) << m.id;
    EXPECT_LE(m.instructions, c.instructions) << m.id;
    EXPECT_EQ(m.bank_conflicts, 0) << m.id;
    exact += c == Counters{m.wavefronts, m.bank_conflicts, m.instructions};
  }
  EXPECT_EQ(exact, 25) << "rows the model (a CAS that always changes its word) gives exactly";
  RecordProperty("exact_rows", exact);
}

// hopper_h200_tma_layout.csv: where the H200's TMA put the first byte of 16-byte chunks of 20
// boxes (bench/experiments/hopper/tma_probe.cu's shared-memory images). tma_box_offset() must say where every
// one went; the same rule with dense rows (row pitch = the box's row bytes) must not, for exactly
// the three boxes narrower than their swizzle's span.
TEST(Measurements, TmaBoxOffsetIsWhereTheH200PutEveryMeasuredByte) {
  std::ifstream in(std::string(BANKLAB_DATA_DIR) + "/hopper_h200_tma_layout.csv");
  ASSERT_TRUE(in) << "hopper_h200_tma_layout.csv is missing";
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(line, "id,swizzle,row_bytes,row,byte,offset");
  std::set<std::string> boxes, dense_wrong;
  int rows = 0;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string id, sw, f[4];
    std::getline(ss, id, ',');
    std::getline(ss, sw, ',');
    for (std::string& x : f) std::getline(ss, x, ',');
    TmaSwizzle mode = TmaSwizzle::None;
    ASSERT_FALSE(parse_tma_swizzle(sw, mode)) << line;
    const std::uint32_t row_bytes = std::stoul(f[0]), row = std::stoul(f[1]), byte = std::stoul(f[2]),
                        offset = std::stoul(f[3]);
    EXPECT_EQ(tma_box_offset(mode, row_bytes, row, byte), offset) << line;
    if (tma_swizzled_offset(mode, row * row_bytes + byte) != offset) dense_wrong.insert(id);
    boxes.insert(id);
    ++rows;
  }
  EXPECT_EQ(rows, 1096);
  EXPECT_EQ(boxes.size(), 20u);
  EXPECT_EQ(dense_wrong, (std::set<std::string>{"tma_sw128_e2_i64_r64_x0_y0", "tma_sw32_e2_i16_r64_x0_y0",
                                                "tma_sw64_e2_i32_r64_x0_y0"}));
}

}  // namespace
}  // namespace banklab
