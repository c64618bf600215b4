// The judge's readers of the student's text (grader/judge/diagnostics.cpp: which compiler lines are
// about the student's file, #line in the file; grader/judge/clean_text.cpp: what may be printed),
// with fixed cases and a fixed number of random and mutated inputs each run (a fuzz target that
// runs in CI in a few seconds): none crashes, none costs more than its input's length, the hand
// scanner says what the regular expressions it replaced said, and nothing a terminal acts on is
// left in what the judge prints.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <unistd.h>
#include <regex>
#include <string>

#include "clean_text.hpp"
#include "diagnostics.hpp"
#include "grader/answers.hpp"

namespace judge {
namespace {

TEST(CleanText, ShowsWhatATerminalActsOnAsVisibleEscapes) {
  const std::string osc = "A \x1b]52;c;Y3VybA==\x07 B \x1b]2;title\x1b\\ C \x1b[2K\r D \xe2\x80\xae E \xc2\x9b F \x7f";
  const std::string s = clean_text(osc);
  EXPECT_EQ(s, "A \\x1b]52;c;Y3VybA==\\x07 B \\x1b]2;title\\x1b\\ C \\x1b[2K\\r D \\u202e E \\u009b F \\x7f");
  EXPECT_TRUE(is_clean(s));
  EXPECT_FALSE(is_clean(osc));
}

TEST(CleanText, KeepsLinesTabsAndUtf8) {
  const std::string t = "error: \xc3\xa9t\xc3\xa9\n\tnote: \xe2\x86\x92 here\n";
  EXPECT_EQ(clean_text(t), t);
  EXPECT_EQ(clean_text("a\nb", 100, false), "a\\nb");
  EXPECT_EQ(clean_text("\xff\xfe" "x\xc0\xaf"), "\\xff\\xfex\\xc0\\xaf");  // not UTF-8, an overlong '/'
}

TEST(CleanText, CutsAtItsLimitAndSaysSo) {
  // The rule's cut (clean_text.toml): of the 100 bytes less the marker's 33 ("\n... [cut: 10000 more
  // bytes] ...\n"), 50 of the start (75 %), 17 of the end, the bytes left out said.
  const std::string s = clean_text(std::string(10000, 'x'), 100);
  EXPECT_EQ(s, std::string(50, 'x') + "\n... [cut: 9933 more bytes] ...\n" + std::string(17, 'x'));
  EXPECT_LE(s.size(), 100u);
  EXPECT_EQ(clean_text(s, 100), s);  // cleaning twice is cleaning once
  // on one line, the marker has no newline
  EXPECT_EQ(clean_text(std::string(10000, 'x'), 100, false),
            std::string(50, 'x') + " ... [cut: 9933 more bytes] ... " + std::string(17, 'x'));
  // never in the middle of a character: the arrow (3 bytes) the start's cut (51 bytes) splits is left out
  const std::string e = clean_text(std::string(49, 'a') + "\xe2\x86\x92" + std::string(100, 'b'), 100);
  EXPECT_EQ(e.compare(0, 50, std::string(49, 'a') + "\n"), 0) << e;
  EXPECT_TRUE(is_clean(e));
}

TEST(LocatedFile, ReadsTheCompilersLocations) {
  EXPECT_EQ(located_file("/in/kernel.cu(12): error: identifier \"x\" is undefined"), "/in/kernel.cu");
  EXPECT_EQ(located_file("/in/kernel.cu:3:5: error: expected ';'"), "/in/kernel.cu");
  EXPECT_EQ(located_file("/in/kernel.cu:3: warning"), "/in/kernel.cu");
  EXPECT_EQ(located_file("In file included from /in/probe_main.cu:2:"), "/in/probe_main.cu");
  EXPECT_EQ(located_file("                 from /inc/banklab/model.hpp:7,"), "/inc/banklab/model.hpp");
  EXPECT_EQ(located_file("/in/kernel.cu: In function 'void f()':"), "/in/kernel.cu");
  EXPECT_EQ(located_file("/etc/shadow: At global scope:"), "/etc/shadow");
  EXPECT_EQ(located_file("   12 | int x = y;"), "");
  EXPECT_EQ(located_file("      |         ^"), "");
  EXPECT_EQ(located_file("bwrap: Can't mount proc on /newroot/proc: Device or resource busy"), "");
  EXPECT_EQ(located_file("/in/kernel.cu:12x: error"), "");
  EXPECT_EQ(located_file(""), "");
}

TEST(OwnDiagnostics, KeepsTheStudentsFileAndCountsTheRest) {
  const std::string log =
      "/in/kernel.cu(3): error: x\n  int a = b;\n          ^\n"
      "/etc/shadow:1:1: error: root:x:0:0\n root:x:0:0\n"
      "/in/probe_main.cu(9): error: y\n";
  const std::string s = own_diagnostics(log, "/in/kernel.cu", "labs/05/kernel.cu", "labs/05_swizzle/judge/probe.cu");
  EXPECT_NE(s.find("labs/05/kernel.cu(3): error: x\n  int a = b;\n          ^\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("root"), std::string::npos) << s;
  EXPECT_EQ(s.find("probe_main.cu(9): error: y"), std::string::npos) << s;  // the judge's own source: not shown
  EXPECT_NE(s.find("(3 line(s) of the compiler's output about other files were left out"), std::string::npos) << s;
}

TEST(OwnDiagnostics, KeepsTheDriversOwnLinesAndNothingAfterThem) {
  const std::string log =
      "gcc: internal compiler error: File size limit exceeded signal terminated program as\n"
      "Please submit a full bug report, with preprocessed source (by using -freport-bug).\n"
      "/etc/shadow:1:1: error: x\n    1 | root:x:0:0\n"
      "/usr/bin/ld: /tmp/tmpxft_1.o: in function `launch(float*)':\n"
      "collect2: error: ld returned 1 exit status\n"
      "nvcc error   : 'cicc' died due to signal 9 (Kill signal)\n";
  const std::string s = own_diagnostics(log, "/in/kernel.cu", "kernel.cu", "labs/05_swizzle/judge/probe.cu");
  EXPECT_NE(s.find("gcc: internal compiler error: File size limit exceeded"), std::string::npos) << s;
  EXPECT_NE(s.find("collect2: error: ld returned 1 exit status"), std::string::npos) << s;
  EXPECT_NE(s.find("/usr/bin/ld: /tmp/tmpxft_1.o: in function"), std::string::npos) << s;
  EXPECT_NE(s.find("'cicc' died due to signal 9"), std::string::npos) << s;
  EXPECT_EQ(s.find("root"), std::string::npos) << s;
  EXPECT_EQ(s.find("Please submit"), std::string::npos) << s;
  EXPECT_NE(s.find("(3 line(s) of the compiler's output about other files were left out: the judge shows only messages "
                   "about your own file)"), std::string::npos) << s;
}

TEST(HasLineDirective, FindsEveryForm) {
  EXPECT_TRUE(has_line_directive("int a;\n#line 1 \"bwrap: x\"\n"));
  EXPECT_TRUE(has_line_directive("  #  line\t5\n"));
  EXPECT_TRUE(has_line_directive("# 12 \"f.cu\"\n"));
  EXPECT_FALSE(has_line_directive("#include <x>\n#lineage\n// #line 1\nint line = 1;\n"));
}

// The regular expressions the hand scanner replaced (build.cpp before issue 45), as the reference:
// run only over short lines here, where their recursion is harmless.
std::string by_regex(const std::string& line) {
  static const std::regex located(R"(^(?:In file included from |\s+from )?([^\s:(][^:(]*?)(?:\((\d+)\)|:(\d+)(?::\d+)?)[:,]?(\s|$))");
  static const std::regex in_function(R"(^([^\s:][^:]*): (In |At )[^\n]*:$)");
  std::smatch m;
  if (std::regex_search(line, m, located) || std::regex_search(line, m, in_function)) return m[1];
  return "";
}

std::string random_line(std::mt19937& rng, std::size_t max_len) {
  static const std::vector<std::string> pieces = {
      "/in/kernel.cu", "/in/probe_main.cu", "In file included from ", "   from ", "from ", ":", "(", ")", "12", "3",
      ",", " ", "\t", "error", ": In function 'f':", ": At global scope:", "x", "\r", "\x1b[2K", "\xe2\x80\xae", "\n"};
  std::string s;
  const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 12)(rng);
  for (std::size_t i = 0; i < n && s.size() < max_len; ++i) {
    if (rng() % 8 == 0) s += static_cast<char>(rng() % 256);
    else s += pieces[rng() % pieces.size()];
  }
  return s;
}

TEST(TextFuzz, TheScannerSaysWhatTheRegularExpressionsSaid) {
  std::mt19937 rng(45);
  for (int i = 0; i < 20000; ++i) {
    std::string line = random_line(rng, 120);
    line.erase(std::remove(line.begin(), line.end(), '\n'), line.end());  // one line, as the reader splits them
    ASSERT_EQ(located_file(line), by_regex(line)) << "line: " << clean_text(line, 400, false);
  }
}

TEST(TextFuzz, RandomAndHugeInputsCostTheirLength) {
  std::mt19937 rng(4545);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 300; ++i) {
    std::string log;
    while (log.size() < 4000) log += random_line(rng, 200) + "\n";
    if (i % 50 == 0) log += "/in/kernel.cu:1:2: error: #error " + std::string(300000, i % 100 ? ' ' : 'x') + "\n";
    const std::string kept = own_diagnostics(log, "/in/kernel.cu", "kernel.cu", "labs/05_swizzle/judge/probe.cu");
    EXPECT_LE(kept.size(), log.size() + 400);
    const std::string shown = clean_text(kept);
    EXPECT_TRUE(is_clean(shown));
    EXPECT_LE(shown.size(), 4 * kQuoteBytes + 200);
    (void)has_line_directive(log);
    std::string bytes(static_cast<std::size_t>(rng() % 9000), '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 256);
    const std::string b = clean_text(bytes, 5000, i % 2 == 0);
    EXPECT_TRUE(is_clean(b, i % 2 == 0)) << i;
    EXPECT_EQ(clean_text(b, 1 << 20, i % 2 == 0), b);  // nothing left to escape
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

// The probe's answers as the probe writes them (grader/probe/probe_runtime.cpp), one record of
// each kind the fuzz run below mutates.
const std::string kAnswers =
    "banklab-answers 1 lab 05\n"
    "value kTileDim 32\n"
    "predict wavefronts 4\n"
    "begin tile_index\n"
    "table tile_index 2 2 2 0 1 2 3\n"
    "call transpose(1024) ok 2 4194304 4194304 1\n"
    "L launch _Z9transposePfPKf 32 32 1 32 8 1 0 2 p 0 0 p 1 0\n"
    "end 4\n";

// Answers::load reads a path: one file, in memory where the machine has /dev/shm.
const std::string& fuzz_path() {
  static const std::string path =
      (access("/dev/shm", W_OK) == 0 ? std::string("/dev/shm/") : ::testing::TempDir()) + "banklab_answers_fuzz_" +
      std::to_string(getpid()) + ".txt";
  return path;
}

std::optional<std::string> load_text(const std::string& text, grader::Answers& a) {
  std::ofstream(fuzz_path(), std::ios::binary | std::ios::trunc) << text;
  const auto err = a.load(fuzz_path(), "05");
  std::remove(fuzz_path().c_str());
  return err;
}

TEST(AnswersFuzz, TheProbesRecordsAreReadAndAnythingElseRefused) {
  grader::Answers a;
  ASSERT_EQ(load_text(kAnswers, a), std::nullopt);
  std::string esc = kAnswers;
  esc.replace(esc.find("_Z9"), 3, "\x1b]2;x\x07");
  grader::Answers b;
  const auto err = load_text(esc, b);
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("holds bytes that are no text"), std::string::npos) << *err;
}

// Byte flips, cuts, repeated spans, random bytes and huge tokens in the answers: each is read
// (accepted or refused with a reason) without a crash, an exception or a stall, and whatever
// reason a refusal gives prints clean.
TEST(AnswersFuzz, MutatedAnswersAreReadOrRefusedWithAReason) {
  std::mt19937 rng(4546);
  const auto t0 = std::chrono::steady_clock::now();
  int refused = 0;
  for (int i = 0; i < 1000; ++i) {
    std::string t = kAnswers;
    for (int m = 0, n = 1 + static_cast<int>(rng() % 4); m < n; ++m) {
      const std::size_t at = t.empty() ? 0 : rng() % t.size();
      switch (rng() % 6) {
        case 0: if (!t.empty()) t[at] = static_cast<char>(rng() % 256); break;
        case 1: t.resize(at); break;
        case 2: t.insert(at, t.substr(at, rng() % 64)); break;
        case 3: t.insert(at, 1, " 0123456789-x\n\x1b"[rng() % 15]); break;
        case 4: t.insert(at, std::string(rng() % 20 ? 100 : 300000, "9 x"[rng() % 3])); break;
        default: t.insert(at, std::to_string(static_cast<long long>(rng()) * 4099)); break;
      }
    }
    grader::Answers a;
    std::optional<std::string> err;
    ASSERT_NO_THROW(err = load_text(t, a)) << i;
    if (err) {
      ++refused;
      EXPECT_TRUE(judge::is_clean(clean_text(*err, 400, false), false));
    }
  }
  EXPECT_GT(refused, 300);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 40.0);
}

}  // namespace
}  // namespace judge
