// The `banklab` command run as a process: exit status, stdout and stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {

struct Result {
  int status = -1;  // exit status; 128 + signal when killed
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

std::string tmp(const std::string& name) { return std::string(BANKLAB_TEST_TMP) + "/" + name; }

// Runs `banklab ARGS` through the shell (ARGS are shell words), with a timeout so that a hang
// fails instead of blocking.
Result run(const std::string& args, const std::string& tag) {
  const std::string out = tmp(tag + ".stdout"), err = tmp(tag + ".stderr");
  const std::string cmd = "timeout 30 '" BANKLAB_EXE "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int st = std::system(cmd.c_str());
  Result r;
  if (WIFEXITED(st)) r.status = WEXITSTATUS(st);
  else if (WIFSIGNALED(st)) r.status = 128 + WTERMSIG(st);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string offsets(std::uint32_t step) {
  std::string s;
  for (std::uint32_t i = 0; i < 32; ++i) s += " " + std::to_string(i * step);
  return s;
}

// Exit 2 and one line "banklab: FILE:LINE: problem" matching `message`.
void expect_bad_input(const Result& r, const std::string& message) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("^banklab: " + message + "\n$"))) << r.err;
}

// --- predict --------------------------------------------------------------------------------

TEST(PredictCommand, PrintsTheWavefrontCountFirstForKnownPatterns) {
  const Result r = run(std::string("predict '") + BANKLAB_CLI_TEST_DATA + "/known.txt'", "known");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, slurp(std::string(BANKLAB_CLI_TEST_DATA) + "/known.expected"));
}

TEST(PredictCommand, ReadsStandardInput) {
  write_file(tmp("stdin.txt"), "ld 4 ffffffff" + offsets(128) + "\n");
  const Result r = run("predict < '" + tmp("stdin.txt") + "'", "stdin");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "32 min=1 conflicts=31 groups=warp merged=no\n");
}

// --tma-swizzle M: the same prediction as the line whose offsets are already swizzled (CuTe's
// Swizzle<B,4,3> on byte offsets, B = 1, 2, 3 for 32, 64, 128 bytes), for every mode and a few
// accesses that cross 128-byte lines.
TEST(PredictCommand, TmaSwizzleEqualsTheLineWithSwizzledOffsets) {
  struct Case { const char* head; std::uint32_t step, start; };
  const Case cases[] = {{"ld 2 ffffffff", 128, 0}, {"st 8 ffffffff", 64, 8}, {"ldsm 16 ffffffff", 128, 16},
                        {"ld 16 0000ffff", 32, 0}, {"cpasync 4 ffffffff", 132, 0}};
  const std::pair<const char*, std::uint32_t> modes[] = {{"none", 0}, {"32", 1}, {"64", 3}, {"128", 7}};
  for (const auto& [mode, m] : modes) {
    std::string plain, swizzled;
    for (const Case& c : cases) {
      plain += c.head;
      swizzled += c.head;
      for (std::uint32_t i = 0; i < 32; ++i) {
        const std::uint32_t p = c.start + i * c.step;
        plain += " " + std::to_string(p);
        swizzled += " " + std::to_string(p ^ (((p >> 7) & m) << 4));
      }
      plain += "\n";
      swizzled += "\n";
    }
    write_file(tmp("tma_plain.txt"), plain);
    write_file(tmp("tma_swizzled.txt"), swizzled);
    const Result r = run(std::string("predict --tma-swizzle ") + mode + " '" + tmp("tma_plain.txt") + "'", "tma_flag");
    const Result e = run("predict '" + tmp("tma_swizzled.txt") + "'", "tma_explicit");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, e.out) << "mode " << mode;
    if (m != 0) {
      EXPECT_NE(r.out, run("predict '" + tmp("tma_plain.txt") + "'", "tma_none").out) << mode;
    }
  }
}

