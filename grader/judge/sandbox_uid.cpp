// A root judge's steps: never root. The judge leases a uid of its own (kUidBase..), held by an
// flock for as long as it runs, and each step drops to it: inside a bubblewrap started as root
// (no user namespace needed) with setpriv, every capability gone and no new privileges; or, where
// bubblewrap must make a user namespace, by setuid in the forked child before bubblewrap starts.
// With no lease to be had the steps run as nobody. See sandbox_modes.hpp for the other modes.
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "sandbox_keys.hpp"
#include "sandbox_modes.hpp"

namespace judge {
namespace {

// The uids a root judge leases, one per judge process (one submission), never one of the
// system's users; the lease is an flock on a file of a root-only folder, held until the judge ends.
// A step runs as it inside bubblewrap's PID namespace: nothing of it outlives the step.
constexpr uid_t kUidBase = 58000;
constexpr int kUidCount = 1000;
constexpr const char* kLeaseDir = "/run/banklab-judge";
uid_t g_leased = 0;

// A leased uid's user keyrings are the kernel's, not the sandbox's: they outlive the step and the
// judge (until reboot), so whatever a judge's steps put there, an older judge's too, would be there
// for the next judge leased that uid. Emptied when leased and again when this judge ends.
void clear_leased_keyrings() { clear_user_keyrings(g_leased); }

// The lease folder: root's own, not a link, writable by root alone.
bool lease_dir_ok() {
  mkdir(kLeaseDir, 0700);
  struct stat st {};
  return lstat(kLeaseDir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 && (st.st_mode & 022) == 0;
}

}  // namespace

// One uid of kUidBase.. that no user or group of the system has, held by an flock for as long as
// this judge runs (its descriptor closes with the process); -1 when none can be had (the steps
// then run as nobody).
long long leased_uid() {
  static const long long uid = [] {
    if (!is_root() || !lease_dir_ok()) return -1LL;
    for (int i = 0; i < kUidCount; ++i) {
      const uid_t u = kUidBase + static_cast<uid_t>((getpid() + i) % kUidCount);
      if (getpwuid(u) || getgrgid(u)) continue;  // someone's: never ours
      const std::string f = std::string(kLeaseDir) + "/uid-" + std::to_string(u) + ".lock";
      const int fd = open(f.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0) continue;
      if (flock(fd, LOCK_EX | LOCK_NB) == 0) {  // fd stays open: the lease
        g_leased = u;
        clear_leased_keyrings();
        std::atexit(clear_leased_keyrings);
        return static_cast<long long>(u);
      }
      close(fd);
    }
    return -1LL;
  }();
  return uid;
}

uid_t step_uid(const SandboxInfo& sb) { return sb.uid >= 0 ? static_cast<uid_t>(sb.uid) : kNobody; }

bool can_start_bwrap_as_root() { return is_root() && access(kSetpriv, X_OK) == 0; }

std::vector<std::string> setpriv_args(const SandboxInfo& sb) {
  if (!sb.as_root) return {};
  const std::string u = std::to_string(step_uid(sb));
  return {kSetpriv, "--reuid", u, "--regid", u, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
          "--no-new-privs", "--"};
}

bool drop_before_bwrap(const SandboxInfo& sb) {
  if (!(is_root() && sb.available && !sb.as_root)) return true;  // nothing to drop here
  const uid_t as = step_uid(sb);
  return setgroups(0, nullptr) == 0 && setgid(as) == 0 && setuid(as) == 0;
}

std::string trial_runs_as(const SandboxInfo& sb) {
  if (sb.as_root) return " as root (steps as uid " + std::to_string(step_uid(sb)) + ")";
  if (!is_root()) return "";
  return sb.uid >= 0 ? " as uid " + std::to_string(sb.uid) : " as user nobody";
}

std::string steps_run_as(const SandboxInfo& sb) {
  return sb.uid >= 0 ? "uid " + std::to_string(sb.uid) + " (leased for this judge)" : "user nobody";
}

}  // namespace judge
