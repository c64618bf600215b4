// Cheat: write 1 GiB of "[  PASSED  ]" lines to stdout and 256 MiB to stderr from a static
// initializer, then go on normally: a grader that keeps all of a student's output in memory, or
// waits for a pipe nobody drains, stalls; one that searches it for markers is fooled.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// BUILD: may-fail: a probe that floods its output may be stopped at its time limit with no answers
// SLOW: yes
#include <unistd.h>

#include <cstring>
namespace banklab_cheat_flood {
const int kFlooded = [] {
  static char line[65536];
  const char* text = "[  PASSED  ] 1 test.\n";
  const std::size_t n = std::strlen(text);
  for (std::size_t i = 0; i + n <= sizeof line; i += n) std::memcpy(line + i, text, n);
  const std::size_t chunk = sizeof line - sizeof line % n;
  for (int i = 0; i < (1 << 30) / static_cast<int>(chunk); ++i)
    if (write(1, line, chunk) < 0) break;
  for (int i = 0; i < (1 << 28) / static_cast<int>(chunk); ++i)
    if (write(2, line, chunk) < 0) break;
  return 0;
}();
}  // namespace banklab_cheat_flood
