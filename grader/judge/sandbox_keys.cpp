// Nothing of the caller's keys reaches a step: a fresh session keyring a step, the keyring calls
// filtered (libseccomp), a leased uid's user keyrings cleared. See sandbox_keys.hpp.
#include "sandbox_keys.hpp"

#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#ifdef BANKLAB_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace judge {
namespace {

long keyctl(int op, unsigned long a = 0, unsigned long b = 0, unsigned long c = 0) {
  return syscall(SYS_keyctl, op, a, b, c, 0UL);
}

struct Filter {
  std::string bpf, why;
};

#ifdef BANKLAB_HAVE_SECCOMP
// add_key, request_key and keyctl fail with EPERM (what Docker's default profile answers for a
// call it does not allow); everything else is allowed. The other ABIs a process of this machine
// can enter the kernel with (i386 and x32 on x86-64, arm on arm64) get the same rules: a
// filter for the native one alone would let `int $0x80` reach keyctl.
Filter make_filter() {
  Filter f;
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return f.why = "libseccomp's seccomp_init failed", f;
  std::vector<uint32_t> abis;
  const uint32_t native = seccomp_arch_native();
  if (native == SCMP_ARCH_X86_64) abis = {SCMP_ARCH_X86, SCMP_ARCH_X32};
  if (native == SCMP_ARCH_AARCH64) abis = {SCMP_ARCH_ARM};
  int rc = 0;
  for (uint32_t a : abis)
    if (rc == 0 && (rc = seccomp_arch_add(ctx, a)) == -EEXIST) rc = 0;
  for (int call : {SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(keyctl)})
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), call, 0);
  const int fd = static_cast<int>(syscall(SYS_memfd_create, "banklab-keyring-filter", 0u));
  if (rc == 0 && fd >= 0 && (rc = seccomp_export_bpf(ctx, fd)) == 0) {
    lseek(fd, 0, SEEK_SET);
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) f.bpf.append(buf, static_cast<std::size_t>(n));
  }
  if (fd >= 0) close(fd);
  seccomp_release(ctx);
  if (f.bpf.empty() || f.bpf.size() % sizeof(sock_filter) != 0) {
    f.bpf.clear();
    f.why = std::string("libseccomp could not make the keyring filter (") + (rc ? std::strerror(-rc) : "no program") + ")";
  }
  return f;
}
#else
Filter make_filter() {
  return {"", "this judge was built without libseccomp, which makes the steps' filter over the keyring calls"};
}
#endif

}  // namespace

bool join_fresh_session_keyring() {
  // A name of NULL: a new anonymous keyring, joined as this process's session keyring. ENOSYS: a
  // kernel without keys; EPERM: the keyring calls are filtered already (a container's default
  // seccomp profile, Docker's and Podman's), for this process and every process it starts.
  return keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0) >= 0 || errno == ENOSYS || errno == EPERM;
}

const std::string& keyring_filter(std::string* why) {
  static const Filter f = make_filter();
  if (why) *why = f.why;
  return f.bpf;
}

bool load_keyring_filter() {
  const std::string& bpf = keyring_filter();
  if (bpf.empty()) return false;
  sock_fprog prog{};
  prog.len = static_cast<unsigned short>(bpf.size() / sizeof(sock_filter));
  prog.filter = reinterpret_cast<sock_filter*>(const_cast<char*>(bpf.data()));
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

bool clear_user_keyrings(uid_t uid) {
  if (geteuid() != 0) return false;
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    if (setgroups(0, nullptr) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0) _exit(2);
    int bad = 0;
    for (int which : {KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING}) {
      const long id = keyctl(KEYCTL_GET_KEYRING_ID, static_cast<unsigned long>(which), 1);
      if (id < 0) {  // no keys, or the keyring calls filtered here: nothing there to clear
        bad += errno != ENOSYS && errno != EPERM;
        continue;
      }
      keyctl(KEYCTL_CLEAR, static_cast<unsigned long>(id));
      // What is left linked in it: KEYCTL_READ of a keyring gives its keys' ids (none).
      char ids[64];
      bad += keyctl(KEYCTL_READ, static_cast<unsigned long>(id), reinterpret_cast<unsigned long>(ids), sizeof ids) != 0;
    }
    _exit(bad == 0 ? 0 : 1);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

}  // namespace judge
