// Nothing of the caller's keys reaches a step (grader/judge/sandbox_keys.hpp, issue 45 item 4).
// The test plants a key as a Kerberos login would ("krb5cc:instructor" in its session keyring)
// and looks for it from a forked child as a step starts: with the judge's protections it finds
// nothing; each control, the same child without one of them, reads the key (the test can fail).
// As root the child drops to nobody as a step drops to its uid; as a normal user it keeps the
// caller's uid, as a normal user's judge's steps do.
#include <linux/keyctl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "sandbox.hpp"
#include "sandbox_keys.hpp"

namespace {

constexpr char kSecret[] = "TGT-for-instructor@EXAMPLE.EDU";

long keyctl(int op, long a = 0, long b = 0, long c = 0) { return syscall(SYS_keyctl, op, a, b, c, 0L); }
long add_key(const char* type, const char* desc, const void* data, std::size_t n, long ring) {
  return syscall(SYS_add_key, type, desc, data, n, ring);
}

// What a probe finds: the payload read by the key's id, or by searching its session keyring for
// the key's name; "" with the last error when it finds nothing.
std::string look_for(long id, std::string* err) {
  char buf[256] = {};
  long n = keyctl(KEYCTL_READ, id, reinterpret_cast<long>(buf), sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<std::size_t>(std::min<long>(n, sizeof buf - 1)));
  *err = std::string("read by id: ") + std::strerror(errno);
  const long found = keyctl(KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, reinterpret_cast<long>("user"),
                            reinterpret_cast<long>("krb5cc:instructor"));
  if (found >= 0 && (n = keyctl(KEYCTL_READ, found, reinterpret_cast<long>(buf), sizeof buf - 1)) > 0)
    return std::string(buf, static_cast<std::size_t>(std::min<long>(n, sizeof buf - 1)));
  *err += std::string("; search @s: ") + std::strerror(errno);
  return "";
}

// Runs `step` in a forked child and returns what it wrote to its pipe.
std::string in_child(const std::function<std::string()>& step) {
  int p[2];
  if (pipe(p) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    const std::string out = step();
    if (write(p[1], out.data(), out.size()) < 0) _exit(2);
    _exit(0);
  }
  close(p[1]);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  close(p[0]);
  waitpid(pid, nullptr, 0);
  return out;
}

#if defined(__x86_64__)
// KEYCTL_READ of `id` through the i386 ABI (`int $0x80`, whose keyctl is 288), which a 64-bit
// process may use where the kernel runs 32-bit programs: what it read, or "errno N".
std::string keyctl_read_i386(long id) {
  // The i386 ABI takes 32-bit pointers: a buffer in the low 2 GiB.
  void* low = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (low == MAP_FAILED) return "no low buffer";
  long ret = 288;
  asm volatile("int $0x80" : "+a"(ret) : "b"(KEYCTL_READ), "c"(id), "d"(low), "S"(255L) : "memory");
  const std::string out = ret > 0 ? std::string(static_cast<char*>(low), static_cast<std::size_t>(std::min(ret, 255L)))
                                  : "errno " + std::to_string(-ret);
  munmap(low, 4096);
  return out;
}
#endif

bool drop_to_nobody() {  // as a step of a root judge: another uid, no group
  return getuid() != 0 || (setgroups(0, nullptr) == 0 && setgid(65534) == 0 && setuid(65534) == 0);
}

// The caller: a session keyring of the test's own (nothing of whoever runs the tests is touched)
// holding the key, with the permissions given.
class Keyrings : public ::testing::Test {
 protected:
  void SetUp() override {
    if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0) < 0) GTEST_SKIP() << "no keyrings here: " << std::strerror(errno);
    id_ = add_key("user", "krb5cc:instructor", kSecret, sizeof kSecret - 1, KEY_SPEC_SESSION_KEYRING);
    ASSERT_GE(id_, 0) << std::strerror(errno);
  }
  long id_ = -1;
};

}  // namespace

TEST_F(Keyrings, AStepsFreshSessionKeyringHoldsNothingOfTheCallers) {
  // Control: a child as steps were before, dropped to its uid, still possesses the caller's
  // session keyring, and reads the key by its id and by its name.
  const std::string control = in_child([&] {
    std::string err;
    return drop_to_nobody() ? look_for(id_, &err) + err : "drop failed";
  });
  EXPECT_EQ(control, kSecret) << "the control found nothing: the test proves nothing";
  const std::string step = in_child([&] {
    std::string err;
    if (!judge::join_fresh_session_keyring()) return std::string("join failed: ") + std::strerror(errno);
    if (!drop_to_nobody()) return std::string("drop failed");
    const std::string found = look_for(id_, &err);
    return found.empty() ? "nothing (" + err + ")" : found;
  });
  EXPECT_EQ(step.find(kSecret), std::string::npos) << step;
  EXPECT_EQ(step.rfind("nothing (", 0), 0u) << step;
}

