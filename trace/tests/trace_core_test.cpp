// CPU tests of banklab trace's host side: merging warp records, the binary trace file,
// decoding records into model input, line tables of -lineinfo cubins, per-line aggregation
// and the report formats. No GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "banklab/pattern_io.hpp"
#include "banklab_trace/trace.hpp"

namespace bt = banklab::trace;

namespace {
// A trace recorded on a GPU (trace/tests/data/NAME), read and decoded as `banklab trace`
// does; nothing when the file is missing.
struct Recorded {
  bt::TraceData data;
  std::vector<bt::Instruction> instructions;
  std::vector<bt::Unmodelled> unmodelled;
};
std::optional<Recorded> recorded(const std::string& name) {
  std::ifstream in(std::string(BANKLAB_TRACE_TEST_DATA) + "/" + name, std::ios::binary);
  if (!in) return std::nullopt;
  Recorded r;
  r.data = bt::read_trace(in);
  bt::decode(r.data, r.instructions, r.unmodelled);
  return r;
}

bt::DeviceRecord record(std::uint64_t pc, std::uint8_t flags, std::uint8_t width, std::uint32_t stride_bytes,
                        std::uint32_t mask = 0xffffffffu, std::uint8_t kind = bt::kKindAccess) {
  bt::DeviceRecord r{};
  r.pc = pc;
  r.mask = mask;
  r.kind = kind;
  r.width = width;
  r.flags = flags;
  for (int i = 0; i < 32; ++i) r.offset[i] = bt::kSharedWindowReservedBytes + i * stride_bytes;
  return r;
}

// Records of one kernel with no image (so no lines), merged and decoded as `banklab trace` does.
struct Decoded {
  std::vector<bt::Instruction> ins;
  std::vector<bt::Unmodelled> un;
};
Decoded decode_records(const std::vector<bt::DeviceRecord>& records, const std::string& kernel = "k") {
  bt::TraceData d;
  d.cubins.emplace_back();
  d.kernels.push_back(bt::KernelInfo{kernel, 0, 0, 1});
  bt::Merger m;
  m.add(0, records.data(), records.size());
  d.records = m.take();
  Decoded out;
  bt::decode(d, out.ins, out.un);
  return out;
}

// Two kernels: "column" with a 32-way store at pc base+0x40 and a free load at base+0x80;
// "atomics" with a shared atomic, a 16-byte cp.async and a TMA copy (listed, not modelled).
bt::TraceData sample() {
  bt::TraceData d;
  d.cubins.emplace_back();  // no image: no lines
  d.kernels.push_back(bt::KernelInfo{"column", 0, 0x1000, 1});
  d.kernels.push_back(bt::KernelInfo{"atomics", 0, 0x2000, 1});
  bt::Merger m;
  for (int w = 0; w < 3; ++w) {
    const auto st = record(0x1040, bt::kFlagWrite, 4, 128);
    const auto ld = record(0x1080, bt::kFlagRead, 4, 4);
    m.add(0, &st, 1);
    m.add(0, &ld, 1);
  }
  const auto atom = record(0x2010, bt::kFlagAtomic, 4, 4);
  const auto cp = record(0x2020, 0, 16, 16, 0xffffffffu, bt::kKindCpAsync);
  const auto tma = record(0x2030, 0, 0, 0, 0x1u, bt::kKindBulkCopy);
  m.add(1, &atom, 1);
  m.add(1, &cp, 1);
  m.add(1, &tma, 1);
  m.add(1, &tma, 1);
  d.records = m.take();
  return d;
}

TEST(TraceMerger, MergesIdenticalWarpRecordsIntoOneWithACount) {
  const bt::TraceData d = sample();
  ASSERT_EQ(d.records.size(), 5u);
  EXPECT_EQ(d.records[0].count, 3u);
  EXPECT_EQ(d.records[1].count, 3u);
  EXPECT_EQ(d.records[4].count, 2u);
}

TEST(TraceMerger, IgnoresTheOffsetsOfInactiveLanes) {
  bt::Merger m;
  auto a = record(0x10, bt::kFlagRead, 4, 4, 0x0000ffffu);
  auto b = a;
  b.offset[20] = 12345;  // lane 20 is inactive: whatever it holds is not part of the instruction
  m.add(0, &a, 1);
  m.add(0, &b, 1);
  const auto got = m.take();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].count, 2u);
  EXPECT_EQ(got[0].record.offset[20], 0u);
}

TEST(TraceMerger, KeepsDifferentOffsetsMasksAndKernelsApart) {
  bt::Merger m;
  const auto a = record(0x10, bt::kFlagRead, 4, 4);
  const auto b = record(0x10, bt::kFlagRead, 4, 8);
  const auto c = record(0x10, bt::kFlagRead, 4, 4, 0x7fffffffu);
  m.add(0, &a, 1);
  m.add(0, &b, 1);
  m.add(0, &c, 1);
  m.add(1, &a, 1);
  EXPECT_EQ(m.take().size(), 4u);
}

TEST(TraceFile, RoundTripsEveryField) {
  const bt::TraceData d = sample();
  std::stringstream s(std::ios::in | std::ios::out | std::ios::binary);
  bt::write_trace(s, d);
  const bt::TraceData back = bt::read_trace(s);
  ASSERT_EQ(back.kernels.size(), 2u);
  EXPECT_EQ(back.kernels[1].name, "atomics");
  EXPECT_EQ(back.kernels[0].base_pc, 0x1000u);
  ASSERT_EQ(back.records.size(), d.records.size());
  for (std::size_t i = 0; i < d.records.size(); ++i) {
    EXPECT_EQ(back.records[i].count, d.records[i].count);
    EXPECT_EQ(back.records[i].record.pc, d.records[i].record.pc);
    EXPECT_EQ(back.records[i].record.offset[31], d.records[i].record.offset[31]);
  }
}

TEST(TraceFile, RejectsAFileWithoutTheHeader) {
  std::stringstream s("hello, this is not a trace");
  EXPECT_THROW(bt::read_trace(s), std::runtime_error);
}

TEST(TraceFile, RejectsATruncatedFileSayingWhere) {
  std::stringstream s(std::ios::in | std::ios::out | std::ios::binary);
  bt::write_trace(s, sample());
  const std::string whole = s.str();
  std::stringstream cut(whole.substr(0, whole.size() - 10));
  try {
    bt::read_trace(cut);
    FAIL() << "a truncated trace was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("ends inside a record"), std::string::npos) << e.what();
  }
}

TEST(TraceDecode, SubtractsTheReservedWindowAndTheKernelBase) {
  std::vector<bt::Instruction> ins;
  std::vector<bt::Unmodelled> un;
  bt::decode(sample(), ins, un);
  ASSERT_EQ(ins.size(), 4u);
  EXPECT_EQ(ins[0].pc, 0x40u);
  EXPECT_EQ(ins[0].access.op, banklab::Op::Store);
  EXPECT_EQ(ins[0].access.offset[0], 0u);
  EXPECT_EQ(ins[0].access.offset[1], 128u);
  EXPECT_EQ(ins[1].access.op, banklab::Op::Load);
  EXPECT_EQ(ins[1].count, 3u);
}

TEST(TraceDecode, ModelsAtomicsAndCpAsyncAndListsTmaWithCounts) {
  std::vector<bt::Instruction> ins;
  std::vector<bt::Unmodelled> un;
  bt::decode(sample(), ins, un);
  ASSERT_EQ(ins.size(), 4u);
  EXPECT_EQ(ins[2].access.op, banklab::Op::Atomic);
  EXPECT_EQ(ins[2].access.width, 4);
  EXPECT_EQ(ins[3].access.op, banklab::Op::AsyncCopy);
  EXPECT_EQ(ins[3].access.width, 16);
  EXPECT_EQ(bt::cost_of(ins[3].access).wavefronts, 4);  // four quarter-warps of 8 x 16 bytes
  ASSERT_EQ(un.size(), 1u);
  EXPECT_EQ(un[0].kernel, "atomics");
  EXPECT_EQ(un[0].count, 2u);
  EXPECT_EQ(un[0].what.rfind("bulk copy (cp.async.bulk", 0), 0u) << un[0].what;
}

