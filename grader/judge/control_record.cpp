// A control's pass, kept for the judge processes that follow it while it provably still holds
// (control_record.hpp).
#include "control_record.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "process.hpp"
#include "sha256.hpp"

namespace judge {
namespace {

std::string boot_id() {
  std::string b = read_file("/proc/sys/kernel/random/boot_id", 128);
  while (!b.empty() && (b.back() == '\n' || b.back() == ' ')) b.pop_back();
  return b;
}

long long boot_seconds() {
  timespec t{};
  clock_gettime(CLOCK_BOOTTIME, &t);
  return static_cast<long long>(t.tv_sec);
}

std::string stat_words(const struct stat& s) {
  return std::to_string(s.st_dev) + " " + std::to_string(s.st_ino) + " " + std::to_string(s.st_size) + " " +
         std::to_string(s.st_mode) + " " + std::to_string(s.st_mtim.tv_sec) + "." + std::to_string(s.st_mtim.tv_nsec) +
         " " + std::to_string(s.st_ctim.tv_sec) + "." + std::to_string(s.st_ctim.tv_nsec);
}

// A file by what it is now: its real path, its identity and, with `folder`, its folder's (a tool
// replaced, or a program added beside it that it runs, changes them).
std::string identity(const std::string& path, bool folder = true) {
  char real[PATH_MAX];
  if (path.empty() || !realpath(path.c_str(), real)) return path + " (none)";
  const std::string r = real;
  struct stat f{}, d{};
  const std::string dir = r.substr(0, std::max<std::size_t>(r.rfind('/'), 1));
  if (stat(r.c_str(), &f) != 0 || (folder && stat(dir.c_str(), &d) != 0)) return r + " (unreadable)";
  return r + " [" + stat_words(f) + "]" + (folder ? " in [" + stat_words(d) + "]" : "");
}

// A path the step sees inside its sandbox (or, unconfined, in its scratch under /tmp), not a host tool.
bool inside_only(const std::string& a) {
  for (const char* p : {"/in/", "/inc/", "/tmp/"})
    if (a.compare(0, std::string(p).size(), p) == 0) return true;
  return false;
}

// The steps' cgroups by kind: v1 or v2, delegated or not, or none (not by the folder they are made
// under: the cgroup the judge itself was started in, one per run under some launchers).
std::string cgroup_kind(const SandboxInfo& sb) {
  if (sb.cgroup.empty()) return "none";
  return sb.cgroup.substr(0, sb.cgroup.find(' ')) +
         (sb.cgroup.find("(delegated") != std::string::npos ? " delegated" : "");
}

std::string pass_path(const std::string& dir, const std::string& key) { return dir + "/pass-" + key; }

}  // namespace

std::string control_key(const std::vector<Step>& steps) {
  const SandboxInfo& sb = sandbox_info();
  std::ostringstream k;
  const char* path = std::getenv("PATH");
  k << "banklab-judge control 1\neuid " << geteuid() << "\nboot " << boot_id() << "\njudge " << identity(self_path(), false)
    << "\nsandbox " << mode_name(sb.mode) << " " << sb.as_root << " " << sb.userns_disabled << " " << identity(sb.tool)
    << "\ncgroup " << cgroup_kind(sb) << "\nPATH " << (path ? path : "") << "\n";
  for (const Step& s : steps) {
    k << "step\n";
    for (const std::string& a : s.argv) {
      k << "arg " << a.size() << " " << a << "\n";
      if (!a.empty() && a[0] == '/' && !inside_only(a)) k << "file " << identity(a) << "\n";
    }
    const StepLimits& l = s.limits;
    k << "limits " << l.timeout_s << " " << l.address_space << " " << l.cpu_s << " " << l.processes << " " << l.file_size
      << " " << l.tmp_size << " " << l.dev_size << " " << l.memory << " " << s.max_stdout << " " << s.max_stderr << " "
      << s.answers_fd << " " << s.max_answers << "\n";
    for (const StepInput& in : s.inputs)
      k << "input " << in.path << " " << in.executable << " " << sha256_hex(in.content) << "\n";
  }
  return sha256_hex(k.str());
}

std::string control_dir(std::string* why) {
  const std::string dir = "/tmp/banklab-judge-control-" + std::to_string(geteuid());
  mkdir(dir.c_str(), 0700);
  struct stat s{};
  std::string no;
  if (lstat(dir.c_str(), &s) != 0) no = "it cannot be made";
  else if (!S_ISDIR(s.st_mode)) no = "it is not a folder";
  else if (s.st_uid != geteuid()) no = "it belongs to uid " + std::to_string(s.st_uid);
  else if ((s.st_mode & 077) != 0) no = "others may use it (mode " + std::to_string(s.st_mode & 0777) + ")";
  if (no.empty()) return dir;
  if (why) *why = dir + ": " + no;
  return "";
}

ControlLock::ControlLock(const std::string& dir) {
  if (dir.empty()) return;
  fd_ = open((dir + "/lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ >= 0) flock(fd_, LOCK_EX);
}

ControlLock::~ControlLock() {
  if (fd_ >= 0) close(fd_);  // the lock goes with the descriptor
}

std::optional<std::string> fresh_control_pass(const std::string& dir, const std::string& key, std::string* why) {
  if (dir.empty()) return std::nullopt;
  const std::string path = pass_path(dir, key);
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat s{};
  std::string text, no;
  if (fstat(fd, &s) != 0 || !S_ISREG(s.st_mode)) no = "it is not a file";
  else if (s.st_uid != geteuid()) no = "it belongs to uid " + std::to_string(s.st_uid);
  else if ((s.st_mode & 022) != 0) no = "others may write it";
  char buf[512];
  const ssize_t n = no.empty() ? read(fd, buf, sizeof buf) : 0;
  if (n > 0) text.assign(buf, static_cast<std::size_t>(n));
  close(fd);
  std::istringstream in(text);
  std::string head, boot_word, boot, at_word, pid_word;
  long long at = -1, pid = -1;
  std::getline(in, head);
  in >> boot_word >> boot >> at_word >> at >> pid_word >> pid;
  const long long age = boot_seconds() - at;
  if (!no.empty()) {
    // not this user's own file: not read
  } else if (head != "banklab-judge control pass" || boot_word != "boot" || at_word != "at" || pid_word != "pid" ||
             at < 0) {
    no = "it does not read as a pass";
  } else if (boot != boot_id()) {
    no = "it is from another boot of this machine";
  } else if (age < 0 || age > kControlFreshS) {
    no = "it is " + std::to_string(age) + " s old, more than " + std::to_string(kControlFreshS) + " s";
  }
  if (!no.empty()) {
    if (why) *why = "the pass kept in " + path + " was not reused: " + no;
    return std::nullopt;
  }
  return "passed " + std::to_string(age) + " s ago (judge process " + std::to_string(pid) + "), kept in " + path;
}

std::string record_control_pass(const std::string& dir, const std::string& key) {
  if (dir.empty()) return "";
  const std::string path = pass_path(dir, key), tmp = dir + "/.new-" + std::to_string(getpid());
  unlink(tmp.c_str());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return "";
  const std::string text = "banklab-judge control pass\nboot " + boot_id() + "\nat " + std::to_string(boot_seconds()) +
                           "\npid " + std::to_string(getpid()) + "\n";
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return "";
  }
  return path;
}

void forget_control_passes() {
  const std::string dir = control_dir(nullptr);
  if (dir.empty()) return;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (std::string(e->d_name).compare(0, 5, "pass-") == 0) unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
  }
}

}  // namespace judge