TEST(PredictCommand, RejectsATmaSwizzleModeThatDoesNotExist) {
  write_file(tmp("tma_one.txt"), "ld 4 ffffffff" + offsets(4) + "\n");
  const Result r = run("predict --tma-swizzle 16 '" + tmp("tma_one.txt") + "'", "tma_bad");
  expect_bad_input(r, "--tma-swizzle:1: TMA swizzle '16' is not one of none, 32, 64, 128");
}

TEST(PredictCommand, RejectsALineWithTooFewOffsets) {
  write_file(tmp("few.txt"), "# comment\nld 4 ffffffff 0 4 8\n");
  expect_bad_input(run("predict '" + tmp("few.txt") + "'", "few"),
                   ".*few.txt:2: expected 32 offsets after the mask, found 3");
}

TEST(PredictCommand, RejectsTooManyOffsets) {
  write_file(tmp("many.txt"), "ld 4 ffffffff" + offsets(4) + " 128\n");
  expect_bad_input(run("predict '" + tmp("many.txt") + "'", "many"),
                   ".*many.txt:1: more than 32 offsets after the mask");
}

TEST(PredictCommand, RejectsAnUnknownOp) {
  write_file(tmp("op.txt"), "ld 4 ffffffff" + offsets(4) + "\nmov 4 ffffffff" + offsets(4) + "\n");
  expect_bad_input(run("predict '" + tmp("op.txt") + "'", "op"),
                   ".*op.txt:2: unknown op 'mov' \\(expected one of 'ld', 'st', 'ldsm', 'stsm', 'cpasync', 'atom', 'atominc', 'atomcas', 'atomexch', 'atomloop'\\)");
}

TEST(PredictCommand, RejectsWidthThree) {
  write_file(tmp("w3.txt"), "ld 3 ffffffff" + offsets(3) + "\n");
  expect_bad_input(run("predict '" + tmp("w3.txt") + "'", "w3"),
                   ".*w3.txt:1: width 3 is not one of 1, 2, 4, 8, 16");
}

TEST(PredictCommand, RejectsAMisalignedOffset) {
  write_file(tmp("misaligned.txt"), "ld 8 ffffffff" + offsets(4) + "\n");
  expect_bad_input(run("predict '" + tmp("misaligned.txt") + "'", "misaligned"),
                   ".*misaligned.txt:1: lane 1: offset 4 is not a multiple of the width 8");
}

TEST(PredictCommand, RejectsAnOffsetBeyondTheLargestSharedMemoryOfABlock) {
  write_file(tmp("beyond.txt"), "ld 4 ffffffff" + offsets(8192) + "\n");  // lane 29: 237568 bytes
  expect_bad_input(run("predict '" + tmp("beyond.txt") + "'", "beyond"),
                   ".*beyond.txt:1: lane 29: offset 237568 is beyond the largest shared memory of "
                   "a block \\(232448 bytes\\)");
}

TEST(PredictCommand, RejectsANegativeOffset) {
  write_file(tmp("negative.txt"), "ld 4 ffffffff -4" + offsets(4).substr(2) + "\n");
  expect_bad_input(run("predict '" + tmp("negative.txt") + "'", "negative"),
                   ".*negative.txt:1: offset of lane 0 '-4' is not a non-negative decimal number");
}

TEST(PredictCommand, RejectsABadMask) {
  write_file(tmp("mask.txt"), "ld 4 1ffffffff" + offsets(4) + "\n");
  expect_bad_input(run("predict '" + tmp("mask.txt") + "'", "mask"),
                   ".*mask.txt:1: mask '1ffffffff' is not a 32-bit hexadecimal number");
}

TEST(PredictCommand, RejectsGarbage) {
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk += static_cast<char>((i * 131 + 7) % 256);
  write_file(tmp("garbage.bin"), junk);
  const Result r = run("predict '" + tmp("garbage.bin") + "'", "garbage");
  expect_bad_input(r, ".*garbage.bin:[0-9]+: [^\n]+");
}