TEST(TraceDecode, LdmatrixKeepsOnlyTheLanesThatGiveRowAddresses) {
  // ldmatrix.x1 from rows of 128 bytes: lanes 0-7 give the rows (one bank group: 8-way);
  // lanes 8-31 run the instruction too, but their addresses are not used.
  auto x1 = record(0x30, bt::kFlagRead, 16, 128, 0xffffffffu, bt::kKindLdmatrix);
  x1.reserved = 1;
  auto st4 = record(0x40, bt::kFlagWrite, 16, 128, 0xffffffffu, bt::kKindLdmatrix);
  st4.reserved = 4;
  const auto [ins, un] = decode_records({x1, st4}, "mma");
  ASSERT_EQ(ins.size(), 2u);
  EXPECT_TRUE(un.empty());
  EXPECT_EQ(ins[0].access.op, banklab::Op::LoadMatrix);
  EXPECT_EQ(ins[0].access.mask, 0x000000ffu);
  EXPECT_EQ(bt::cost_of(ins[0].access).wavefronts, 8);
  EXPECT_EQ(ins[1].access.op, banklab::Op::StoreMatrix);
  EXPECT_EQ(ins[1].access.mask, 0xffffffffu);
  EXPECT_EQ(bt::cost_of(ins[1].access).wavefronts, 32);
  const bt::Report r = bt::aggregate(ins, un);
  EXPECT_EQ(r.kernels[0].load_wavefronts, 8u);   // ncu counts LDSM with the loads
  EXPECT_EQ(r.kernels[0].store_wavefronts, 32u);  // and STSM with the stores
}

TEST(TraceDecode, RejectsOffsetsTheModelCannotTakeAsInvalidNotAsConflicts) {
  const auto misaligned = record(0x10, bt::kFlagRead, 8, 4);  // 8-byte lanes 4 bytes apart
  const auto [ins, un] = decode_records({misaligned});
  EXPECT_TRUE(ins.empty());
  ASSERT_EQ(un.size(), 1u);
  EXPECT_EQ(un[0].what.rfind("invalid: ", 0), 0u) << un[0].what;
}

int line_with(const std::string& tag) {
  std::ifstream in(BANKLAB_TRACE_LINES_SOURCE);
  std::string s;
  for (int n = 1; std::getline(in, s); ++n)
    if (s.find("LINE:" + tag) != std::string::npos) return n;
  return -1;
}

TEST(TraceLines, ReadsTheLinesOfAKernelFromALineinfoCubin) {
  std::ifstream in(BANKLAB_TRACE_LINES_CUBIN, std::ios::binary);
  ASSERT_TRUE(in) << BANKLAB_TRACE_LINES_CUBIN;
  const std::string cubin((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const bt::LineTable t = bt::LineTable::from_cubin(cubin.data(), cubin.size());
  ASSERT_FALSE(t.empty());
  std::set<int> lines;
  for (std::uint64_t pc = 0; pc < 0x400; pc += 16) {
    const bt::SourceLine s = t.lookup("column_store", pc);
    // Inlined intrinsics (__syncwarp) keep their header's lines; ours are the kernel file's.
    if (s.line > 0 && s.file.find("lines_kernel.cu") != std::string::npos) lines.insert(s.line);
  }
  EXPECT_TRUE(lines.count(line_with("column_store"))) << "the store's line is not in the table";
  EXPECT_TRUE(lines.count(line_with("row_load"))) << "the load's line is not in the table";
  EXPECT_EQ(t.lookup("no_such_kernel", 0).line, 0);
}

TEST(TraceLines, GivesAnEmptyTableForSomethingThatIsNotACubin) {
  const std::string junk(200, 'x');
  EXPECT_TRUE(bt::LineTable::from_cubin(junk.data(), junk.size()).empty());
  EXPECT_TRUE(bt::LineTable::from_cubin(nullptr, 0).empty());
}

bt::Report sample_report(std::vector<bt::Instruction>* out = nullptr) {
  std::vector<bt::Instruction> ins;
  std::vector<bt::Unmodelled> un;
  bt::decode(sample(), ins, un);
  ins[0].file = "k.cu";
  ins[0].line = 7;
  ins[1].file = "k.cu";
  ins[1].line = 9;
  if (out) *out = ins;
  return bt::aggregate(ins, un);
}

TEST(TraceAggregate, SumsWavefrontsPerLineAndPutsTheWorstLineFirst) {
  const bt::Report r = sample_report();
  ASSERT_EQ(r.kernels.size(), 2u);
  const bt::KernelReport& k = r.kernels[0];
  EXPECT_EQ(k.warp_instructions, 6u);
  EXPECT_EQ(k.wavefronts, 3u * 32 + 3u * 1);
  EXPECT_EQ(k.minimum, 6u);
  EXPECT_EQ(k.store_instructions, 3u);
  EXPECT_EQ(k.store_wavefronts, 96u);
  EXPECT_EQ(k.load_instructions, 3u);
  EXPECT_EQ(k.load_wavefronts, 3u);
  ASSERT_EQ(k.lines.size(), 2u);
  EXPECT_EQ(k.lines[0].line, 7);
  EXPECT_EQ(k.lines[0].excess(), 93u);
  EXPECT_EQ(k.lines[0].worst_wavefronts, 32);
  EXPECT_EQ(k.lines[1].excess(), 0u);
  EXPECT_EQ(r.kernels[1].atomic_instructions, 1u);
  EXPECT_EQ(r.kernels[1].async_copy_wavefronts, 4u);
  EXPECT_EQ(r.unmodelled.size(), 1u);
}

TEST(TraceAggregate, KeepsTheWorstInstanceOfALine) {
  std::vector<bt::Instruction> ins(2);
  for (auto& i : ins) { i.kernel = "k"; i.file = "a.cu"; i.line = 3; i.count = 1; }
  for (int l = 0; l < 32; ++l) { ins[0].access.offset[l] = l * 4; ins[1].access.offset[l] = l * 8; }
  const bt::Report r = bt::aggregate(ins, {});
  ASSERT_EQ(r.kernels[0].lines.size(), 1u);
  EXPECT_EQ(r.kernels[0].lines[0].worst.offset[1], 8u);
  EXPECT_EQ(r.kernels[0].lines[0].worst_wavefronts, 2);
}

TEST(TraceReport, TextNamesTheLineTheExcessTheHintAndAPastableExplainCommand) {
  std::ostringstream s;
  bt::write_report(s, bt::Format::Text, sample_report(), {});
  const std::string t = s.str();
  EXPECT_NE(t.find("kernel column: 6 warp instructions, 99 wavefronts, minimum 6, excess 93"), std::string::npos) << t;
  EXPECT_NE(t.find("k.cu:7: 3 warp instructions, 96 wavefronts, minimum 3, excess 93"), std::string::npos) << t;
  EXPECT_NE(t.find("32-way"), std::string::npos) << t;
  EXPECT_NE(t.find("banklab explain --line \"st 4 ffffffff 0 128 256 "), std::string::npos) << t;
  EXPECT_NE(t.find("not modelled: atomics: bulk copy (cp.async.bulk"), std::string::npos) << t;
  EXPECT_NE(t.find(": 2 warp instructions"), std::string::npos) << t;
  EXPECT_LT(t.find("k.cu:7"), t.find("k.cu:9")) << "the worst line comes first";
}

TEST(TraceReport, CsvHasAHeaderAndOneRowPerLineAndUnmodelledEntry) {
  std::ostringstream s;
  bt::write_report(s, bt::Format::Csv, sample_report(), {});
  std::istringstream in(s.str());
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(in, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0], "kernel,file,line,pc,warp_instructions,wavefronts,minimum,excess,worst_access");
  EXPECT_EQ(rows[1].rfind("column,k.cu,7,64,3,96,3,93,st 4 ffffffff 0 128 ", 0), 0u) << rows[1];
}

TEST(TraceReport, JsonCarriesTheSameFiguresAndEscapesStrings) {
  std::vector<bt::Instruction> ins;
  std::vector<bt::Unmodelled> un;
  bt::decode(sample(), ins, un);
  ins[0].file = "dir \"x\"\\k.cu";
  ins[0].line = 7;
  std::ostringstream s;
  bt::write_report(s, bt::Format::Json, bt::aggregate(ins, un), {});
  const std::string j = s.str();
  EXPECT_NE(j.find("\"file\":\"dir \\\"x\\\"\\\\k.cu\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"excess\":93"), std::string::npos) << j;
  EXPECT_NE(j.find("\"load_instructions\":3,\"load_wavefronts\":3,\"store_instructions\":3,\"store_wavefronts\":96"),
            std::string::npos) << j;
  EXPECT_NE(j.find("\"what\":\"bulk copy (cp.async.bulk"), std::string::npos) << j;
  EXPECT_NE(j.find("\"count\":2}"), std::string::npos) << j;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : j) {
    if (in_string) { if (escaped) escaped = false; else if (c == '\\') escaped = true; else if (c == '"') in_string = false; continue; }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') { --depth; ASSERT_GE(depth, 0); }
  }
  EXPECT_EQ(depth, 0);
  EXPECT_FALSE(in_string);
}

