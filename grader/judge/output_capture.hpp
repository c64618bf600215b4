// A test's own output (descriptors 1 and 2: GoogleTest's printer, the CUDA runtime's copy of a
// kernel's printf, anything the student's device code makes the process write) held while the test
// runs and let out only cleaned (clean_text.hpp): into the test's log, or onto this process's
// output when there is no log. Nothing a student's kernel prints reaches a terminal or a file raw.
#pragma once

#include <cstddef>
#include <string>

namespace judge {

class OutputCapture {
 public:
  /// How much of one test's output is kept (the cut is said, as clean_text says it).
  static constexpr std::size_t kKeptBytes = 64 << 10;

  OutputCapture();
  ~OutputCapture();
  OutputCapture(const OutputCapture&) = delete;
  OutputCapture& operator=(const OutputCapture&) = delete;

  /// From now on descriptors 1 and 2 write into a file in memory. `log` is where the cleaned text
  /// goes at release() ("" = this process's output as it was before). If the memory file cannot be
  /// made, the output stays where it was and nothing is captured (the verdict is written anyway).
  void start(const std::string& log);
  /// Descriptors 1 and 2 back, and what was written meanwhile cleaned and cut, to the log or out.
  void release();

 private:
  int out_, err_;
  int mem_ = -1;
  std::string log_;
};

}  // namespace judge
