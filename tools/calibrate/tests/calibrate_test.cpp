// banklab calibrate: the pattern set, the files it reads and writes, and the command without a GPU.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <bitset>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "banklab/pattern_io.hpp"
#include "calibrate.hpp"
#include "patterns.hpp"
#include "results.hpp"
#include "worker.hpp"

namespace banklab::calibrate {
namespace {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string output;
};

// Run a shell command; its stdout and stderr together, and its exit status.
Result run(const std::string& command) {
  Result r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string exe() { return BANKLAB_CALIBRATE_EXE; }

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("banklab_cal_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

bool same_access(const WarpAccess& a, const WarpAccess& b) {
  return a.op == b.op && a.width == b.width && a.mask == b.mask && a.offset == b.offset;
}

const Pattern* find(const std::vector<Pattern>& v, const std::string& id) {
  auto it = std::find_if(v.begin(), v.end(), [&](const Pattern& p) { return p.id == id; });
  return it == v.end() ? nullptr : &*it;
}

TEST(CalibratePatterns, TheDefaultSetHasAtLeast1000ValidPatternsWithUniqueIds) {
  const cli::CalibrateOptions defaults;
  const auto v = pattern_set(defaults.random, defaults.seed);
  EXPECT_GE(v.size(), 1000u);
  std::set<std::string> ids;
  for (const auto& p : v) {
    EXPECT_FALSE(validate(p.access).has_value()) << p.id << ": " << validate(p.access).value_or("");
    EXPECT_NE(p.access.mask, 0u) << p.id << " has no active lane";
    EXPECT_TRUE(ids.insert(p.id).second) << "duplicate id " << p.id;
    EXPECT_EQ(p.id.find_first_of(", \t\n"), std::string::npos) << p.id << " would break the CSV";
  }
}

TEST(CalibratePatterns, TheSameSeedGivesTheSamePatterns) {
  const auto a = random_patterns(300, 42), b = random_patterns(300, 42);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_TRUE(same_access(a[i].access, b[i].access)) << a[i].id;
  }
}

TEST(CalibratePatterns, DifferentSeedsGiveDifferentPatterns) {
  const auto a = random_patterns(50, 1), b = random_patterns(50, 2);
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += same_access(a[i].access, b[i].access);
  EXPECT_LT(same, 5);
}

TEST(CalibratePatterns, TheNamedCasesIncludeEveryPatternOfTheH200FileUnderTheSameId) {
  const auto named = named_patterns();
  const auto rows = read_measurements_file(std::string(BANKLAB_DATA_DIR) + "/h200_wavefronts_named.csv");
  ASSERT_EQ(rows.size(), 260u);
  for (const auto& m : rows) {
    const Pattern* p = find(named, m.id);
    ASSERT_NE(p, nullptr) << m.id << " is missing from the named cases";
    EXPECT_TRUE(same_access(p->access, m.access)) << m.id << ": " << format_access_line(p->access)
                                                  << "\n   file: " << format_access_line(m.access);
  }
}

TEST(CalibratePatterns, TheMergeCasesMergeAndTheNoMergeCasesDoNot) {
  const auto named = named_patterns();
  for (int w : {8, 16}) {
    for (const char* c : {"merge_i1_partner_off", "merge_i2_masked"}) {
      const std::string id = std::string("n_") + c + "_w" + std::to_string(w) + "_ld";
      const Pattern* p = find(named, id);
      ASSERT_NE(p, nullptr) << id;
      bool merged = false;
      grouping_of(p->access, &merged);
      EXPECT_TRUE(merged) << id;
    }
    for (const char* c : {"nomerge_mixed", "nomerge_onepair", "nomerge_xor4_conflict"}) {
      const std::string id = std::string("n_") + c + "_w" + std::to_string(w) + "_ld";
      const Pattern* p = find(named, id);
      ASSERT_NE(p, nullptr) << id;
      bool merged = true;
      grouping_of(p->access, &merged);
      EXPECT_FALSE(merged) << id;
    }
  }
}

TEST(CalibratePatterns, TheRandomSetMixesWidthsMasksRangesSharingAndMerging) {
  const auto v = random_patterns(800, 1);
  std::set<int> widths;
  int sparse = 0, partial = 0, high = 0, shared_words = 0, merged = 0, stores = 0;
  for (const auto& p : v) {
    const auto& a = p.access;
    widths.insert(a.width);
    const int active = static_cast<int>(std::bitset<32>(a.mask).count());
    sparse += active <= 4;
    partial += active > 4 && active < 32;
    stores += a.op == Op::Store;
    std::set<std::uint32_t> words;
    for (int i = 0; i < kWarpSize; ++i) {
      if (!((a.mask >> i) & 1u)) continue;
      high += a.offset[static_cast<std::size_t>(i)] >= 64u * 1024u;
      words.insert(a.offset[static_cast<std::size_t>(i)] / 4u);
    }
    shared_words += static_cast<int>(words.size()) < active;
    bool m = false;
    grouping_of(a, &m);
    merged += m;
  }
  EXPECT_EQ(widths, (std::set<int>{1, 2, 4, 8, 16}));
  EXPECT_GT(sparse, 40);
  EXPECT_GT(partial, 100);
  EXPECT_GT(high, 100) << "offsets above 64 KiB";
  EXPECT_GT(shared_words, 100) << "patterns where lanes share a word";
  EXPECT_GT(merged, 40) << "64/128-bit loads that merge";
  EXPECT_GT(stores, 300);
  EXPECT_LT(stores, 500);
}

// The committed rows of every family are keyed by id: `banklab calibrate --family F --random 200`
// (seed 1) must still list each one with the same op, width, mask and offsets, so that adding a
// family or a kind never changes what an id means (the atomop family draws from its own stream).
TEST(CalibratePatterns, EveryCommittedFamilyRowIsStillListedUnderItsIdWithItsOffsets) {
  const std::pair<const char*, const char*> files[] = {
      {"ldsm", "calibration_h200_ldsm.csv"},       {"stsm", "calibration_h200_stsm.csv"},
      {"cpasync", "calibration_h200_cpasync.csv"}, {"cpasync", "uncounted_h200_cpasync_cg.csv"},
      {"atom", "calibration_h200_atom.csv"},       {"atomop", "calibration_h200_atomop.csv"},
      {"atomop", "valuedep_h200_atomop.csv"}};
  std::map<std::string, std::size_t> listed, rows_of;
  for (const auto& [family, file] : files) {
    std::map<std::string, WarpAccess> by_id;
    for (const Pattern& p : family_patterns(family, 200, 1)) by_id[p.id] = p.access;
    listed[family] = by_id.size();
    for (const Measurement& m : read_measurements_file(std::string(BANKLAB_DATA_DIR) + "/" + file)) {
      ++rows_of[family];
      const auto it = by_id.find(m.id);
      ASSERT_NE(it, by_id.end()) << file << ": " << m.id << " is no longer listed by --family " << family;
      EXPECT_EQ(it->second.op, m.access.op) << m.id;
      EXPECT_EQ(it->second.width, m.access.width) << m.id;
      EXPECT_EQ(it->second.mask, m.access.mask) << m.id;
      EXPECT_EQ(it->second.offset, m.access.offset) << m.id;
    }
  }
  // Every pattern of the families whose measurement is complete was measured.
  for (const char* f : {"ldsm", "stsm", "cpasync", "atom", "atomop"}) EXPECT_EQ(rows_of[f], listed[f]) << f;
}

TEST(CalibratePatterns, TheAtomopFamilyCoversEveryKindWithNamedAndRandomPatterns) {
  const auto v = family_patterns("atomop", 200, 1);
  std::set<std::string> ids;
  std::map<std::string, int> named, random;
  for (const Pattern& p : v) {
    EXPECT_TRUE(ids.insert(p.id).second) << "duplicate id " << p.id;
    EXPECT_FALSE(validate(p.access).has_value()) << p.id;
    const std::string var = variant_of(p.id);
    ASSERT_FALSE(var.empty()) << p.id;
    const std::string kind = std::to_string(p.access.width) + var;
    (p.id.rfind("atomop_n_", 0) == 0 ? named : random)[kind]++;
    const auto k = std::find_if(std::begin(kAtomOpKinds), std::end(kAtomOpKinds), [&](const AtomOpKind& x) {
      return x.width == p.access.width && var == x.variant;
    });
    ASSERT_NE(k, std::end(kAtomOpKinds)) << p.id;
    EXPECT_EQ(p.access.op, k->op) << p.id << ": the model's op for " << k->ptx;
    EXPECT_EQ(kernel_name(p), kernel_name(Op::Atomic, k->width) + "_" + k->variant) << p.id;
  }
  EXPECT_EQ(v.size(), 434u);
  int drawn = 0;
  for (const AtomOpKind& k : kAtomOpKinds) {
    const std::string kind = std::to_string(k.width) + k.variant;
    EXPECT_EQ(named[kind], 13) << kind;  // same word, same bank, distinct banks, sharing, masks
    EXPECT_GE(random[kind], 1) << kind;  // the draw is uniform over the kinds: 2 to 17 each with seed 1
    drawn += random[kind];
  }
  EXPECT_EQ(drawn, 200);
}

TEST(CalibratePatterns, ThePatternListRoundTrips) {
  const auto v = pattern_set(100, 7);
  const auto back = parse_pattern_list(format_pattern_list(v), "list");
  ASSERT_EQ(back.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(back[i].id, v[i].id);
    EXPECT_TRUE(same_access(back[i].access, v[i].access)) << v[i].id;
  }
}

TEST(CalibrateCsv, WritingRoundTripsThroughReadMeasurements) {
  std::vector<Measurement> rows;
  int k = 0;
  for (const auto& p : pattern_set(50, 3)) {
    Measurement m;
    m.id = p.id;
    m.access = p.access;
    m.wavefronts = 1 + k % 7;
    m.bank_conflicts = k % 5;
    m.instructions = 1;
    m.gpu = "NVIDIA H200, test";
    rows.push_back(m);
    ++k;
  }
  std::stringstream ss;
  write_measurements_csv(ss, rows);
  EXPECT_EQ(ss.str().rfind("id,op,width,mask,offsets,wavefronts,bank_conflicts,instructions,gpu\n", 0), 0u);
  const auto back = read_measurements(ss, "csv");
  ASSERT_EQ(back.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(back[i].id, rows[i].id);
    EXPECT_TRUE(same_access(back[i].access, rows[i].access)) << rows[i].id;
    EXPECT_EQ(back[i].wavefronts, rows[i].wavefronts);
    EXPECT_EQ(back[i].bank_conflicts, rows[i].bank_conflicts);
    EXPECT_EQ(back[i].instructions, 1);
    EXPECT_EQ(back[i].gpu, "NVIDIA H200  test");
  }
}

// The shape of `ncu --csv --print-units base --log-file` output (details page, one row per metric),
// as Nsight Compute 2025.3.1 wrote it on the H200.
std::string ncu_sample() {
  const char* kHeader =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
      "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  std::string s =
      "==WARNING== Note: Running with uncontrolled GPU caches. Profiling results may be inconsistent.\n"
      "==PROF== Connected to process 741 (/work/main/build/gpu/banklab-calibrate-standalone)\n"
      "==PROF== Disconnected from process 741\n";
  s += kHeader;
  auto row = [](int id, const char* kernel, const char* metric, const char* value) {
    return "\"" + std::to_string(id) + "\",\"741\",\"banklab-calibrate-standalone\",\"127.0.0.1\",\"unnamed>::" +
           kernel + "(const unsigned int *, unsigned int, unsigned int *)\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" + metric +
           "\",\"\",\"" + value + "\"\n";
  };
  const char* metrics[] = {kMetricConflictsLd, kMetricConflictsSt, kMetricWavefrontsLd,
                           kMetricWavefrontsSt, kMetricInstLd,      kMetricInstSt};
  const char* v0[] = {"31", "0", "32", "0", "1", "0"};  // a load with 32 wavefronts
  const char* v1[] = {"0", "1", "0", "2", "0", "1"};    // a store with 2
  for (int i = 0; i < 6; ++i) s += row(0, "banklab_cal_ld_w4", metrics[i], v0[i]);
  for (int i = 0; i < 6; ++i) s += row(1, "banklab_cal_st_w8", metrics[i], v1[i]);
  return s;
}

TEST(CalibrateNcu, ParsesNcuCsvOutputIntoOneMeasurementPerLaunch) {
  const auto launches = parse_ncu_csv(ncu_sample());
  ASSERT_EQ(launches.size(), 2u);
  Pattern a{"col", {}}, b{"st8", {}};
  a.access.op = Op::Load;
  a.access.width = 4;
  b.access.op = Op::Store;
  b.access.width = 8;
  const auto rows = to_measurements({a, b}, launches, "NVIDIA H200");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].wavefronts, 32);
  EXPECT_EQ(rows[0].bank_conflicts, 31);
  EXPECT_EQ(rows[0].instructions, 1);
  EXPECT_EQ(rows[1].wavefronts, 2);
  EXPECT_EQ(rows[1].bank_conflicts, 1);
  EXPECT_EQ(rows[1].gpu, "NVIDIA H200");
}

