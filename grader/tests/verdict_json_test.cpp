// The judge's reader of verdict records (grader/judge/verdict.cpp, parse_verdict): a test's process
// ran the student's code and writes its record, so the record is read as hostile. Each case is a
// record as such a process could write it, and what the reader must say (cases as data: one check).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <ostream>
#include <string>

#include "verdict.hpp"

namespace {

using judge::Verdict;

struct Case {
  const char* what;
  std::string text;
  const char* refusal;  ///< nullptr: read; else a piece of the reason given
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.what; }

const std::string kGood =
    R"({"schema": "banklab.verdict.v1", "lab": "05", "test": "Lab05Layout.X", "tier": "cpu", "status": "passed", )"
    R"("checks": 12, "seconds": 0.25, "message": ""})";

std::string with(const std::string& from, const std::string& to) {
  std::string s = kGood;
  s.replace(s.find(from), from.size(), to);
  return s;
}

const Case kCases[] = {
    {"a record as the judge writes it", kGood, nullptr},
    {"a \\u escape of a character", with(R"("message": "")", R"("message": "caf\u00e9 \ud83d\ude00")"), nullptr},
    {"a status given twice, the second passed",
     with(R"("status": "passed")", R"("status": "failed", "status": "passed")"), "is there twice"},
    {"a schema given twice", with(R"("lab": "05")", R"("schema": "banklab.verdict.v1", "lab": "05")"), "is there twice"},
    {"a lone high surrogate", with(R"("message": "")", R"("message": "\ud800")"), "not JSON"},
    {"a lone low surrogate", with(R"("message": "")", R"("message": "\udc00x")"), "not JSON"},
    {"a \\u escape with too few digits", with(R"("message": "")", R"("message": "\u12")"), "not JSON"},
    {"a \\u escape with no hex digit", with(R"("message": "")", R"("message": "\uzzzz")"), "not JSON"},
    {"an unknown escape", with(R"("message": "")", R"("message": "\q")"), "not JSON"},
    {"bytes that are not UTF-8", with(R"("message": "")", "\"message\": \"\xff\xfe\""), "not JSON"},
    {"a raw control character in a string", with(R"("message": "")", "\"message\": \"a\x01" "b\""), "not JSON"},
    {"a second record after the first", kGood + kGood, "not JSON"},
    {"a record cut short", kGood.substr(0, kGood.size() - 2), "not JSON"},
    {"another schema", with("banklab.verdict.v1", "banklab.verdict.v2"), "not a banklab.verdict.v1 record"},
    {"no schema", with(R"("schema": "banklab.verdict.v1", )", ""), "not a banklab.verdict.v1 record"},
    {"an array", "[" + kGood + "]", "not an object"},
    {"checks as a string", with(R"("checks": 12)", R"("checks": "12")"), "\"checks\""},
    {"checks below zero", with(R"("checks": 12)", R"("checks": -1)"), "\"checks\""},
    {"checks as a fraction", with(R"("checks": 12)", R"("checks": 12.5)"), "\"checks\""},
    {"status as a number", with(R"("status": "passed")", R"("status": 1)"), "\"status\""},
    {"an unknown status", with(R"("status": "passed")", R"("status": "excellent")"), "none of passed"},
    {"no message", with(R"(, "message": "")", ""), "\"message\""},
    {"a key a record does not have", with(R"("message": "")", R"("message": "", "points": 100)"), "does not have"},
    {"a record over the size bound", with(R"("message": "")", "\"message\": \"" + std::string(600 << 10, 'a') + "\""),
     "more than"},
};

class VerdictRecord : public ::testing::TestWithParam<Case> {};

TEST_P(VerdictRecord, IsReadOrRefusedWithItsReason) {
  const Case& c = GetParam();
  Verdict v;
  v.status = "untouched";
  const std::string why = judge::parse_verdict(c.text, v);
  if (!c.refusal) {
    EXPECT_EQ(why, "") << c.what;
    EXPECT_EQ(v.status, "passed") << c.what;
    EXPECT_EQ(v.checks, 12) << c.what;
    EXPECT_EQ(v.test, "Lab05Layout.X") << c.what;
  } else {
    EXPECT_NE(why.find(c.refusal), std::string::npos) << c.what << ": said '" << why << "'";
    EXPECT_EQ(v.status, "untouched") << c.what << ": a refused record changed the verdict";
  }
}

// A case's name in CTest's list: its words in CamelCase ("a lone high surrogate" -> ALoneHighSurrogate).
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string out;
  bool up = true;
  for (const char* p = info.param.what; *p; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (std::isalnum(c)) {
      out += static_cast<char>(up ? std::toupper(c) : c);
      up = false;
    } else {
      up = true;
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Hostile, VerdictRecord, ::testing::ValuesIn(kCases), case_name);

// What the writer writes, the reader reads back the same, a hostile message included (it is
// cleaned on the way out: clean_text.hpp).
TEST(VerdictRecordRoundTrip, TheWritersRecordReadsBackTheSame) {
  Verdict v;
  v.lab = "03";
  v.test = "Lab03Layout.Y";
  v.tier = "gpu";
  v.status = "fault";
  v.checks = 7;
  v.seconds = 1.23456;
  static const char kHostile[] = "quote \" backslash \\ newline\n nul \0 bell \a bad \xff utf8 caf\xc3\xa9";
  v.message = std::string(kHostile, sizeof kHostile - 1);
  Verdict back;
  ASSERT_EQ(judge::parse_verdict(judge::to_json(v), back), "") << judge::to_json(v);
  EXPECT_EQ(back.lab, v.lab);
  EXPECT_EQ(back.test, v.test);
  EXPECT_EQ(back.tier, v.tier);
  EXPECT_EQ(back.status, v.status);
  EXPECT_EQ(back.checks, v.checks);
  EXPECT_DOUBLE_EQ(back.seconds, 1.235);
  EXPECT_EQ(back.message.find('\0'), std::string::npos);
  EXPECT_NE(back.message.find("caf\xc3\xa9"), std::string::npos);
  EXPECT_NE(back.message.find("newline"), std::string::npos);
}

// The grade file: one object of schema banklab.grade.v1 whose verdicts are the records.
TEST(GradeFile, HoldsTheVerdictsAsRecords) {
  Verdict v;
  v.lab = "05";
  v.test = "Lab05Layout.X";
  v.status = "passed";
  v.checks = 3;
  std::string why;
  const auto j = judge::parse_strict(judge::grade_json("05", "kernel.cu", "abc", {v, v}), why);
  ASSERT_TRUE(j) << why;
  EXPECT_EQ((*j)["schema"], judge::kGradeSchema);
  ASSERT_EQ((*j)["verdicts"].size(), 2u);
  Verdict back;
  EXPECT_EQ(judge::parse_verdict((*j)["verdicts"][1].dump(), back), "");
  EXPECT_EQ(back.checks, 3);
}

}  // namespace