TEST(TraceReport, PredictFormatIsReadByThePredictParserWithTheSameWavefronts) {
  std::vector<bt::Instruction> ins;
  const bt::Report r = sample_report(&ins);
  std::ostringstream s;
  bt::write_report(s, bt::Format::Predict, r, ins);
  std::istringstream in(s.str());
  std::string line;
  std::vector<int> wavefronts, traced;
  while (std::getline(in, line)) {
    if (line.rfind("# traced cost: ", 0) == 0) traced.push_back(std::stoi(line.substr(15)));
    if (banklab::is_blank_or_comment(line)) continue;
    banklab::WarpAccess a;
    const auto err = banklab::parse_access_line(line, a);
    ASSERT_FALSE(err) << *err << " in " << line;
    wavefronts.push_back(banklab::count_wavefronts(a));
  }
  EXPECT_EQ(wavefronts, (std::vector<int>{32, 1, 1, 4}));
  EXPECT_EQ(traced, wavefronts);  // no recorded sources here: the tracer's cost is predict's
}

TEST(TraceReport, RecordedTraceFixtureDecodesToTheKernelsItHolds) {
  const std::optional<Recorded> rec = recorded("trace_demo.bltrace");
  if (!rec) GTEST_SKIP() << "no recorded fixture trace_demo.bltrace";
  const auto& [d, ins, un] = *rec;
  const bt::Report r = bt::aggregate(ins, un, d.dropped);
  ASSERT_EQ(r.kernels.size(), 2u);
  // The unpadded transpose (worst first) reads columns: 32-way; the padded one is at the minimum.
  EXPECT_GT(r.kernels[0].excess(), 0u);
  EXPECT_NE(bt::display_name(r.kernels[0].kernel).find("transpose_tile<0>"), std::string::npos);
  EXPECT_EQ(r.kernels[1].excess(), 0u);
  EXPECT_GT(r.kernels[0].lines[0].line, 0) << "the fixture was built with -lineinfo";
  // Recorded on an H200 with trace_demo 256 (8 x 8 blocks of 8 warps, 4 loads and 4 stores a
  // warp); at 1024 the same kernels matched Nsight Compute exactly (docs/perf/trace_vs_ncu.md).
  EXPECT_EQ(r.kernels[0].warp_instructions, 4096u);
  EXPECT_EQ(r.kernels[0].wavefronts, 2048u * 32 + 2048u);
  EXPECT_EQ(r.kernels[1].warp_instructions, 4096u);
  EXPECT_EQ(r.kernels[1].wavefronts, 4096u);
  EXPECT_NE(r.kernels[0].lines[0].file.find("trace_demo.cu"), std::string::npos);
  EXPECT_TRUE(un.empty());
  EXPECT_EQ(d.dropped, 0u);
}

}  // namespace

// bench/trace_ops.cu traced on the H200 (bench/trace_model_device.sh), with Nsight Compute's
// counts of the same run: instructions and wavefronts per kernel, split as ncu splits them.
TEST(TraceReport, RecordedLdmatrixStmatrixCpAsyncAtomicsEqualNsightCompute) {
  const std::optional<Recorded> rec = recorded("trace_ops.bltrace");
  ASSERT_TRUE(rec) << "the fixture trace_ops.bltrace is missing";
  const auto& [d, ins, un] = *rec;
  const bt::Report r = bt::aggregate(ins, un, d.dropped);
  std::map<std::string, const bt::KernelReport*> by;
  for (const auto& k : r.kernels) {
    const std::string n = bt::display_name(k.kernel);
    const std::size_t at = n.find("::") + 2;  // after "(anonymous namespace)::"
    by[n.substr(at, n.find('(', at) - at)] = &k;
  }
  struct Want { const char* kernel; std::uint64_t ld_i, ld_w, st_i, st_w, cp_i, cp_w, at_i, at_w; };
  // ncu: smsp__inst_executed_op_{shared_ld + ldsm, shared_st + shared_stsm, ldgsts, shared_atom},
  // l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld, st}, LDGSTS = shared - ld - st - atom - misc.
  const Want want[] = {
      {"ldsm_x4_rowmajor", 8, 256, 512, 512, 0, 0, 0, 0},   {"ldsm_x4_swizzled", 8, 32, 512, 512, 0, 0, 0, 0},
      {"ldsm_x4_trans_rowmajor", 8, 256, 512, 512, 0, 0, 0, 0}, {"ldsm_x2_rowmajor", 8, 128, 512, 512, 0, 0, 0, 0},
      {"ldsm_x1_rowmajor", 8, 64, 512, 512, 0, 0, 0, 0},    {"ldsm_x4_packed", 8, 32, 512, 512, 0, 0, 0, 0},
      {"stsm_x4_rowmajor", 8, 16, 24, 768, 0, 0, 0, 0},     {"stsm_x4_swizzled", 8, 16, 24, 96, 0, 0, 0, 0},
      {"stsm_x2_trans_rowmajor", 8, 16, 24, 384, 0, 0, 0, 0}, {"cpasync16_ca_column", 8, 16, 0, 0, 24, 768, 0, 0},
      {"cpasync8_ca_stride2", 8, 16, 0, 0, 24, 96, 0, 0},   {"cpasync4_ca_column", 8, 16, 0, 0, 24, 768, 0, 0},
  };
  for (const Want& w : want) {
    ASSERT_TRUE(by.count(w.kernel)) << w.kernel;
    const bt::KernelReport& k = *by[w.kernel];
    EXPECT_EQ(k.load_instructions, w.ld_i) << w.kernel;
    EXPECT_EQ(k.load_wavefronts, w.ld_w) << w.kernel;
    EXPECT_EQ(k.store_instructions, w.st_i) << w.kernel;
    EXPECT_EQ(k.store_wavefronts, w.st_w) << w.kernel;
    EXPECT_EQ(k.async_copy_instructions, w.cp_i) << w.kernel;
    EXPECT_EQ(k.async_copy_wavefronts, w.cp_w) << w.kernel;
  }
}