TEST(PredictCommand, RejectsAnEmptyFile) {
  write_file(tmp("empty.txt"), "");
  expect_bad_input(run("predict '" + tmp("empty.txt") + "'", "empty"),
                   ".*empty.txt:1: the input is empty: expected lines 'op width mask off0 \\.\\.\\. off31'");
}

TEST(PredictCommand, RejectsAFileOfOnlyComments) {
  write_file(tmp("comments.txt"), "# nothing\n\n");
  expect_bad_input(run("predict '" + tmp("comments.txt") + "'", "comments"),
                   ".*comments.txt:2: no access in the input \\(only blank lines and comments\\)");
}

TEST(PredictCommand, RejectsATenMegabyteLineQuickly) {
  write_file(tmp("huge.txt"), "ld 4 ffffffff" + offsets(4) + "\n" + std::string(10u << 20, '4') + "\n");
  expect_bad_input(run("predict '" + tmp("huge.txt") + "'", "huge"),
                   ".*huge.txt:2: line is longer than 1048576 bytes \\(an access line has a few "
                   "hundred characters\\)");
}

TEST(PredictCommand, RejectsAMissingFile) {
  expect_bad_input(run("predict '" + tmp("does-not-exist.txt") + "'", "missing"),
                   ".*does-not-exist.txt:0: cannot open file: No such file or directory");
}

TEST(PredictCommand, PrintsWhatCameBeforeABadLine) {
  write_file(tmp("partial.txt"), "ld 4 ffffffff" + offsets(4) + "\nld 4 ffffffff 1\n");
  const Result r = run("predict '" + tmp("partial.txt") + "'", "partial");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "1 min=1 conflicts=0 groups=warp merged=no\n");
}

// --- compare --------------------------------------------------------------------------------

TEST(CompareCommand, ReportsThatAllCommittedMeasurementsMatch) {
  const Result r = run(std::string("compare '") + BANKLAB_DATA_DIR + "/h200_wavefronts_named.csv'", "cmp");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "260/260 patterns match\n");
}

TEST(CompareCommand, ExitsOneAndExplainsADoctoredMeasurement) {
  std::string csv = slurp(std::string(BANKLAB_DATA_DIR) + "/h200_wavefronts_named.csv");
  // n_stride2_w4_ld measured 2 wavefronts, 1 bank conflict: claim 3 and 2.
  const std::string row = "n_stride2_w4_ld,ld,4,ffffffff,";
  const std::size_t at = csv.find(row);
  ASSERT_NE(at, std::string::npos);
  const std::size_t eol = csv.find('\n', at);
  std::string line = csv.substr(at, eol - at);
  ASSERT_EQ(line.substr(line.size() - 6), ",2,1,1");
  line.replace(line.size() - 6, 6, ",3,2,1");
  csv.replace(at, eol - at, line);
  write_file(tmp("doctored.csv"), csv);

  const Result r = run("compare '" + tmp("doctored.csv") + "'", "doctored");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("DIFFERS n_stride2_w4_ld (line 4)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("measured:  3 wavefronts, 2 bank_conflicts"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("predicted: 2 wavefronts, 1 bank_conflicts, 1 instructions (minimum 1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model: groups=warp merged=no: 32-bit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n259/260 patterns match\n"), std::string::npos) << r.out;
}

TEST(CompareCommand, AcceptsATrailingGpuColumn) {
  write_file(tmp("gpu.csv"),
             "id,op,width,mask,offsets,wavefronts,bank_conflicts,instructions,gpu\n"
             "s32,ld,4,ffffffff," + offsets(128).substr(1) + ",32,31,1,NVIDIA H200\n");
  const Result r = run("compare '" + tmp("gpu.csv") + "'", "gpu");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1/1 patterns match\n");
}

TEST(CompareCommand, RejectsAMalformedRowNamingItsLine) {
  write_file(tmp("badrow.csv"),
             "id,op,width,mask,offsets,wavefronts,bank_conflicts,instructions\n"
             "s32,ld,4,ffffffff," + offsets(128).substr(1) + ",32,31,1\n"
             "bad,ld,3,ffffffff,0,1,0,1\n");
  expect_bad_input(run("compare '" + tmp("badrow.csv") + "'", "badrow"),
                   ".*badrow.csv:3: bad: width 3 is not one of 1, 2, 4, 8, 16");
}

TEST(CompareCommand, RejectsAMissingFile) {
  expect_bad_input(run("compare '" + tmp("nope.csv") + "'", "nocsv"), ".*nope.csv:0: cannot open file");
}

TEST(CompareCommand, RejectsAFileWithoutRows) {
  write_file(tmp("header.csv"), "id,op,width,mask,offsets,wavefronts,bank_conflicts,instructions\n");
  expect_bad_input(run("compare '" + tmp("header.csv") + "'", "header"),
                   ".*header.csv:2: no measurement rows after the header");
}

// --- explain --------------------------------------------------------------------------------

TEST(ExplainCommand, StrideThirtyTwoNamesBankZeroAndThirtyTwoWavefronts) {
  const Result r = run("explain ld 4 'lane*32*4'", "explain32");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("32 wavefronts (minimum 1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bank 0 serves 32 distinct words"), std::string::npos) << r.out;
}

// `banklab explain 'ld 4 lane*32*4'`: the three words as one argument, as a message might quote
// them (issue 32), draw what the three arguments draw.
TEST(ExplainCommand, TakesOpWidthAndExpressionAsOneArgument) {
  const Result one = run("explain 'ld 4 lane*32*4'", "explain_one_arg");
  const Result three = run("explain ld 4 'lane*32*4'", "explain_three_args");
  EXPECT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out, three.out);
  const Result tma = run("explain --tma-swizzle 128 'ldsm 16 (lane%16)*128 + (lane/16)*16'", "explain_one_arg_tma");
  EXPECT_EQ(tma.status, 0) << tma.err;
  EXPECT_NE(tma.out.find("4 wavefronts (minimum 4)"), std::string::npos) << tma.out;
  expect_bad_input(run("explain 'ld 4'", "explain_one_arg_short"), "arguments:1: expected 'OP WIDTH EXPRESSION'.*");
}

