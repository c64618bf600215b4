// Mode bwrap: every step in a bubblewrap sandbox of its own. Which bubblewrap, and which way it
// runs here (found once a process by one trial run a way: as root with no user namespace, with a
// user namespace and none further inside, with one), how the judge describes it, and its command
// line a step. See sandbox.hpp for what the sandbox is, sandbox_modes.hpp for the other modes.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "sandbox_cgroup.hpp"
#include "sandbox_keys.hpp"
#include "sandbox_modes.hpp"

#ifndef BANKLAB_NVCC
#define BANKLAB_NVCC "/usr/local/cuda/bin/nvcc"
#endif
#ifndef BANKLAB_BWRAP
#define BANKLAB_BWRAP ""
#endif
#ifndef BANKLAB_SOURCE_DIR
#define BANKLAB_SOURCE_DIR "."
#endif

namespace judge {
namespace {

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

// The part of the system a compile needs, read-only: /usr and the top-level links into it (or the
// folders themselves where they are not links), and the CUDA toolkit wherever it is. No /etc,
// /home, /root, /work, /tmp of the host: nothing of the course or of other users exists inside.
std::vector<std::string> system_args() {
  std::vector<std::string> a = {"--ro-bind", "/usr", "/usr"};
  for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    struct stat st {};
    if (lstat(top, &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      char buf[PATH_MAX];
      const ssize_t n = readlink(top, buf, sizeof buf - 1);
      if (n > 0) a.insert(a.end(), {"--symlink", std::string(buf, static_cast<std::size_t>(n)), top});
    } else if (S_ISDIR(st.st_mode)) {
      a.insert(a.end(), {"--ro-bind", top, top});
    }
  }
  // Links into /etc/alternatives (Debian and Ubuntu name the toolkit, cc and c++ there): only links.
  struct stat alt {};
  if (stat("/etc/alternatives", &alt) == 0 && S_ISDIR(alt.st_mode))
    a.insert(a.end(), {"--ro-bind", "/etc/alternatives", "/etc/alternatives"});
  const std::string root = cuda_root(), real = real_path(root);
  if (!real.empty() && !under(real, "/usr")) a.insert(a.end(), {"--ro-bind", real, real});
  if (!under(root, "/usr") && root != real) a.insert(a.end(), {"--ro-bind", real.empty() ? root : real, root});
  return a;
}

// Runs one trial step as the steps will run; its stdout and the first line of its stderr.
std::pair<std::string, std::string> trial(const Step& s, const SandboxInfo& sb, int fd) {
  Running r = start_step(s, sb, fd);
  if (r.pid < 0) return {"", "cannot start it"};
  std::string out, err;
  bool c1 = false, c2 = false;
  while (r.out >= 0 || r.err >= 0) {
    pollfd p[2] = {{r.out, POLLIN, 0}, {r.err, POLLIN, 0}};
    if (poll(p, 2, 20000) <= 0) break;
    if (r.out >= 0 && p[0].revents) drain(r.out, out, 4096, c1);
    if (r.err >= 0 && p[1].revents) drain(r.err, err, 4096, c2);
  }
  if (r.out >= 0) close(r.out);
  if (r.err >= 0) close(r.err);
  kill(-r.pid, SIGKILL);
  int st = 0;
  waitpid(r.pid, &st, 0);
  return {out, err.substr(0, err.find('\n'))};
}

// One real run of the sandbox as the steps will use it: it works here, or says why not. The step
// must not be root, must see its input and the toolkit, and nothing of the host's /etc.
std::string probe_sandbox(const std::string& tool, bool as_root, bool disable_userns) {
  SandboxInfo sb;
  sb.mode = Mode::bwrap;
  sb.available = true;
  sb.tool = tool;
  sb.uid = leased_uid();
  sb.as_root = as_root;
  sb.userns_disabled = disable_userns;
  const int fd = open(tool.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "cannot open " + tool + ": " + std::strerror(errno);
  Step s;
  s.argv = {"/bin/sh", "-c", std::string("test \"$(id -u)\" != 0 && test -r /in/x && test ! -e /etc/passwd && touch /tmp/w/x && "
                                         "test -x ") + BANKLAB_NVCC + " && echo ok || echo 'the sandbox is root, or lacks /in, "
                                         "a writable /tmp/w or the CUDA toolkit (" + BANKLAB_NVCC + ")' >&2"};
  s.inputs = {{"/in/x", "x"}};
  s.limits.timeout_s = 20;
  const auto [out, err] = trial(s, sb, fd);
  close(fd);
  if (out == "ok\n") return "";
  return tool + " does not run here" + trial_runs_as(sb) + ": " + (err.empty() ? "no output" : err);
}

// The ways bubblewrap is tried, best first: as root, with no user namespace (a root judge); with
// a user namespace and none further inside; with one (a bubblewrap older than 0.8).
struct Way {
  bool as_root, disable_userns;
};
std::vector<Way> ways() {
  std::vector<Way> w;
  if (can_start_bwrap_as_root()) w.push_back({true, false});
  w.push_back({false, true});
  w.push_back({false, false});
  return w;
}

std::vector<std::string> bwrap_candidates(const char* env) {
  std::vector<std::string> c;
  if (env && *env) return {env};  // an explicit choice: the only one tried
  if (*BANKLAB_BWRAP) return {BANKLAB_BWRAP};
  if (const char* path = std::getenv("PATH")) {
    const std::string p = path;
    for (std::size_t a = 0; a <= p.size();) {
      const std::size_t b = std::min(p.find(':', a), p.size());
      if (b > a) c.push_back(p.substr(a, b - a) + "/bwrap");
      a = b + 1;
    }
  }
  c.push_back("/usr/bin/bwrap");
  c.push_back(std::string(BANKLAB_SOURCE_DIR) + "/.carry/bwrap/bwrap");
  return c;
}

}  // namespace

// bubblewrap's command line for a step: new PID, network, IPC, UTS, mount (and cgroup) namespaces,
// its own session (no controlling terminal), the system read-only and nothing else of the host,
// sized tmpfs for /tmp and /dev, the inputs from descriptors 10... Started as root (sb.as_root)
// it needs no user namespace: the step drops to its leased uid inside with setpriv (every
// capability gone, no new privileges). Otherwise it makes a user namespace for the step.
std::vector<std::string> bwrap_args(const Step& s, const SandboxInfo& sb) {
  std::vector<std::string> a = {sb.tool};
  if (!sb.as_root) {
    a.push_back("--unshare-user");
    if (sb.userns_disabled) a.push_back("--disable-userns");
  }
  a.insert(a.end(), {"--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                     "--die-with-parent", "--new-session", "--cap-drop", "ALL"});
  // As root, what setpriv needs to become the leased uid and drop the rest; nothing after it.
  if (sb.as_root) a.insert(a.end(), {"--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"});
  a.push_back("--clearenv");
  for (const std::string& e : env_list(s)) {
    const std::size_t eq = e.find('=');
    a.insert(a.end(), {"--setenv", e.substr(0, eq), e.substr(eq + 1)});
  }
  for (const std::string& x : system_args()) a.push_back(x);
  // /dev is a sized tmpfs of the step's own (bwrap's --dev is not sized, and /dev/shm is in it)
  // with the host's harmless devices bound in: no /dev/tty, no terminal of anyone's.
  a.insert(a.end(), {"--proc", "/proc", "--size", std::to_string(s.limits.dev_size), "--tmpfs", "/dev"});
  // The kernel's list of keys is not namespaced: masked, as Docker masks it (sandbox_keys.hpp).
  for (const char* keys : {"/proc/keys", "/proc/key-users"})
    if (access(keys, F_OK) == 0) a.insert(a.end(), {"--ro-bind", "/dev/null", keys});
  for (const char* d : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"})
    a.insert(a.end(), {"--dev-bind", d, d});
  a.insert(a.end(), {"--perms", "1777", "--dir", "/dev/shm", "--symlink", "/proc/self/fd", "/dev/fd", "--symlink",
                     "/proc/self/fd/0", "/dev/stdin", "--symlink", "/proc/self/fd/1", "/dev/stdout", "--symlink",
                     "/proc/self/fd/2", "/dev/stderr"});
  // Made by root when bwrap runs as root: open to the step's one uid (the sandbox holds no other).
  a.insert(a.end(), {"--perms", "1777", "--size", std::to_string(s.limits.tmp_size), "--tmpfs", "/tmp", "--perms",
                     "1777", "--dir", "/tmp/w"});
  for (std::size_t i = 0; i < s.inputs.size(); ++i)
    a.insert(a.end(), {"--perms", s.inputs[i].executable ? "0555" : "0444", "--ro-bind-data", std::to_string(10 + i),
                       s.inputs[i].path});
  // The keyring calls fail in every process of the step (sandbox_keys.hpp), loaded by bubblewrap
  // last, just before the step's first program.
  a.insert(a.end(), {"--seccomp", std::to_string(kFilterFd), "--remount-ro", "/", "--chdir", "/tmp/w", "--"});
  for (const std::string& x : setpriv_args(sb)) a.push_back(x);  // as root: the drop (sandbox_uid.cpp)
  a.insert(a.end(), {kPrlimit, "--nproc=" + std::to_string(s.limits.processes), "--core=0", "--"});
  return a;
}

std::string SandboxInfo::limits_line() const {
  return cgroup.empty() ? "no cgroup (" + why_no_cgroup + "): memory and processes are limited per process only"
                        : "a cgroup per step (memory, processes) in " + cgroup;
}

std::string SandboxInfo::describe() const {
  if (mode == Mode::bwrap) {
    const std::string who = steps_run_as(*this);
    if (as_root)
      return "sandbox: bwrap " + tool + " as root (no user namespace needed), steps as " + who +
             " with every capability dropped (setpriv), " + limits_line();
    return "sandbox: bwrap " + tool + (is_root() ? ", steps as " + who : "") +
           (userns_disabled ? ", no user namespace inside" : ", user namespaces NOT disabled inside (bubblewrap older than 0.8)") +
           ", " + limits_line();
  }
  if (!remedy.empty()) return "no sandbox: " + why_not + ". " + remedy;
  return "no sandbox: " + why_not +
         ". Install bubblewrap (as root: apt-get install bubblewrap); in a container, allow it mount and PID namespaces "
         "(or grade elsewhere): without them nothing well-kept confines a student's code, and the judge refuses";
}

const SandboxInfo& sandbox_info() {
  static const SandboxInfo info = [] {
    SandboxInfo sb;
    std::vector<std::string> tried;
    const char* env = std::getenv("BANKLAB_BWRAP");
    std::vector<std::string> candidates = bwrap_candidates(env);
    const CgroupPlace& cg = cgroup_place();
    for (std::size_t i = 0; i < cg.parents.size(); ++i) sb.cgroup += (i ? ", " : "v" + std::to_string(cg.version) + " ") + cg.parents[i];
    if (cg.delegated) sb.cgroup += " (delegated to this user)";
    sb.why_no_cgroup = cg.why_not;
    if (access(kPrlimit, X_OK) != 0) {
      tried.push_back(std::string("no ") + kPrlimit + " (Debian package util-linux): the sandbox sets its limits with it");
      candidates.clear();
    }
    std::string no_filter;
    if (keyring_filter(&no_filter).empty()) {  // without it a step could read its caller's keys
      sb.why_not = no_filter;
      sb.remedy = "Install it (Debian: apt-get install libseccomp-dev), then configure and build the judge again: "
                  "without the filter a student's code could read the keys of whoever starts the judge (Kerberos "
                  "tickets, AFS tokens), and the judge refuses";
      return sb;
    }
    for (const std::string& c : candidates) {
      if (access(c.c_str(), X_OK) != 0) {
        if (env && *env) tried.push_back("BANKLAB_BWRAP=" + c + " is not an executable file");
        continue;
      }
      std::string first_why;
      for (const Way& w : ways()) {
        const std::string why = probe_sandbox(c, w.as_root, w.disable_userns);
        if (why.empty()) {
          sb.mode = Mode::bwrap;
          sb.available = true;
          sb.tool = c;
          sb.uid = leased_uid();
          sb.as_root = w.as_root;
          sb.userns_disabled = w.disable_userns;
          return sb;
        }
        if (first_why.empty()) first_why = why;
      }
      tried.push_back(first_why);
    }
    sb.why_not = tried.empty() ? "bubblewrap (bwrap) is not installed: apt-get install bubblewrap, or set BANKLAB_BWRAP"
                               : tried.front();
    return sb;
  }();
  return info;
}

}  // namespace judge