// The same recorded run: the atomics. The patch callback does not say which atomic ran; the
// decoder reads the instruction at the pc in the recorded module. atom32_histogram's
// `atomicAdd(&hist[k], 1u)` (result unused) is ATOMS.POPC.INC, the others are not; atomicCAS is
// ATOMS.CAS (twice the wavefronts of an exchange); a 64-bit atomicAdd is a CAS loop
// (ATOMS.CAST.SPIN.64) whose every executed pass costs 2 wavefronts per half-warp.
TEST(TraceReport, RecordedAtomicsAreToldApartByTheirInstruction) {
  const std::optional<Recorded> rec = recorded("trace_ops.bltrace");
  ASSERT_TRUE(rec) << "the fixture trace_ops.bltrace is missing";
  const auto& [d, ins, un] = *rec;
  std::map<std::string, std::set<banklab::Op>> ops;
  for (const bt::Instruction& i : ins) {
    if (i.access.op != banklab::Op::Atomic && i.access.op != banklab::Op::AtomicIncrement &&
        i.access.op != banklab::Op::AtomicCas && i.access.op != banklab::Op::AtomicCasLoop)
      continue;
    const std::string n = bt::display_name(i.kernel);
    const std::size_t at = n.find("::") + 2;
    ops[n.substr(at, n.find('(', at) - at)].insert(i.access.op);
  }
  EXPECT_EQ(ops["atom32_histogram"], std::set<banklab::Op>{banklab::Op::AtomicIncrement});
  EXPECT_EQ(ops["atom32_sameword_value"], std::set<banklab::Op>{banklab::Op::Atomic});
  EXPECT_EQ(ops["atom32_cas_column"], std::set<banklab::Op>{banklab::Op::AtomicCas});
  EXPECT_EQ(ops["atom64_stride"], std::set<banklab::Op>{banklab::Op::AtomicCasLoop});
  const bt::Report r = bt::aggregate(ins, un, d.dropped);
  for (const auto& k : r.kernels) {
    const std::string n = bt::display_name(k.kernel);
    // ncu on the same run (docs/perf/trace_ops_vs_ncu_h200.csv): atomic instructions, wavefronts.
    if (n.find("atom32_histogram") != std::string::npos) {
      EXPECT_EQ(k.atomic_instructions, 24u);
      EXPECT_EQ(k.atomic_wavefronts, 48u);
    }
    if (n.find("atom64_stride") != std::string::npos) {
      EXPECT_EQ(k.atomic_instructions, 96u);
      EXPECT_EQ(k.atomic_wavefronts, 384u);
    }
    if (n.find("atom32_cas_column") != std::string::npos) {  // 768 before ATOMS.CAS was told apart
      EXPECT_EQ(k.atomic_instructions, 24u);
      EXPECT_EQ(k.atomic_wavefronts, 1536u);
    }
  }
}

TEST(TraceDecode, ReadsTheAtomicsOperationFromItsSassWord) {
  // ptxas 13.0, sm_90, from tools/calibrate/worker.cu (cuobjdump -sass on the H200 shows the low
  // words): ATOMS.POPC.INC.32 RZ, [R2+UR4]; ATOMS.ADD R5, [R2+UR4], R5; ATOMS.CAST.SPIN.64.
  EXPECT_EQ(bt::atoms_kind({0x0000000002ff7f8cull, 0x004fe2000d800004ull}), bt::AtomsKind::PopcInc);
  EXPECT_NE(bt::atoms_kind({0x000000050205798cull, 0x004e240008000004ull}), bt::AtomsKind::PopcInc);
  EXPECT_NE(bt::atoms_kind({0x000000040906738dull, 0x000e240001800406ull}), bt::AtomsKind::PopcInc);
  EXPECT_NE(bt::atoms_kind({0x000000050005738cull, 0x004e280004000000ull}), bt::AtomsKind::PopcInc);  // ATOMS.EXCH
  // The other shared atomics (ptxas 13.0, sm_90, tools/calibrate/worker.cu; the H200's cuobjdump
  // names them): ATOMS.EXCH, ATOMS.MIN RZ, ATOMS.EXCH.64, ATOMS.CAS, ATOMS.CAS.64,
  // ATOMS.CAST.SPIN (float add), ATOMS.CAST.SPIN.64, LDS.64.
  EXPECT_EQ(bt::atoms_kind({0x000000050205798cull, 0x004e24000c000004ull}), bt::AtomsKind::Operation);
  EXPECT_EQ(bt::atoms_kind({0x0000000502ff798cull, 0x004fe20008800004ull}), bt::AtomsKind::Operation);
  EXPECT_EQ(bt::atoms_kind({0x000000020502798cull, 0x004e24000c000404ull}), bt::AtomsKind::Operation);
  EXPECT_EQ(bt::atoms_kind({0x000000040000738dull, 0x000e240000000005ull}), bt::AtomsKind::Cas);
  EXPECT_EQ(bt::atoms_kind({0x000000040904738dull, 0x000e240000000406ull}), bt::AtomsKind::Cas);
  EXPECT_EQ(bt::atoms_kind({0x000000060007738dull, 0x000e240001800007ull}), bt::AtomsKind::CasSpin);
  EXPECT_EQ(bt::atoms_kind({0x000000040906738dull, 0x000e240001800406ull}), bt::AtomsKind::CasSpin);
  EXPECT_EQ(bt::atoms_kind({0x0000000402047984ull, 0x000e240008000a00ull}), bt::AtomsKind::NotAtoms);
  EXPECT_EQ(bt::atoms_kind({0x0000000002ff7f8cull, 0x004fe2000d800004ull}), bt::AtomsKind::PopcInc);
  EXPECT_EQ(bt::atom_op_of(bt::AtomsKind::Operation, 8), banklab::Op::AtomicExchange);
  EXPECT_EQ(bt::atom_op_of(bt::AtomsKind::Operation, 4), banklab::Op::Atomic);
  EXPECT_EQ(bt::atom_op_of(bt::AtomsKind::CasSpin, 4), banklab::Op::AtomicCasLoop);
  const std::string junk = "not an ELF image";
  EXPECT_FALSE(bt::SassText::from_cubin(junk.data(), junk.size()).at("k", 0).has_value());
}

TEST(TraceDecode, DropsTheClusterRankFromTheWindowOffset) {
  auto r = record(0x30, bt::kFlagRead, 4, 4);
  for (auto& o : r.offset) o += 6u << 24;  // block rank 6 of its cluster
  const auto [ins, un] = decode_records({r}, "cluster");
  ASSERT_EQ(ins.size(), 1u);
  EXPECT_TRUE(un.empty());
  EXPECT_EQ(ins[0].access.offset[1], 4u);
  EXPECT_EQ(bt::cost_of(ins[0].access).wavefronts, 1);
}

namespace {

// A cp.async record as the patch writes it since it keeps the global side: lane i writes shared
// offset shared[i] and reads global address source[i] (kFlagSourceBanks, the source bank above
// bit 24 with the lane's "had a source" bit).
bt::DeviceRecord cp_async_record(int width, std::uint32_t mask, const std::array<std::uint32_t, 32>& shared,
                                 const std::array<std::uint64_t, 32>& source) {
  bt::DeviceRecord r{};
  r.pc = 0x40;
  r.mask = mask;
  r.kind = bt::kKindCpAsync;
  r.width = static_cast<std::uint8_t>(width);
  r.flags = bt::kFlagSourceBanks;
  for (int i = 0; i < 32; ++i)
    r.offset[i] = (bt::kSharedWindowReservedBytes + shared[i]) | bt::kSourceKnownBit |
                  static_cast<std::uint32_t>((source[i] >> 2) & 31u) << bt::kSourceBankShift;
  return r;
}

std::vector<bt::Instruction> decoded(const bt::DeviceRecord& r) {
  const Decoded d = decode_records({r}, "copy");
  EXPECT_TRUE(d.un.empty());
  return d.ins;
}

std::array<std::uint32_t, 32> stride(std::uint32_t bytes) {
  std::array<std::uint32_t, 32> a{};
  for (std::uint32_t i = 0; i < 32; ++i) a[i] = bytes * i;
  return a;
}
std::array<std::uint64_t, 32> source_stride(std::uint64_t base, std::uint64_t bytes) {
  std::array<std::uint64_t, 32> a{};
  for (std::uint64_t i = 0; i < 32; ++i) a[i] = base + bytes * i;
  return a;
}

}  // namespace