TEST(ExplainCommand, DrawsLdmatrixFromARowMajorTileAsEightWayPerMatrix) {
  const Result r = run("explain ldsm 16 '(lane%8)*128+(lane/8)*16'", "ldsm");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ldmatrix (ldsm)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("32 wavefronts (minimum 4)"), std::string::npos) << r.out;
  const Result s = run("explain ldsm 16 '(lane%8)*128+((lane/8)^(lane%8))*16'", "ldsmswz");
  EXPECT_NE(s.out.find("4 wavefronts (minimum 4)"), std::string::npos) << s.out;
}

TEST(ExplainCommand, DrawsTheAccessWhereTmaSwizzlePutTheBytes) {
  const Result r = run("explain ld 2 'lane*128' --tma-swizzle 128", "explain_tma");
  const Result e = run("explain ld 2 '(lane*128)^(((lane*128)>>7&7)<<4)'", "explain_tma_explicit");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, e.out);
  const Result n = run("explain ld 2 'lane*128'", "explain_tma_none");
  EXPECT_NE(r.out, n.out);
  expect_bad_input(run("explain ld 2 'lane*128' --tma-swizzle 256", "explain_tma_bad"),
                   "--tma-swizzle:1: TMA swizzle '256' is not one of none, 32, 64, 128");
}

TEST(ExplainCommand, SerialisesSharedAtomicsAtOneWord) {
  const Result r = run("explain atom 4 '0'", "atom");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("32 wavefronts (minimum 1)"), std::string::npos) << r.out;
}

TEST(ExplainCommand, RejectsAWidthTheOpDoesNotHave) {
  expect_bad_input(run("explain ldsm 4 'lane*4'", "ldsmw4"), "arguments:1: ldsm width 4 is not one of 16");
}