TEST(CalibrateNcu, RefusesLaunchesThatDoNotLineUpWithThePatterns) {
  const auto launches = parse_ncu_csv(ncu_sample());
  Pattern a{"a", {}}, b{"b", {}};
  a.access.width = 4;
  b.access.width = 16;  // launch 1 ran the 8-byte store kernel
  b.access.op = Op::Store;
  EXPECT_THROW(to_measurements({a}, launches, "g"), std::runtime_error);
  EXPECT_THROW(to_measurements({a, b}, launches, "g"), std::runtime_error);
  EXPECT_THROW(parse_ncu_csv("==PROF== nothing profiled\n"), std::runtime_error);
}

const char* kSass = R"(
	code for sm_90
		Function : _ZN7banklab9calibrate12_GLOBAL__N_117banklab_cal_ld_w8EPKjjPj
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                        /* 0x00000a00ff017b82 */
        /*0090*/              @!P0 LDS.64 R2, [R0] ;                             /* 0x0000000000028984 */
        /*00a0*/                   EXIT ;
		Function : banklab_cal_st_w16
        /*0090*/              @P0 STS.128 [R0], R4 ;
		Function : banklab_cal_st_w1
        /*0090*/              @P0 STS.U8 [R0], R4 ;
		Function : banklab_cal_ld_w2
        /*0090*/              @P0 LDS.U16 R4, [R0] ;
        /*00a0*/              @P0 LDS.U16 R5, [R0+0x2] ;
)";