// 32 lanes copy 4 contiguous global bytes each into 4 contiguous shared bytes: the H200 serves
// it in 1 wavefront (probe_h200_cpasync_source.csv, cpsrc_stride1_w4_srcwi); the tracer before
// it kept sources took lane i's source at 16 * i and said 4.
TEST(TraceDecode, CostsACpAsyncFromContiguousGlobalMemoryWithItsSourceBanks) {
  const auto ins = decoded(cp_async_record(4, 0xffffffffu, stride(4), source_stride(0x7f0000001000ull, 4)));
  ASSERT_EQ(ins.size(), 1u);
  ASSERT_TRUE(ins[0].source_banks.has_value());
  EXPECT_EQ((*ins[0].source_banks)[5], 5);
  EXPECT_EQ(ins[0].access.offset[5], 20u);
  EXPECT_EQ(bt::cost_of(ins[0]).wavefronts, 1);
  EXPECT_EQ(bt::cost_of(ins[0].access).wavefronts, 4) << "the same shared side with lane i at 16 * i";
  // The same copy from 16 * i (each lane its own 16-byte chunk, as the calibration rows): 4.
  const auto chunked = decoded(cp_async_record(4, 0xffffffffu, stride(4), source_stride(0x7f0000001000ull, 16)));
  EXPECT_EQ(bt::cost_of(chunked[0]).wavefronts, 4);
}

// Trace files written before the tracer kept sources (e.g. the recorded H200 traces in
// tests/data) have cp.async records with flags 0: they decode exactly as before, with no
// sources, whatever the bits above the 24-bit shared offset hold (a cluster rank).
TEST(TraceDecode, ACpAsyncRecordOfAnOlderTraceFileDecodesAsBefore) {
  auto old = record(0x40, 0, 4, 4, 0xffffffffu, bt::kKindCpAsync);
  for (auto& o : old.offset) o += 3u << 24;  // block rank 3 of its cluster
  const auto ins = decoded(old);
  ASSERT_EQ(ins.size(), 1u);
  EXPECT_FALSE(ins[0].source_banks.has_value());
  EXPECT_EQ(ins[0].access.op, banklab::Op::AsyncCopy);
  EXPECT_EQ(ins[0].access.offset[31], 124u);
  EXPECT_EQ(bt::cost_of(ins[0]).wavefronts, 4);
  EXPECT_EQ(bt::cost_of(ins[0]).wavefronts, bt::cost_of(ins[0].access).wavefronts);
  std::ostringstream json;
  bt::write_report(json, bt::Format::Json, bt::aggregate(ins, {}), ins);
  EXPECT_EQ(json.str().find("source_banks"), std::string::npos) << json.str();
}

// A zero-filling cp.async (src-size 0) gives the callback no source: the lane reads nothing and
// waits on no source bank; the reports print it as "z". Every row of the H200's replays of
// cuBLAS's own copies as zero fills (common/data/probe_h200_cpasync_zfill.csv: every lane, or the
// odd lanes only), recorded as the patch records them, costs what ncu measured.
TEST(TraceDecode, AZeroFillingCpAsyncReadsNoSourceAndCostsWhatTheH200Measured) {
  auto r = cp_async_record(4, 0xffffffffu, stride(4), source_stride(0, 4));
  for (int i = 16; i < 32; ++i) r.offset[i] &= ~(bt::kSourceKnownBit | 31u << bt::kSourceBankShift);
  const auto ins = decoded(r);
  ASSERT_EQ(ins.size(), 1u);
  EXPECT_EQ((*ins[0].source_banks)[3], 3);
  EXPECT_EQ((*ins[0].source_banks)[17], bt::kNoSourceBank);
  EXPECT_EQ(bt::source_banks_text(ins[0].access, ins[0].source_banks).substr(0, 12), "0 1 2 3 4 5 ");
  EXPECT_NE(bt::source_banks_text(ins[0].access, ins[0].source_banks).find("15 z z"), std::string::npos);
  // A conflict-free row, half read and half zero-filled: 1 wavefront, and 1 more for the mix.
  EXPECT_EQ(bt::cost_of(ins[0]).wavefronts, 2);

  const auto rows = banklab::read_sourced_copies_file(std::string(BANKLAB_DATA_DIR) + "/probe_h200_cpasync_zfill.csv");
  ASSERT_EQ(rows.size(), 724u);
  for (const banklab::SourcedCopy& c : rows) {
    auto rec = cp_async_record(c.access.width, c.access.mask, c.access.offset, c.source);
    for (int i = 0; i < 32; ++i)
      if (c.source[i] == banklab::kNoSource) rec.offset[i] &= ~(bt::kSourceKnownBit | 31u << bt::kSourceBankShift);
    const auto d = decoded(rec);
    ASSERT_EQ(d.size(), 1u) << c.id;
    EXPECT_EQ(bt::cost_of(d[0]).wavefronts, c.wavefronts) << c.id;
  }
}

// Every row of the H200 probe of cp.async's global side (bench/experiments/cpasync_source/cpasync_source_probe.cu: 4- and
// 8-byte copies, sources 16 * i, width * i and 16 * (i ^ 8)), as the patch records it, costs
// what ncu measured. (On the GPU, bench/experiments/cpasync_source/cpasync_source_trace.sh traces the probe itself.)
TEST(TraceDecode, CpAsyncRecordsWithSourcesCostWhatTheH200MeasuredForEveryProbeRow) {
  const auto rows = banklab::read_measurements_file(std::string(BANKLAB_DATA_DIR) + "/probe_h200_cpasync_source.csv");
  ASSERT_EQ(rows.size(), 42u);
  int old_equal = 0;
  for (const banklab::Measurement& m : rows) {
    const std::string src = m.id.substr(m.id.rfind('_') + 1);
    std::array<std::uint64_t, 32> source{};
    for (std::uint64_t i = 0; i < 32; ++i)
      source[i] = 0x7f0000000000ull + (src == "src16i" ? 16u * i : src == "srcwi" ? m.access.width * i : 16u * (i ^ 8u));
    ASSERT_TRUE(src == "src16i" || src == "srcwi" || src == "src16xor8") << m.id;
    const auto ins = decoded(cp_async_record(m.access.width, m.access.mask, m.access.offset, source));
    ASSERT_EQ(ins.size(), 1u) << m.id;
    EXPECT_EQ(bt::cost_of(ins[0]).wavefronts, m.wavefronts) << m.id;
    old_equal += bt::cost_of(ins[0].access).wavefronts == m.wavefronts;
  }
  EXPECT_LT(old_equal, 42) << "some row must tell the sources from 16 * i";
}

