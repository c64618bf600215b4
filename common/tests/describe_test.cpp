// describe.hpp: the model's answer in words, and the explain command that pastes into a shell.
#include "banklab/describe.hpp"
#include "banklab/json.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "banklab/pattern_io.hpp"
#include "test_util.hpp"

namespace banklab {
namespace {
using test::make;
using test::strided;

TEST(Describe, TheSummaryLineGivesCountsGroupingAndWhy) {
  EXPECT_EQ(summary_line(analyze(strided(Op::Load, 4, 32))),
            "32 wavefronts, minimum 1 (31 extra); grouping: warp. 32-bit (or narrower) access: the "
            "whole warp is served as one group.");
}

TEST(Describe, TheSummaryLineSaysWhenALoadMerged) {
  const Analysis r = analyze(make(Op::Load, 8, [](int i) { return static_cast<std::uint32_t>(i / 2) * 8u; }));
  EXPECT_NE(summary_line(r).find("grouping: warp (merged). 64-bit load merged"), std::string::npos)
      << summary_line(r);
}

TEST(Describe, AConflictFreeAccessIsOneLine) {
  const std::string s = describe(analyze(strided(Op::Load, 4, 33)));
  EXPECT_EQ(s, summary_line(analyze(strided(Op::Load, 4, 33))) + "\n");
}

TEST(Describe, TheWorstBankLineNamesTheLanesAndTheirDifferentWords) {
  const std::string s = describe(analyze(strided(Op::Load, 4, 32)));
  EXPECT_NE(s.find("\n  lanes 0-31: bank 0 must serve 32 different words: word 0 (lane 0), word 32 "
                   "(lane 1), word 64 (lane 2), word 96 (lane 3), word 128 (lane 4), word 160 "
                   "(lane 5) ...\n"),
            std::string::npos)
      << s;
}

TEST(Describe, LanesSharingAWordAreListedTogether) {
  // Lanes 0 and 1 read word 0, lanes 2 and 3 word 32, ...: a 16-way conflict with broadcasts.
  const std::string s = describe(analyze(make(Op::Load, 4, [](int i) { return static_cast<std::uint32_t>(i / 2) * 128u; })));
  EXPECT_NE(s.find("bank 0 must serve 16 different words: word 0 (lanes 0,1), word 32 (lanes 2,3)"),
            std::string::npos)
      << s;
}

TEST(Describe, ShowsAtMostMaxBanksGroups) {
  // A 128-bit store at a stride of 128 bytes: all four quarter-warps conflict.
  const Analysis r = analyze(strided(Op::Store, 16, 8));
  ASSERT_EQ(bank_conflicts(r).size(), 4u);
  auto lines = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n'); };
  EXPECT_EQ(lines(describe(r)), 1 + 2);
  DescribeOptions all;
  all.max_banks = 4;
  EXPECT_EQ(lines(describe(r, all)), 1 + 4);
  EXPECT_NE(describe(r, all).find("  lanes 24-31: bank 0 must serve 8 different words"), std::string::npos)
      << describe(r, all);
}

TEST(Describe, MaxWordsAndMaxLanesShortenTheLists) {
  DescribeOptions o;
  o.max_words = 2;
  o.max_lanes = 1;
  const std::string s = describe(analyze(make(Op::Load, 4, [](int i) { return static_cast<std::uint32_t>(i / 2) * 128u; })), o);
  EXPECT_NE(s.find("16 different words: word 0 (lanes 0,...), word 32 (lanes 2,...) ...\n"), std::string::npos) << s;
}

TEST(BankConflicts, GiveTheWordsInTheOrderTheBankServesThem) {
  const std::vector<BankConflict> c = bank_conflicts(analyze(strided(Op::Load, 4, 32)));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].group, 0);
  EXPECT_EQ(c[0].bank, 0);
  EXPECT_EQ(c[0].wavefronts, 32);
  EXPECT_EQ(c[0].minimum, 1);
  ASSERT_EQ(c[0].words.size(), 32u);
  for (int k = 0; k < 32; ++k) {
    EXPECT_EQ(c[0].words[static_cast<std::size_t>(k)].word, static_cast<std::uint32_t>(32 * k));
    EXPECT_EQ(c[0].words[static_cast<std::size_t>(k)].lanes, std::vector<int>{k});
  }
  EXPECT_EQ(c[0].lanes.size(), 32u);
}

TEST(BankConflicts, AreEmptyForAConflictFreeAccess) {
  EXPECT_TRUE(bank_conflicts(analyze(strided(Op::Load, 4, 1))).empty());
  EXPECT_TRUE(bank_conflicts(analyze(strided(Op::Load, 4, 0))).empty());  // broadcast
}

TEST(LaneList, CompressesRuns) {
  EXPECT_EQ(lane_list({3}), "lane 3");
  EXPECT_EQ(lane_list({0, 1, 2, 3}), "lanes 0-3");
  EXPECT_EQ(lane_list({4, 5}), "lanes 4, 5");
  EXPECT_EQ(lane_list({0, 2, 5}), "lanes 0, 2, 5");
  EXPECT_EQ(lane_list({0, 2, 4, 6}, 2), "lanes 0, 2, ...");
}

TEST(JsonQuote, EscapesQuotesBackslashesAndEveryControlCharacter) {
  EXPECT_EQ(json_quote(""), "\"\"");
  EXPECT_EQ(json_quote("a \"b\" \\ c"), "\"a \\\"b\\\" \\\\ c\"");
  EXPECT_EQ(json_quote("1\n2\r3\t4"), "\"1\\n2\\r3\\t4\"");
  EXPECT_EQ(json_quote(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(json_quote("bank \xc3\xa9"), "\"bank \xc3\xa9\"");  // UTF-8 passes through
}

TEST(ShellQuote, LeavesAPlainPathAlone) {
  EXPECT_EQ(shell_quote("/opt/banklab/build/dev/tools/banklab"), "/opt/banklab/build/dev/tools/banklab");
}

TEST(ShellQuote, QuotesSpacesQuotesAndShellCharacters) {
  EXPECT_EQ(shell_quote("/home/a b/banklab"), "'/home/a b/banklab'");
  EXPECT_EQ(shell_quote("/it's/banklab"), "'/it'\\''s/banklab'");
  EXPECT_EQ(shell_quote("$HOME/x"), "'$HOME/x'");
  EXPECT_EQ(shell_quote("~/x"), "'~/x'");
  EXPECT_EQ(shell_quote(""), "''");
}

// What /bin/sh makes of `command`: its words (the program first), each followed by '|'.
std::string words_of(const std::string& command) {
  FILE* p = popen(("printf '%s|' " + command).c_str(), "r");
  if (!p) return "popen failed";
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(ExplainCommand, PastesIntoAShellAsTheProgramAndItsArguments) {
  const WarpAccess a = strided(Op::Load, 4, 32);
  const std::string path = "/tmp/a dir/it's/banklab";
  const std::string cmd = explain_command(a, path);
  EXPECT_EQ(cmd, "'/tmp/a dir/it'\\''s/banklab' explain --line \"" + format_access_line(a) + "\"");
  EXPECT_EQ(words_of(cmd), path + "|explain|--line|" + format_access_line(a) + "|");
}

TEST(ExplainCommand, DefaultsToTheCommandName) {
  const WarpAccess a = strided(Op::Store, 8, 1, 0x0000ffffu);
  EXPECT_EQ(explain_command(a), "banklab explain --line \"" + format_access_line(a) + "\"");
}

}  // namespace
}  // namespace banklab