TEST(ExplainCommand, AcceptsAWholeLine) {
  const Result r = run("explain --line 'ld 4 ffffffff" + offsets(132) + "'", "line");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("1 wavefront (minimum 1): no bank conflict"), std::string::npos) << r.out;
}

TEST(ExplainCommand, HonoursTheMask) {
  const Result r = run("explain ld 4 'lane*32*4' --mask 0x0000000f", "mask");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("4 wavefronts (minimum 1)"), std::string::npos) << r.out;
}

TEST(ExplainCommand, DoesNotColourWhenStdoutIsNotATerminal) {
  const Result r = run("explain ld 4 'lane*32*4'", "nocolor");
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos);
}

TEST(ExplainCommand, ColoursWhenAskedTo) {
  const Result r = run("explain ld 4 'lane*32*4' --color=always", "color");
  EXPECT_NE(r.out.find("\x1b[1;31m"), std::string::npos);
}

TEST(ExplainCommand, WritesTheSameSvgBytesEveryTime) {
  const Result a = run("explain ld 8 'lane*16' --svg '" + tmp("a.svg") + "' --title 'Stride two' -q", "svga");
  const Result b = run("explain ld 8 'lane*16' --svg '" + tmp("b.svg") + "' --title 'Stride two' -q", "svgb");
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(a.out, "");
  const std::string svg = slurp(tmp("a.svg"));
  EXPECT_EQ(svg, slurp(tmp("b.svg")));
  EXPECT_NE(svg.find("Stride two"), std::string::npos);
  EXPECT_NE(svg.find("wavefronts (minimum 2)"), std::string::npos);
}

TEST(ExplainCommand, RejectsABadExpressionNamingTheColumn) {
  expect_bad_input(run("explain ld 4 'lane*'", "badexpr"),
                   "expression:1: column 6: expected a number, 'lane' or '\\(' but the expression "
                   "ends in \"lane\\*\"");
}

TEST(ExplainCommand, RejectsDivisionByZeroNamingTheLane) {
  expect_bad_input(run("explain ld 4 '4*(64/(lane-2))+256'", "div0"),
                   "expression:1: lane 2: division by zero \\(column 6\\) in \"4\\*\\(64/\\(lane-2\\)\\)\\+256\"");
}

TEST(ExplainCommand, RejectsAMisalignedExpression) {
  expect_bad_input(run("explain ld 4 'lane*2'", "misexpr"),
                   "expression:1: lane 1: offset 2 is not a multiple of the width 4 in \"lane\\*2\"");
}

TEST(ExplainCommand, RejectsWidthThreeWithTheMessageOfPredict) {
  expect_bad_input(run("explain ld 3 'lane*4'", "explainw3"),
                   "arguments:1: width 3 is not one of 1, 2, 4, 8, 16");
}

TEST(ExplainCommand, RejectsAWidthThatIsNotANumber) {
  expect_bad_input(run("explain ld four 'lane*4'", "explainwfour"),
                   "arguments:1: width 'four' is not a number");
}

TEST(ExplainCommand, RejectsAnUnknownOpWithTheMessageOfPredict) {
  expect_bad_input(run("explain mov 4 'lane*4'", "explainmov"),
                   "arguments:1: unknown op 'mov' \\(expected one of 'ld', 'st', 'ldsm', 'stsm', 'cpasync', 'atom', 'atominc', 'atomcas', 'atomexch', 'atomloop'\\)");
}

TEST(ExplainCommand, RejectsABadLine) {
  expect_bad_input(run("explain --line 'ld 4 ffffffff 0 4'", "badline"),
                   "--line:1: expected 32 offsets after the mask, found 2");
}

TEST(ExplainCommand, RejectsAnUnwritableSvgPath) {
  expect_bad_input(run("explain ld 4 'lane*4' --svg '" + tmp("no/such/dir/x.svg") + "'", "unwritable"),
                   ".*x.svg:0: cannot write: No such file or directory");
}

TEST(Command, UnknownOptionsExitTwo) {
  EXPECT_EQ(run("predict --no-such-option", "unknown").status, 2);
}

}  // namespace