// bench/experiments/cpasync_source/cpasync_source_probe.cu's 42 launches traced in one run on the H200 by the tracer that
// keeps sources (bench/experiments/cpasync_source/cpasync_source_trace.sh; launches with the same lanes, offsets and source
// banks merge): every recorded instruction is a probe row's shared side with that row's source
// banks, and costs what ncu measured for it; every row is recorded.
TEST(TraceReport, RecordedCpAsyncSourceProbeEqualsNsightComputeRowByRow) {
  const std::optional<Recorded> rec = recorded("cpasync_source.bltrace");
  ASSERT_TRUE(rec) << "the fixture cpasync_source.bltrace is missing";
  const auto& [d, ins, un] = *rec;
  EXPECT_TRUE(un.empty());
  const auto rows = banklab::read_measurements_file(std::string(BANKLAB_DATA_DIR) + "/probe_h200_cpasync_source.csv");
  ASSERT_EQ(rows.size(), 42u);
  std::set<std::string> matched;
  std::uint64_t executed = 0;
  for (const bt::Instruction& i : ins) {
    ASSERT_EQ(i.access.op, banklab::Op::AsyncCopy);
    ASSERT_TRUE(i.source_banks.has_value()) << "a record of the tracer that keeps sources";
    executed += i.count;
    int rows_here = 0;
    for (const banklab::Measurement& m : rows) {
      if (m.access.width != i.access.width || m.access.mask != i.access.mask) continue;
      bool same = true;
      for (int l = 0; l < 32; ++l) {
        if (!(m.access.mask >> l & 1u)) continue;
        const std::string src = m.id.substr(m.id.rfind('_') + 1);
        const unsigned lane = static_cast<unsigned>(l);
        const unsigned from = src == "src16i" ? 16u * lane : src == "srcwi" ? m.access.width * lane : 16u * (lane ^ 8u);
        same = same && m.access.offset[l] == i.access.offset[l] && (*i.source_banks)[l] == (from / 4u) % 32u;
      }
      if (!same) continue;
      ++rows_here;
      matched.insert(m.id);
      EXPECT_EQ(bt::cost_of(i).wavefronts, m.wavefronts) << m.id;
    }
    EXPECT_GT(rows_here, 0) << banklab::format_access_line(i.access) << " is no probe row";
  }
  EXPECT_EQ(executed, 42u) << "one cp.async per launch";
  EXPECT_EQ(matched.size(), 42u);
}

// The reports say which sources a cp.async's cost counts when explain's 16 * i is not them.
TEST(TraceReport, ACpAsyncsSourceBanksAreShownWhereExplainWouldTakeOthers) {
  auto ins = decoded(cp_async_record(4, 0xffffffffu, stride(4), source_stride(0, 4)));
  auto chunked = decoded(cp_async_record(4, 0xffffffffu, stride(8), source_stride(0, 16)));
  ins[0].line = 3;
  chunked[0].line = 4;
  ins.push_back(chunked[0]);
  const bt::Report r = bt::aggregate(ins, {});
  std::ostringstream json, text, predict;
  bt::write_report(json, bt::Format::Json, r, ins);
  bt::write_report(text, bt::Format::Text, r, ins);
  bt::write_report(predict, bt::Format::Predict, r, ins);
  EXPECT_EQ(bt::source_banks_text(chunked[0].access, chunked[0].source_banks), "");
  const std::string banks = bt::source_banks_text(ins[0].access, ins[0].source_banks);
  EXPECT_EQ(banks.rfind("0 1 2 3 ", 0), 0u) << banks;
  EXPECT_NE(predict.str().find("# global source banks (the line below takes 16 * i): " + banks), std::string::npos)
      << predict.str();
  // Contiguous sources: a conflict-free row of 32 x 4 bytes is 1 wavefront where explain's 16 * i
  // makes it 4 (probe_h200_cpasync_source.csv); the predict output says what the tracer charged.
  EXPECT_EQ(bt::cost_of(ins[0]).wavefronts, 1);
  EXPECT_NE(predict.str().find("# traced cost: 1 wavefronts a warp instruction, minimum 1\n"), std::string::npos)
      << predict.str();
  // JSON names line 3's banks (contiguous), not line 4's (16 * i); the text shows sources only
  // under an excess, and only line 4 (two lanes per bank) has one.
  const std::string j = json.str();
  EXPECT_NE(j.find("\"worst_source_banks\":\"" + banks + "\""), std::string::npos) << j;
  EXPECT_EQ(j.find("worst_source_banks"), j.rfind("worst_source_banks")) << j;
  EXPECT_EQ(text.str().find("explain takes lane i's global source"), std::string::npos) << text.str();
  // A line whose worst instance reads elsewhere than 16 * i names its banks.
  auto strided = decoded(cp_async_record(4, 0xffffffffu, stride(128), source_stride(0, 4)));
  std::ostringstream j2, t2;
  bt::write_report(j2, bt::Format::Json, bt::aggregate(strided, {}), strided);
  bt::write_report(t2, bt::Format::Text, bt::aggregate(strided, {}), strided);
  EXPECT_NE(j2.str().find("\"worst_source_banks\":\"0 1 2 3 "), std::string::npos) << j2.str();
  EXPECT_NE(t2.str().find("these lanes read global words in banks 0 1 2 3 "), std::string::npos) << t2.str();
}