TEST_F(Keyrings, TheFilterFailsEveryKeyringCallOfAStepOfTheCallersOwnUid) {
  // A key its owner's uid may read (as Kerberos' and AFS' keys may be): a fresh session keyring
  // alone does not stop a step of that uid (a normal user's judge) reading it by its id.
  ASSERT_EQ(keyctl(KEYCTL_SETPERM, id_, 0x3f3f0000), 0) << std::strerror(errno);
  std::string why;
  ASSERT_FALSE(judge::keyring_filter(&why).empty()) << why;
  const std::string control = in_child([&] {
    std::string err;
    if (!judge::join_fresh_session_keyring()) return std::string("join failed");
    return look_for(id_, &err) + err;
  });
  EXPECT_EQ(control, kSecret) << "the control found nothing: the test proves nothing";
  const std::string step = in_child([&] {
    std::string err, out;
    if (!judge::join_fresh_session_keyring() || !judge::load_keyring_filter()) return std::string("setup failed");
    const std::string found = look_for(id_, &err);
    out = found.empty() ? "nothing (" + err + ")" : found;
    // The other two calls fail as well: nothing the step could keep in a keyring for later.
    errno = 0;
    if (add_key("user", "left-for-later", "x", 1, KEY_SPEC_USER_KEYRING) >= 0 || errno != EPERM) out += " add_key!";
    errno = 0;
    if (syscall(SYS_request_key, "user", "krb5cc:instructor", nullptr, 0) >= 0 || errno != EPERM)
      out += " request_key!";
    return out;
  });
  EXPECT_EQ(step.find(kSecret), std::string::npos) << step;
  EXPECT_EQ(step, "nothing (read by id: Operation not permitted; search @s: Operation not permitted)");
#if defined(__x86_64__)
  // The same call through the i386 ABI: the filter holds there too (its control reads the key).
  const std::string i386_control =
      in_child([&] { return judge::join_fresh_session_keyring() ? keyctl_read_i386(id_) : std::string("join failed"); });
  if (i386_control == "errno " + std::to_string(ENOSYS)) GTEST_SKIP() << "this kernel runs no i386 programs";
  EXPECT_EQ(i386_control, kSecret) << "the i386 control found nothing: the case proves nothing";
  const std::string i386_step = in_child([&] {
    return judge::join_fresh_session_keyring() && judge::load_keyring_filter() ? keyctl_read_i386(id_) : "setup failed";
  });
  EXPECT_EQ(i386_step, "errno " + std::to_string(EPERM));
#endif
}

TEST(LeasedUidKeyrings, AreEmptiedWhenTheJudgeLeasesAndEndsItsLease) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (only a root judge leases uids)";
  uid_t uid = 57999;  // below the leased range (58000..58999): no live judge's
  while (getpwuid(uid)) --uid;
  auto as_uid = [uid](const std::function<std::string()>& f) {
    return in_child([&] {
      if (setgroups(0, nullptr) != 0 || setgid(uid) != 0 || setuid(uid) != 0) return std::string("drop failed");
      return f();
    });
  };
  // What a step of an older judge (or of one without the filter) left in that uid's user keyring.
  const std::string planted = as_uid([] {
    return add_key("user", "left-for-later", kSecret, sizeof kSecret - 1, KEY_SPEC_USER_KEYRING) >= 0
               ? std::string("planted") : std::string("add_key: ") + std::strerror(errno);
  });
  for (int e : {EPERM, ENOSYS})
    if (planted == std::string("add_key: ") + std::strerror(e))
      GTEST_SKIP() << "no keyrings here (" << planted << "): nothing to leave for the next judge";
  ASSERT_EQ(planted, "planted");
  auto look = [] {
    const long found = keyctl(KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, reinterpret_cast<long>("user"),
                              reinterpret_cast<long>("left-for-later"));
    return found >= 0 ? std::string("found") : std::string("gone");
  };
  EXPECT_EQ(as_uid(look), "found") << "the control: the key outlives the process that added it";
  EXPECT_TRUE(judge::clear_user_keyrings(uid));
  EXPECT_EQ(as_uid(look), "gone");
}

// A judge in a container whose default seccomp profile fails the keyring calls already (Docker's,
// Podman's: PrairieLearn's and many a CI's) cannot join a keyring, and has none to reach: its steps
// start and run (they did not, when a failed join ended every step).
TEST(FilteredKeyrings, AStepRunsWhereTheKeyringCallsAreFailedAlready) {
  const judge::SandboxInfo& sb = judge::sandbox_info();
  if (!sb.available) GTEST_SKIP() << sb.describe();
  const std::string ran = in_child([] {
    if (!judge::load_keyring_filter()) return std::string("filter not loaded");  // the container's filter
    judge::Step s;
    s.argv = {"/bin/sh", "-c", "echo ran"};
    const judge::StepResult r = judge::run_steps({s}).front();
    return r.out + r.sandbox_error + r.err + r.process.describe();
  });
  EXPECT_EQ(ran, "ran\nexit 0");
}
