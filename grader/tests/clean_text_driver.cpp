// The judge's cleaner (grader/judge/clean_text.cpp) on texts given as hex, one a line: "M <limit> <hex>"
// a multi-line message, "S <limit> <hex>" one line, cut at `limit` bytes; prints each cleaned text as
// hex, one a line. For
// grader/tests/test_clean_text_agrees.py, which compares it with Python's banklab.grading.cleantext.
#include <cstdio>
#include <iostream>
#include <string>

#include "clean_text.hpp"

int main() {
  std::string line;
  static const char kHex[] = "0123456789abcdef";
  while (std::getline(std::cin, line)) {
    const std::size_t space = line.find(' ', 2);
    if (line.size() < 2 || (line[0] != 'M' && line[0] != 'S') || line[1] != ' ' || space == std::string::npos) return 2;
    const std::size_t limit = std::stoul(line.substr(2, space - 2));
    std::string raw;
    for (std::size_t i = space + 1; i + 1 < line.size(); i += 2)
      raw += static_cast<char>(std::stoi(line.substr(i, 2), nullptr, 16));
    const std::string out = judge::clean_text(raw, limit, line[0] == 'M');
    std::string hex;
    for (const unsigned char c : out) hex += {kHex[c >> 4], kHex[c & 15]};
    std::cout << hex << '\n';
  }
  return 0;
}