// The trace file keeps only the module images decode() can look a recorded kernel's lines up
// in: its own, and where that has no rows for it, every image that has (or every image, where
// it has no image of its own).
TEST(TraceImages, KeepsOnlyTheImagesTheRecordedKernelsLinesCanComeFrom) {
  std::ifstream in(BANKLAB_TRACE_LINES_CUBIN, std::ios::binary);
  ASSERT_TRUE(in) << BANKLAB_TRACE_LINES_CUBIN;
  const std::string lined((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string bare(100, 'x');  // an image with no line rows
  auto kernels = [](std::uint32_t other, std::uint32_t store) {
    std::vector<bt::KernelInfo> k(2);
    k[0].name = "other";
    k[0].module = other;
    k[1].name = "column_store";
    k[1].module = store;
    return k;
  };
  std::vector<bt::MergedRecord> store_recorded(1);
  store_recorded[0].kernel = 1;
  using V = std::vector<bool>;
  // Its own image has its rows: that one alone (not the copy beside it, not the unrecorded kernel's).
  EXPECT_EQ(bt::needed_images({bare, lined, lined}, kernels(0, 1), store_recorded), V({false, true, false}));
  // Its own image has no rows for it: also every image that has them, as decode() looks there.
  EXPECT_EQ(bt::needed_images({bare, bare, lined}, kernels(0, 1), store_recorded), V({false, true, true}));
  // No image of its own: decode() may find it by name in any, so every image.
  EXPECT_EQ(bt::needed_images({bare, lined, ""}, kernels(0, 2), store_recorded), V({true, true, true}));
  // Nothing recorded: nothing needed.
  EXPECT_EQ(bt::needed_images({bare, lined}, kernels(0, 1), {}), V({false, false}));
}

namespace {
// bench/trace_atomics.cu traced on the H200 (bench/experiments/shared_atomics/atomics_device.sh, 2026-11-24) and, in the same
// call, profiled by ncu (docs/perf/trace_atomics_vs_ncu_h200.csv): shared-atomic instructions and
// wavefronts per kernel as ncu counted them, and whether two warps of a block run their atomics
// on the same words (then the passes of a CAS loop depend on how the warps interleave, which
// differs from run to run: only the wavefronts per pass can be compared).
struct NcuAtomics {
  const char* kernel;
  std::uint64_t instructions, wavefronts;
  bool contended;
};
}  // namespace

TEST(TraceReport, EverySharedAtomicKindOfTheRecordedRunCostsWhatNcuCounted) {
  const std::optional<Recorded> rec = recorded("trace_atomics.bltrace");
  ASSERT_TRUE(rec) << "the fixture trace_atomics.bltrace is missing";
  const auto& [d, ins, un] = *rec;
  const bt::Report r = bt::aggregate(ins, un, d.dropped);
  const NcuAtomics ncu[] = {
      {"a32_exch_column", 24, 768, false},     {"a32_min_sameword", 24, 768, false},
      {"a32_max_share2", 24, 48, false},       {"a32_or_unused_histogram", 24, 48, false},
      {"a32_inc_histogram", 24, 48, false},    {"a32_add_unused_value", 24, 48, false},
      {"f32_add_histogram", 48, 96, false},    {"f32_add_sameword_value", 1508, 3016, true},
      {"a64_exch_stride", 24, 192, false},     {"a64_cas_column", 24, 1536, false},
      {"a64_min_share4", 28, 112, true},       {"f64_add_stride", 48, 192, false}};
  int seen = 0;
  for (const NcuAtomics& n : ncu) {
    for (const auto& k : r.kernels) {
      const std::string name = bt::display_name(k.kernel);
      if (name.find(std::string("::") + n.kernel + "(") == std::string::npos) continue;
      ++seen;
      if (!n.contended) {
        EXPECT_EQ(k.atomic_instructions, n.instructions) << n.kernel;
        EXPECT_EQ(k.atomic_wavefronts, n.wavefronts) << n.kernel;
      } else {  // per pass: ncu's wavefronts / instructions
        EXPECT_EQ(k.atomic_wavefronts * n.instructions, n.wavefronts * k.atomic_instructions) << n.kernel;
      }
    }
  }
  EXPECT_EQ(seen, 12);
}

// wgmma operand reads and TMA copies (issue 24): costed by the rules measured on the H200
// (common/data/hopper_h200_{wgmma,tma}.csv), not by the lane-by-lane model.
namespace {
bt::DeviceRecord wgmma_record(std::uint64_t pc, std::uint32_t size_a, std::uint32_t size_b, int rank,
                              std::uint32_t warp_mask = 0xffffffffu) {
  bt::DeviceRecord r{};
  r.pc = pc;
  r.mask = 0xffffffffu;
  r.kind = bt::kKindWgmma;
  r.flags = bt::kFlagWgmmaOperands;
  r.reserved = static_cast<std::uint8_t>(rank);
  r.offset[bt::kWgmmaAddressA] = 0x400;
  r.offset[bt::kWgmmaSizeA] = size_a;
  r.offset[bt::kWgmmaAddressB] = 0x2400;
  r.offset[bt::kWgmmaSizeB] = size_b;
  r.offset[bt::kWgmmaWarpMask] = warp_mask;
  return r;
}

bt::DeviceRecord tma_record(std::uint64_t pc, std::uint8_t kind, std::optional<std::uint32_t> bytes) {
  bt::DeviceRecord r{};
  r.pc = pc;
  r.mask = 0x1u;  // one elected lane issues it
  r.kind = kind;
  r.width = 2;
  r.flags = bytes ? bt::kFlagTmaBytes : bt::kFlagTmaUnknownMap;
  if (bytes) {
    r.offset[bt::kTmaBytes] = *bytes;
    r.offset[bt::kTmaSwizzle] = 3;
    r.offset[bt::kTmaElementBytes] = 2;
    r.offset[bt::kTmaRank] = 2;
  }
  return r;
}

struct WgmmaCase {
  const char* name;
  std::uint32_t size_a, size_b;  // bytes the warpgroup instruction reads from shared memory
  std::uint64_t wavefronts;      // the warpgroup's: what ncu counted (op_gmma), or bytes / 128
};
// m64n64k16 f16 with A and B in shared memory: ncu 32 (hopper_h200_wgmma.csv); A from registers: 16.
// The others follow the same rule (bytes / 128) for shapes the H200 did not run.
const WgmmaCase kWgmmaCases[] = {
    {"m64n64k16_ss_measured", 2048, 2048, 32}, {"m64n64k16_rs_measured", 0, 2048, 16},
    {"m64n128k16_ss", 2048, 4096, 48},         {"m64n256k16_ss", 2048, 8192, 80},
    {"m64n8k16_ss_not_a_multiple_of_4", 2048, 256, 18}, {"m64n24k16_rs", 0, 768, 6},
};
}  // namespace

TEST(TraceWgmma, TheFourWarpsOfAWarpgroupShareItsBytesOver128Exactly) {
  for (const WgmmaCase& c : kWgmmaCases) {
    std::uint64_t bytes = 0, wavefronts = 0;
    for (int rank = 0; rank < 4; ++rank) {
      const bt::WgmmaShare s = bt::wgmma_share(wgmma_record(0x40, c.size_a, c.size_b, rank));
      bytes += s.bytes;
      wavefronts += s.wavefronts;
      EXPECT_LE(s.wavefronts, (c.wavefronts + 3) / 4) << c.name << " rank " << rank;
    }
    EXPECT_EQ(wavefronts, c.wavefronts) << c.name;
    EXPECT_EQ(bytes, std::uint64_t{c.size_a} + c.size_b) << c.name;
    EXPECT_EQ(banklab::wgmma_operand_wavefronts(std::uint64_t{c.size_a} + c.size_b), c.wavefronts) << c.name;
  }
}

TEST(TraceWgmma, AnEmptyWarpMaskReadsNothing) {
  const bt::WgmmaShare s = bt::wgmma_share(wgmma_record(0x40, 2048, 2048, 0, 0u));
  EXPECT_EQ(s.bytes, 0u);
  EXPECT_EQ(s.wavefronts, 0u);
}

namespace {
// One kernel: two wgmma.mma_async (m64n64k16 SS x 3 warpgroups, m64n64k16 RS x 1), a TMA load
// whose box is known (8,192 bytes, twice), one whose map is unknown, a TMA store; an LDS.
bt::TraceData hopper_sample() {
  bt::TraceData d;
  d.cubins.emplace_back();
  d.kernels.push_back(bt::KernelInfo{"gemm", 0, 0x1000, 1});
  bt::Merger m;
  std::vector<bt::DeviceRecord> rs;
  for (int wg = 0; wg < 3; ++wg)
    for (int rank = 0; rank < 4; ++rank) rs.push_back(wgmma_record(0x1100, 2048, 2048, rank));
  for (int rank = 0; rank < 4; ++rank) rs.push_back(wgmma_record(0x1200, 0, 2048, rank));
  rs.push_back(tma_record(0x1300, bt::kKindTmaLoad, 8192u));
  rs.push_back(tma_record(0x1300, bt::kKindTmaLoad, 8192u));
  rs.push_back(tma_record(0x1310, bt::kKindTmaLoad, std::nullopt));
  rs.push_back(tma_record(0x1400, bt::kKindTmaStore, std::nullopt));
  rs.push_back(record(0x1500, bt::kFlagRead, 4, 4));
  m.add(0, rs.data(), rs.size());
  d.records = m.take();
  return d;
}
}  // namespace

TEST(TraceWgmma, DecodeCostsWgmmaAndTmaAsTrafficNotAsModelledInstructions) {
  std::vector<bt::Instruction> ins;
  std::vector<bt::Unmodelled> un;
  std::vector<bt::Traffic> traffic;
  bt::decode(hopper_sample(), ins, un, traffic);
  ASSERT_EQ(ins.size(), 1u);  // the LDS
  EXPECT_TRUE(un.empty());
  struct Want { std::uint64_t pc; bt::TrafficKind kind; std::uint64_t count, bytes, wavefronts, a_regs, unknown; };
  const Want want[] = {
      {0x100, bt::TrafficKind::WgmmaOperands, 12, 3 * 4096, 3 * 32, 0, 0},
      {0x200, bt::TrafficKind::WgmmaOperands, 4, 2048, 16, 4, 0},
      {0x300, bt::TrafficKind::TmaLoad, 2, 2 * 8192, 0, 0, 0},
      {0x310, bt::TrafficKind::TmaLoad, 1, 0, 0, 0, 1},
      {0x400, bt::TrafficKind::TmaStore, 1, 0, 0, 0, 1},
  };
  ASSERT_EQ(traffic.size(), std::size(want));
  for (const Want& w : want) {
    const auto it = std::find_if(traffic.begin(), traffic.end(), [&](const bt::Traffic& t) { return t.pc == w.pc; });
    ASSERT_NE(it, traffic.end()) << "pc " << w.pc;
    EXPECT_EQ(it->kind, w.kind) << "pc " << w.pc;
    EXPECT_EQ(it->count, w.count) << "pc " << w.pc;
    EXPECT_EQ(it->bytes, w.bytes) << "pc " << w.pc;
    EXPECT_EQ(it->wavefronts, w.wavefronts) << "pc " << w.pc;
    EXPECT_EQ(it->a_from_registers, w.a_regs) << "pc " << w.pc;
    EXPECT_EQ(it->unknown_bytes, w.unknown) << "pc " << w.pc;
  }
}

TEST(TraceWgmma, TheJudgesDecodeStillListsThemWithCounts) {
  std::vector<bt::Instruction> ins;
  std::vector<bt::Unmodelled> un;
  bt::decode(hopper_sample(), ins, un);
  std::map<std::string, std::uint64_t> what;
  for (const auto& u : un) what[u.what] += u.count;
  EXPECT_EQ(what["wgmma operand"], 16u);
  EXPECT_EQ(what["TMA load (cp.async.bulk.tensor global -> shared)"], 3u);
  EXPECT_EQ(what["TMA store (cp.async.bulk.tensor shared -> global)"], 1u);
}

TEST(TraceWgmma, AnOlderTraceFilesWgmmaRecordStaysUnmodelled) {
  // The tracer before the operands were kept: matrix A's address in every lane, flags 0.
  const Decoded d = decode_records({record(0x40, 0, 0, 0, 0xffffffffu, bt::kKindWgmma)});
  ASSERT_EQ(d.un.size(), 1u);
  EXPECT_EQ(d.un[0].what, "wgmma operand");
  EXPECT_TRUE(d.ins.empty());
}

TEST(TraceWgmma, ReportsPutWgmmaInTheTotalsAndTmaOnItsOwnLine) {
  std::vector<bt::Instruction> ins;
  std::vector<bt::Unmodelled> un;
  std::vector<bt::Traffic> traffic;
  bt::decode(hopper_sample(), ins, un, traffic);
  bt::Report r = bt::aggregate(ins, un, traffic);
  ASSERT_EQ(r.kernels.size(), 1u);
  const bt::KernelReport& k = r.kernels[0];
  EXPECT_EQ(k.wgmma_instructions, 16u);
  EXPECT_EQ(k.wgmma_wavefronts, 3u * 32 + 16);
  EXPECT_EQ(k.wavefronts, 3u * 32 + 16 + 1);  // + the LDS; TMA adds none
  EXPECT_EQ(k.minimum, k.wavefronts);
  EXPECT_EQ(k.warp_instructions, 17u);
  EXPECT_EQ(k.tma_load_instructions, 3u);
  EXPECT_EQ(k.tma_load_bytes, 16384u);
  EXPECT_EQ(k.tma_load_unknown, 1u);
  EXPECT_EQ(k.tma_store_instructions, 1u);
  r.not_traced = "TMA (test)";
  std::ostringstream text, json;
  bt::write_report(text, bt::Format::Text, r, ins);
  bt::write_report(json, bt::Format::Json, r, ins);
  const std::string t = text.str(), j = json.str();
  EXPECT_NE(t.find("(wgmma operand reads among them: 16 warp instructions, 112 wavefronts)"), std::string::npos) << t;
  EXPECT_NE(t.find("wgmma operand reads at (no -lineinfo) pc 0x100: 12 warp instructions, 12288 bytes read, 96 wavefronts"),
            std::string::npos) << t;
  EXPECT_NE(t.find("TMA loads (cp.async.bulk.tensor global -> shared) at (no -lineinfo) pc 0x300: 2 warp instructions, "
                   "16384 bytes into shared memory, 0 LSU wavefronts"),
            std::string::npos) << t;
  EXPECT_NE(t.find("bytes unknown for 1"), std::string::npos) << t;
  EXPECT_NE(t.find("not traced: TMA (test)"), std::string::npos) << t;
  EXPECT_NE(j.find("\"wgmma_wavefronts\":112"), std::string::npos) << j;
  EXPECT_NE(j.find("\"tma_load_bytes\":16384"), std::string::npos) << j;
  EXPECT_NE(j.find("\"not_traced\":\"TMA (test)\""), std::string::npos) << j;
}

TEST(TraceWgmma, MergingKeepsTheFieldsOfOneLaneRecords) {
  // A TMA record comes from one lane: the merger must not clear the fields in the other words.
  bt::Merger m;
  const bt::DeviceRecord r = tma_record(0x10, bt::kKindTmaLoad, 4096u);
  m.add(0, &r, 1);
  m.add(0, &r, 1);
  const auto merged = m.take();
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].count, 2u);
  EXPECT_EQ(merged[0].record.offset[bt::kTmaBytes], 4096u);
  EXPECT_EQ(merged[0].record.offset[bt::kTmaRank], 2u);
}

