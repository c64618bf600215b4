// OutputCapture (grader/judge/output_capture.hpp): what a test process writes while a test runs
// (a kernel's printf among it) reaches the test's log or this process's output cleaned, never raw.
#include "output_capture.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// What a student's kernel could print (CUDA's printf reaches the process's stdout): a clipboard
// write (OSC 52), a window title (OSC 2), an erase of the line, a carriage return.
const char kHostile[] = "\x1b]52;c;Y3VybCB8IHNoCg==\x07\x1b]2;banklab: every submission graded\x07\x1b[2K\rok\n";

// The case: true = the test has a log (grade-class, --logs), false = none (ctest's own run).
class OutputCaptureCleans : public ::testing::TestWithParam<bool> {};

TEST_P(OutputCaptureCleans, NoByteATerminalActsOn) {
  const bool to_log = GetParam();
  char dir[] = "/tmp/banklab-capture-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string log = std::string(dir) + "/test.log";
  const std::string outer = std::string(dir) + "/outer.txt";
  // This process's own output goes to `outer` for the case: what a terminal would have been shown.
  std::fflush(stdout);
  const int saved = dup(1);
  FILE* f = std::freopen(outer.c_str(), "w", stdout);
  ASSERT_NE(f, nullptr);
  {
    judge::OutputCapture capture;
    capture.start(to_log ? log : "");
    std::fputs(kHostile, stdout);
    std::fputs(kHostile, stderr);
    capture.release();
  }
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  const std::string shown = to_log ? slurp(log) : slurp(outer);
  EXPECT_EQ(shown.find('\x1b'), std::string::npos) << shown;
  EXPECT_EQ(shown.find('\r'), std::string::npos) << shown;
  EXPECT_EQ(shown.find('\x07'), std::string::npos) << shown;
  EXPECT_NE(shown.find("\\x1b]52;c;"), std::string::npos) << "the text is shown, escaped: " << shown;
  EXPECT_NE(shown.find("ok\n"), std::string::npos) << shown;
  if (to_log) EXPECT_EQ(slurp(outer), "") << "a test with a log prints nothing of its own output";
}

INSTANTIATE_TEST_SUITE_P(Where, OutputCaptureCleans,
                         ::testing::Values(true, false),
                         [](const auto& info) { return std::string(info.param ? "ToTheTestsLog" : "ToThisProcesssOutput"); });

TEST(OutputCapture, AFloodIsCutAndTheCutSaid) {
  char dir[] = "/tmp/banklab-capture-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string log = std::string(dir) + "/flood.log";
  {
    judge::OutputCapture capture;
    capture.start(log);
    const std::string line(1000, 'x');
    for (int i = 0; i < 1000; ++i) std::printf("%s\n", line.c_str());  // ~1 MB, as a printf loop makes
    capture.release();
  }
  const std::string shown = slurp(log);
  EXPECT_LT(shown.size(), judge::OutputCapture::kKeptBytes + 512);
  EXPECT_NE(shown.find("more bytes not"), std::string::npos) << shown.substr(shown.size() - 200);
}

}  // namespace