TEST(CalibrateSass, FindsEachKernelsSharedInstructions) {
  const auto k = parse_sass(kSass);
  ASSERT_EQ(k.size(), 4u);
  EXPECT_EQ(k[0].shared, std::vector<std::string>{"LDS.64"});
  EXPECT_EQ(k[1].shared, std::vector<std::string>{"STS.128"});
  EXPECT_EQ(k[3].shared.size(), 2u);
  const auto problems = check_sass(k);
  auto mentions = [&](const std::string& s) {
    return std::any_of(problems.begin(), problems.end(), [&](const std::string& p) { return p.find(s) != std::string::npos; });
  };
  EXPECT_TRUE(mentions("banklab_cal_ld_w2: 2 shared-memory instructions"));
  EXPECT_TRUE(mentions("banklab_cal_ld_w4: not found"));
  EXPECT_FALSE(mentions("banklab_cal_ld_w8"));
  EXPECT_FALSE(mentions("banklab_cal_st_w16"));
  EXPECT_FALSE(mentions("banklab_cal_st_w1:"));
}

TEST(CalibrateSass, TheBuiltKernelsRunExactlyOneSharedInstructionOfTheirWidth) {
  const char* candidates[] = {"/usr/local/cuda/bin/cuobjdump"};
  std::string tool;
  for (const char* c : candidates)
    if (fs::exists(c)) tool = c;
  if (tool.empty() && run("command -v cuobjdump").status == 0) tool = "cuobjdump";
  if (tool.empty()) GTEST_SKIP() << "cuobjdump is not installed here";
  const Result r = run(tool + " -sass " + exe());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto problems = check_sass(parse_sass(r.output));
  for (const auto& p : problems) ADD_FAILURE() << p;
}