namespace {
// Column `name` of a plain CSV (no quoted fields), summed over the rows whose column `key` is `value`.
std::uint64_t csv_sum(const std::string& path, const std::string& name, const std::string& key, const std::string& value) {
  std::ifstream in(path);
  std::string line;
  auto split = [](const std::string& s) {
    std::vector<std::string> f;
    std::stringstream ss(s);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    return f;
  };
  if (!std::getline(in, line)) return 0;
  const auto head = split(line);
  const auto col = std::find(head.begin(), head.end(), name) - head.begin();
  const auto kcol = std::find(head.begin(), head.end(), key) - head.begin();
  std::uint64_t sum = 0;
  while (std::getline(in, line)) {
    const auto f = split(line);
    if (static_cast<std::size_t>(std::max(col, kcol)) < f.size() && f[kcol] == value)
      sum += static_cast<std::uint64_t>(std::stod(f[col]));
  }
  return sum;
}
}  // namespace

// bench/experiments/hopper/wgmma_probe.cu traced on an H200 (bench/experiments/hopper/trace_cublas.sh, 2026-11-26): the
// wgmma operand reads the trace costs are what Nsight Compute counted for the same probe
// (common/data/hopper_h200_wgmma.csv, 73 launches, an H200 on 2026-11-25): wavefronts (op_gmma)
// and warp instructions (sm__sass_inst_executed_op_shared_gmma), A and B in shared memory and A
// from registers apart; and its STS.128 copies as ncu's op_st.
TEST(TraceWgmma, TheRecordedProbeCostsWhatNcuCountedForEveryWgmma) {
  const std::optional<Recorded> rec = recorded("wgmma_probe.bltrace");
  ASSERT_TRUE(rec) << "the fixture wgmma_probe.bltrace is missing";
  std::vector<bt::Instruction> ins;
  std::vector<bt::Unmodelled> un;
  std::vector<bt::Traffic> traffic;
  bt::decode(rec->data, ins, un, traffic);
  const bt::Report r = bt::aggregate(ins, un, traffic, rec->data.dropped);
  EXPECT_TRUE(r.unmodelled.empty());
  // Template argument RS (the last, a bool): A from registers.
  std::uint64_t ss_w = 0, ss_i = 0, rs_w = 0, rs_i = 0, st = 0;
  for (const auto& k : r.kernels) {
    const bool rs = k.kernel.find("Lb1EEEv") != std::string::npos;
    (rs ? rs_w : ss_w) += k.wgmma_wavefronts;
    (rs ? rs_i : ss_i) += k.wgmma_instructions;
    st += k.store_wavefronts;
  }
  const std::string csv = std::string(BANKLAB_DATA_DIR) + "/hopper_h200_wgmma.csv";
  const std::string gmma = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum";
  const std::string inst = "sm__sass_inst_executed_op_shared_gmma.sum";
  EXPECT_EQ(ss_w, csv_sum(csv, gmma, "kernel", "wgmma_ss"));
  EXPECT_EQ(ss_i, csv_sum(csv, inst, "kernel", "wgmma_ss"));
  EXPECT_EQ(rs_w, csv_sum(csv, gmma, "kernel", "wgmma_rs"));
  EXPECT_EQ(rs_i, csv_sum(csv, inst, "kernel", "wgmma_rs"));
  EXPECT_GT(rs_w, 0u);
  const std::string op_st = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
  EXPECT_EQ(st, csv_sum(csv, op_st, "kernel", "wgmma_ss") + csv_sum(csv, op_st, "kernel", "wgmma_rs") +
                    csv_sum(csv, op_st, "kernel", "fill_only"));
}