TEST(CalibrateCompare, TheCommittedH200FileMatchesTheModelInFull) {
  cli::CalibrateOptions o;
  o.compare = std::string(BANKLAB_DATA_DIR) + "/h200_wavefronts_named.csv";
  std::ostringstream out, err;
  EXPECT_EQ(cli::run_calibrate(o, out, err), cli::kCalibrateOk) << out.str() << err.str();
  EXPECT_NE(out.str().find("260/260 patterns match\n"), std::string::npos) << out.str();
}

TEST(CalibrateCompare, ADifferingPatternIsPrintedWithTheModelsExplanationAndExitsWith1) {
  auto rows = read_measurements_file(std::string(BANKLAB_DATA_DIR) + "/h200_wavefronts_named.csv");
  rows[3].wavefronts += 1;
  const std::string path = temp_path("differ.csv");
  {
    std::ofstream f(path);
    write_measurements_csv(f, rows);
  }
  cli::CalibrateOptions o;
  o.compare = path;
  std::ostringstream out, err;
  EXPECT_EQ(cli::run_calibrate(o, out, err), cli::kCalibrateMismatch);
  EXPECT_NE(out.str().find("DIFFER " + rows[3].id), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("model: warp"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("259/260 patterns match\n"), std::string::npos) << out.str();
  fs::remove(path);
}

TEST(CalibrateCommand, ListPrintsEveryPatternInPredictLineFormatWithoutAGpu) {
  const Result r = run(exe() + " calibrate --list --random 20 --seed 5");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto v = parse_pattern_list(r.output, "--list");
  EXPECT_EQ(v.size(), named_patterns().size() + 20);
  EXPECT_EQ(v.back().id, random_patterns(20, 5).back().id);
}

TEST(CalibrateCommand, DryRunSaysWhatWouldRunAndMeasuresNothing) {
  const std::string out = temp_path("dry.csv");
  const Result r = run(exe() + " calibrate --dry-run --random 10 --out " + out);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("--clock-control none"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--worker"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(CalibrateCommand, WithoutAGpuItExitsWithStatus3AndSaysWhy) {
  const std::string reason = gpu_unavailable_reason();
  if (reason.empty()) GTEST_SKIP() << "a GPU is present: this test is for machines without one";
  const std::string out = temp_path("nogpu.csv");
  const Result r = run(exe() + " calibrate --random 10 --out " + out);
  EXPECT_EQ(r.status, cli::kCalibrateNoGpu) << r.output;
  EXPECT_NE(r.output.find(reason), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Nothing was measured"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}


// The H200 build's listing of the new kernels (cuobjdump -sass, shared-memory lines only):
// cp.async kernels carry never-executed `@!PT LDS RZ, [RZ]` padding; 64-bit shared atomics are
// LDS.64 and a CAS loop.
TEST(CalibrateSass, AcceptsTheNewKernelsAsTheH200BuildListsThem) {
  const char* sass = R"(
		Function : _ZN7banklab9calibrate41_GLOBAL__N__4c31e2d4_9_worker_cu_43ddbdc619banklab_cal_atom_w8EPKjjPj
        /*0150*/                   LDS.64 R4, [R2+UR4] ;
        /*0180*/                   ATOMS.CAST.SPIN.64 R6, [R9], R4, R6 ;
		Function : _ZN7banklab9calibrate41_GLOBAL__N__4c31e2d4_9_worker_cu_43ddbdc626banklab_cal_cpasync_w16_cgEPKjjPj
        /*0130*/              @!PT LDS RZ, [RZ] ;
        /*0140*/              @!PT LDS RZ, [RZ] ;
        /*0160*/                   LDGSTS.E.BYPASS.128 [R7], desc[UR6][R4.64] ;
		Function : _ZN7banklab9calibrate41_GLOBAL__N__4c31e2d4_9_worker_cu_43ddbdc625banklab_cal_ldsm_x4_transEPKjjPj
        /*0090*/                   LDSM.16.MT88.4 R4, [R2+UR4] ;
		Function : _ZN7banklab9calibrate41_GLOBAL__N__4c31e2d4_9_worker_cu_43ddbdc619banklab_cal_stsm_x1EPKjjPj
        /*00a0*/                   STSM.16.M88 [R0], R5 ;
		Function : _ZN7banklab9calibrate41_GLOBAL__N__4c31e2d4_9_worker_cu_43ddbdc623banklab_cal_atom_w4_redEPKjjPj
        /*00e0*/                   ATOMS.POPC.INC.32 RZ, [R2+UR4] ;
)";
  const auto problems = check_sass(parse_sass(sass));
  for (const char* k : {"banklab_cal_atom_w8:", "banklab_cal_cpasync_w16_cg:", "banklab_cal_ldsm_x4_trans:",
                        "banklab_cal_stsm_x1:", "banklab_cal_atom_w4_red:"})
    for (const auto& p : problems) EXPECT_EQ(p.find(k), std::string::npos) << p;
  EXPECT_TRUE(std::any_of(problems.begin(), problems.end(),
                          [](const std::string& p) { return p.find("banklab_cal_ldsm_x1: not found") != std::string::npos; }));
}

// The shared atomics of the family atomop as the H200 build lists them (cuobjdump -sass of
// build/cal/banklab-calibrate-standalone, bench/experiments/shared_atomics/atomics_device.sh, 2026-11-24).
TEST(CalibrateSass, AcceptsTheAtomicKernelsAsTheH200BuildListsThemAndNamesAWrongOne) {
  const std::string pre = "\t\tFunction : _ZN7banklab9calibrate41_GLOBAL__N__44f27d7c_9_worker_cu_43ddbdc6";
  auto fn = [&](const std::string& name) { return pre + std::to_string(name.size()) + name + "EPKjjPj\n"; };
  auto ins = [](const std::string& text) { return "        /*0120*/                   " + text + " ;\n"; };
  std::string sass;
  const std::pair<const char*, const char*> one[] = {
      {"banklab_cal_atom_w4_exch", "ATOMS.EXCH R5, [R2+UR4], R5"},  {"banklab_cal_atom_w4_min", "ATOMS.MIN R5, [R2+UR4], R5"},
      {"banklab_cal_atom_w4_maxs", "ATOMS.MAX.S32 R5, [R2+UR4], R5"}, {"banklab_cal_atom_w4_and", "ATOMS.AND R5, [R2+UR4], R5"},
      {"banklab_cal_atom_w4_or", "ATOMS.OR R5, [R2+UR4], R5"},      {"banklab_cal_atom_w4_xor", "ATOMS.XOR R5, [R2+UR4], R5"},
      {"banklab_cal_atom_w4_inc", "ATOMS.INC R5, [R2+UR4], R5"},    {"banklab_cal_atom_w4_dec", "ATOMS.DEC R5, [R2+UR4], R5"},
      {"banklab_cal_atom_w4_cas", "ATOMS.CAS R0, [R0], R4, R5"},    {"banklab_cal_atom_w4_redadd", "ATOMS.ADD RZ, [R2+UR4], R5"},
      {"banklab_cal_atom_w4_redmin", "ATOMS.MIN RZ, [R2+UR4], R5"}, {"banklab_cal_atom_w4_redor", "ATOMS.OR RZ, [R2+UR4], R5"},
      {"banklab_cal_atom_w8_exch", "ATOMS.EXCH.64 R2, [R5+UR4], R2"}, {"banklab_cal_atom_w8_cas", "ATOMS.CAS.64 R4, [R9], R4, R6"}};
  for (const auto& [k, i] : one) sass += fn(k) + ins(i);
  sass += fn("banklab_cal_atom_w4_addf") + ins("LDS R6, [R2+UR4]") + ins("ATOMS.CAST.SPIN R7, [R0], R6, R7");
  sass += fn("banklab_cal_atom_w8_addf") + ins("LDS.64 R4, [R2+UR4]") + ins("ATOMS.CAST.SPIN.64 R6, [R11], R4, R6");
  sass += fn("banklab_cal_atom_w8_or") + ins("LDS.64 R4, [R2+UR4]") + ins("ATOMS.CAST.SPIN.64 R6, [R9], R4, R6");
  sass += fn("banklab_cal_atom_w8_min") + ins("@P0 STS.64 [R3+UR4], R4") + ins("LDS.64 R4, [R3+UR4]") +
          ins("ATOMS.CAST.SPIN.64 R12, [R9], R4, R6");
  auto problems_with = [](const std::vector<std::string>& all, const std::string& kernel) {
    std::vector<std::string> v;
    for (const auto& p : all)
      if (p.rfind(kernel + ":", 0) == 0) v.push_back(p);
    return v;
  };
  const auto problems = check_sass(parse_sass(sass));
  for (const AtomOpKind& k : kAtomOpKinds) {
    const std::string name = kernel_name(k);
    EXPECT_TRUE(problems_with(problems, name).empty()) << problems_with(problems, name)[0];
  }
  // ATOMS.ADD where the exchange belongs, a 32-bit CAS in the 64-bit kernel: both named.
  std::string wrong = fn("banklab_cal_atom_w4_exch") + ins("ATOMS.ADD R5, [R2+UR4], R5") + fn("banklab_cal_atom_w8_cas") +
                      ins("ATOMS.CAS R4, [R9], R4, R6");
  const auto bad = check_sass(parse_sass(wrong));
  ASSERT_EQ(problems_with(bad, "banklab_cal_atom_w4_exch").size(), 1u);
  EXPECT_NE(problems_with(bad, "banklab_cal_atom_w4_exch")[0].find("expected ATOMS.EXCH"), std::string::npos);
  EXPECT_EQ(problems_with(bad, "banklab_cal_atom_w8_cas").size(), 1u);
}
}  // namespace
}  // namespace banklab::calibrate
