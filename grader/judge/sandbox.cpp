#include "sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sandbox_args.hpp"
#include "sandbox_cgroup.hpp"

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

constexpr uid_t kNobody = 65534;
constexpr const char* kPrlimit = "/usr/bin/prlimit";
constexpr const char* kSetpriv = "/usr/bin/setpriv";
bool g_fresh_container = false;
// The uids a root judge leases, one per judge process (one submission), never one of the
// system's users; the lease is an flock on a file of a root-only folder, held until the judge ends.
// A step runs as it inside bubblewrap's PID namespace: nothing of it outlives the step.
constexpr uid_t kUidBase = 58000;
constexpr int kUidCount = 1000;
constexpr const char* kLeaseDir = "/run/banklab-judge";

bool is_root() { return geteuid() == 0; }

std::string dir_of(const std::string& p) {
  const std::size_t s = p.find_last_of('/');
  return s == std::string::npos || s == 0 ? "/" : p.substr(0, s);
}

bool under(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

// ---- the leased uid (root judge) ---------------------------------------------------------------

// The lease folder: root's own, not a link, writable by root alone.
bool lease_dir_ok() {
  mkdir(kLeaseDir, 0700);
  struct stat st {};
  return lstat(kLeaseDir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 && (st.st_mode & 022) == 0;
}

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
      if (flock(fd, LOCK_EX | LOCK_NB) == 0) return static_cast<long long>(u);  // fd stays open: the lease
      close(fd);
    }
    return -1LL;
  }();
  return uid;
}

// A private scratch folder for the steps of a student's own unconfined build (mode none with
// BANKLAB_ALLOW_UNCONFINED=1, never root): mkdtemp, removed at exit.
std::string& scratch() {
  static std::string s;
  return s;
}

// Removes a tree without following any link: every name is opened relative to its folder's
// descriptor with O_NOFOLLOW, so a link swapped in by someone else is removed, not followed.
void remove_at(int dirfd, const char* name) {
  const int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    if (DIR* d = fdopendir(fd)) {
      while (dirent* e = readdir(d)) {
        if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
        remove_at(fd, e->d_name);
      }
      closedir(d);
    } else {
      close(fd);
    }
    unlinkat(dirfd, name, AT_REMOVEDIR);
  } else {
    unlinkat(dirfd, name, 0);
  }
}

void remove_scratch() {
  if (!scratch().empty()) remove_at(AT_FDCWD, scratch().c_str());
}

const std::string& ensure_scratch() {
  if (scratch().empty()) {
    char tmpl[] = "/tmp/banklab-judge-XXXXXX";
    if (mkdtemp(tmpl)) {
      scratch() = tmpl;
      std::atexit(remove_scratch);
      make_dirs(scratch() + "/tmp/w");
    }
  }
  return scratch();
}

void set_limit(int what, long long v) {
  rlimit r{static_cast<rlim_t>(v), static_cast<rlim_t>(v)};
  setrlimit(what, &r);
}

int data_fd(const std::string& content) {
  const int fd = static_cast<int>(syscall(SYS_memfd_create, "banklab-input", 0u));
  if (fd < 0) return -1;
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n <= 0) {
      close(fd);
      return -1;
    }
    done += static_cast<std::size_t>(n);
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

struct Running {
  pid_t pid = -1;
  int out = -1, err = -1, ans = -1;
  std::chrono::steady_clock::time_point start;
  bool exited = false;
  int status = 0;
};

void drain(int& fd, std::string& into, long long max, bool& cut) {
  char buf[65536];
  const ssize_t n = read(fd, buf, sizeof buf);
  if (n <= 0) {
    close(fd);
    fd = -1;
    return;
  }
  const long long room = max - static_cast<long long>(into.size());
  if (room > 0) into.append(buf, static_cast<std::size_t>(std::min<long long>(room, n)));
  if (n > room) cut = true;  // read and dropped: the writer never blocks on a full pipe
}

// Every descriptor from `from` up is closed except `keep` (close_range where the kernel has it).
void close_from(int from, int keep) {
  if (keep < from) keep = -1;
  const auto range = [](unsigned a, unsigned b) { return syscall(SYS_close_range, a, b, 0u) == 0; };
  if (keep < 0 ? range(from, ~0u) : (range(from, keep - 1) && range(keep + 1, ~0u))) return;
  rlimit r{};
  const long long top = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? r.rlim_cur : 1 << 20;
  for (long long fd = from; fd < top; ++fd)
    if (fd != keep) close(static_cast<int>(fd));
}

// Starts one step: bubblewrap or, on a student's own machine that asked for no confinement, the
// step's program itself in the scratch folder. Returns the child with its pipes.
Running start(const Step& s, const SandboxInfo& sb, int bwrap_fd, const StepCgroup* cg = nullptr) {
  Running r;
  int out[2], err[2], ans[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return r;
  if (s.answers_fd && pipe2(ans, O_CLOEXEC) != 0) return r;
  std::vector<int> inputs;
  for (const StepInput& in : s.inputs) inputs.push_back(sb.available ? data_fd(in.content) : -1);

  std::vector<std::string> argv;
  std::vector<std::string> envs = env_list(s);
  if (sb.available) {
    argv = bwrap_args(s, sb);
  } else {
    const std::string& root = ensure_scratch();
    for (const StepInput& in : s.inputs) {
      const std::string p = root + in.path;
      if (read_file(p, in.content.size() + 1) == in.content) continue;  // a step beside this one may be reading it
      make_dirs(dir_of(p));
      unlink(p.c_str());
      write_file(p, in.content);
      chmod(p.c_str(), in.executable ? 0555 : 0444);
    }
    envs[1] = "HOME=" + root + "/tmp/w";
    envs[2] = "TMPDIR=" + root + "/tmp";
  }
  for (const std::string& a : s.argv) argv.push_back(a);
  std::vector<char*> cargv, cenv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  for (auto& e : envs) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  const std::string cwd = sb.available ? std::string("/") : scratch() + "/tmp/w";

  // A root judge whose bubblewrap needs a user namespace hands the step to its leased uid (else
  // nobody) before bwrap starts; bwrap started as root drops to it inside (bwrap_args).
  const bool become = is_root() && sb.available && !sb.as_root;
  const uid_t as = sb.uid >= 0 ? static_cast<uid_t>(sb.uid) : kNobody;
  std::vector<const char*> join;
  if (cg)
    for (const std::string& p : cg->procs) join.push_back(p.c_str());

  r.start = std::chrono::steady_clock::now();
  r.pid = fork();
  if (r.pid == 0) {
    // A session of its own, in every mode: no controlling terminal (no /dev/tty, no TIOCSTI into
    // the terminal of whoever started the judge) and its own process group, killed as one.
    if (setsid() < 0) _exit(126);
    // Into the step's cgroup first: every process the step makes is counted there.
    for (const char* p : join) {
      const int fd = open(p, O_WRONLY | O_CLOEXEC);
      if (fd < 0 || write(fd, "0", 1) != 1) _exit(126);
      close(fd);
    }
    // Out of the way first: the numbers below are about to be taken.
    int tool = bwrap_fd >= 0 ? fcntl(bwrap_fd, F_DUPFD_CLOEXEC, 900) : -1;
    for (int& fd : inputs)
      if (fd >= 0) fd = fcntl(fd, F_DUPFD, 800);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) _exit(126);
    if (ans[1] >= 0 && dup2(ans[1], 3) < 0) _exit(126);
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i] >= 0) {
        dup2(inputs[i], static_cast<int>(10 + i));
        close(inputs[i]);
      }
    // Nothing else of the judge's (or of its caller's) open descriptors reaches the step.
    const int keep_below = 10 + static_cast<int>(inputs.size());
    const int first = ans[1] >= 0 ? 4 : 3;
    for (int fd = first; fd < 10; ++fd) close(fd);
    close_from(keep_below, tool);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    set_limit(RLIMIT_AS, s.limits.address_space);
    set_limit(RLIMIT_CPU, s.limits.cpu_s);
    set_limit(RLIMIT_FSIZE, s.limits.file_size);
    set_limit(RLIMIT_CORE, 0);
    if (become && (setgroups(0, nullptr) != 0 || setgid(as) != 0 || setuid(as) != 0)) _exit(126);
    if (sb.available) syscall(SYS_execveat, tool, "", cargv.data(), cenv.data(), AT_EMPTY_PATH);
    else execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (ans[1] >= 0) close(ans[1]);
  for (int fd : inputs)
    if (fd >= 0) close(fd);
  r.out = out[0];
  r.err = err[0];
  r.ans = ans[0];
  return r;
}

// Runs one trial step as the steps will run; its stdout and the first line of its stderr.
std::pair<std::string, std::string> trial(const Step& s, const SandboxInfo& sb, int fd) {
  Running r = start(s, sb, fd);
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
  const std::string who = as_root ? " as root (steps as uid " + std::to_string(sb.uid >= 0 ? sb.uid : kNobody) + ")"
                          : !is_root() ? ""
                          : sb.uid >= 0 ? " as uid " + std::to_string(sb.uid) : " as user nobody";
  return tool + " does not run here" + who + ": " + (err.empty() ? "no output" : err);
}

// The ways bubblewrap is tried, best first: as root, with no user namespace (a root judge); with
// a user namespace and none further inside; with one (a bubblewrap older than 0.8).
struct Way {
  bool as_root, disable_userns;
};
std::vector<Way> ways() {
  std::vector<Way> w;
  if (is_root() && access(kSetpriv, X_OK) == 0) w.push_back({true, false});
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

void remove_tree_nofollow(const std::string& path) { remove_at(AT_FDCWD, path.c_str()); }

void set_fresh_container(bool fresh) { g_fresh_container = fresh; }
bool fresh_container() { return g_fresh_container; }

const char* mode_name(Mode m) { return m == Mode::bwrap ? "bwrap" : "none"; }

std::string SandboxInfo::limits_line() const {
  return cgroup.empty() ? "no cgroup (" + why_no_cgroup + "): memory and processes are limited per process only"
                        : "a cgroup per step (memory, processes) in " + cgroup;
}

std::string SandboxInfo::describe() const {
  if (mode == Mode::bwrap) {
    const std::string who = uid >= 0 ? "uid " + std::to_string(uid) + " (leased for this judge)" : "user nobody";
    if (as_root)
      return "sandbox: bwrap " + tool + " as root (no user namespace needed), steps as " + who +
             " with every capability dropped (setpriv), " + limits_line();
    return "sandbox: bwrap " + tool + (is_root() ? ", steps as " + who : "") +
           (userns_disabled ? ", no user namespace inside" : ", user namespaces NOT disabled inside (bubblewrap older than 0.8)") +
           ", " + limits_line();
  }
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

std::string inside(const std::string& path) {
  if (sandbox_info().available) return path;
  if (path == "/tmp" || under(path, "/tmp") || under(path, "/in") || under(path, "/inc")) return ensure_scratch() + path;
  return path;
}

std::vector<StepResult> run_steps(const std::vector<Step>& steps) {
  const SandboxInfo& sb = sandbox_info();
  std::vector<StepResult> res(steps.size());
  std::vector<Running> run(steps.size());
  std::vector<StepCgroup> cgs(steps.size());
  const int bwrap_fd = sb.available ? open(sb.tool.c_str(), O_RDONLY | O_CLOEXEC) : -1;
  const bool want_cgroup = cgroup_place().version != 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const StepLimits& lim = steps[i].limits;
    const long long memory = lim.memory > 0 ? lim.memory : lim.address_space + lim.tmp_size + lim.dev_size;
    // Where the machine gives step cgroups, a step never starts without its own: its limits
    // would silently be per process.
    if (want_cgroup && !cgs[i].make(memory, lim.processes)) {
      res[i].sandbox_error = "the step's cgroup could not be made (" + sb.cgroup + ")";
      continue;
    }
    run[i] = start(steps[i], sb, bwrap_fd, want_cgroup ? &cgs[i] : nullptr);
    if (run[i].pid < 0) res[i].sandbox_error = "could not start the step";
  }
  // The step's command ended (or its time is up): every process of the step ends, and is gone,
  // before anything of it is judged.
  auto end_step = [&](std::size_t i) {
    kill(-run[i].pid, SIGKILL);
    if (!cgs[i].end()) res[i].sandbox_error = "a process of the step could not be ended";
    res[i].memory_peak = cgs[i].peak;
    res[i].memory_limit = cgs[i].limit;
    res[i].oom_killed = cgs[i].oom_killed;
  };
  if (bwrap_fd >= 0) close(bwrap_fd);
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::pair<std::size_t, int>> which;
    bool alive = false;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      Running& r = run[i];
      if (r.pid < 0) continue;
      if (!r.exited) {
        const pid_t w = waitpid(r.pid, &r.status, WNOHANG);
        if (w == r.pid) {
          r.exited = true;
          end_step(i);  // whatever is left (a bubblewrap sandbox also ends with its PID 1)
        }
      }
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
      if (!r.exited && el > steps[i].limits.timeout_s) {
        kill(-r.pid, SIGKILL);
        kill(r.pid, SIGKILL);
        waitpid(r.pid, &r.status, 0);
        r.exited = true;
        res[i].process.timed_out = true;
        end_step(i);
      }
      if (!r.exited) alive = true;
      res[i].process.seconds = el;
      for (int k = 0; k < 3; ++k) {
        const int fd = k == 0 ? r.out : k == 1 ? r.err : r.ans;
        if (fd >= 0) {
          fds.push_back({fd, POLLIN, 0});
          which.emplace_back(i, k);
        }
      }
    }
    if (fds.empty() && !alive) break;
    if (fds.empty()) {
      usleep(2000);
      continue;
    }
    const int n = poll(fds.data(), fds.size(), 5);
    if (n <= 0) {
      // Pipes still open after the step ended: a process holding them lives on outside any
      // sandbox (no-sandbox mode). Stop waiting for it once the step is over.
      bool all_exited = true;
      for (std::size_t i = 0; i < steps.size(); ++i) all_exited = all_exited && (run[i].pid < 0 || run[i].exited);
      if (all_exited && n == 0) {
        static thread_local int idle = 0;
        if (++idle > 200) {
          for (auto& r : run)
            for (int* fd : {&r.out, &r.err, &r.ans})
              if (*fd >= 0) {
                close(*fd);
                *fd = -1;
              }
          idle = 0;
        }
      }
      continue;
    }
    for (std::size_t j = 0; j < fds.size(); ++j) {
      if (!fds[j].revents) continue;
      auto [i, k] = which[j];
      Running& r = run[i];
      StepResult& o = res[i];
      if (k == 0) drain(r.out, o.out, steps[i].max_stdout, o.out_cut);
      else if (k == 1) drain(r.err, o.err, steps[i].max_stderr, o.err_cut);
      else drain(r.ans, o.answers, steps[i].max_answers, o.answers_cut);
    }
  }
  for (StepCgroup& cg : cgs) cg.remove();  // a step that never started
  for (std::size_t i = 0; i < steps.size(); ++i) {
    ProcessResult& p = res[i].process;
    if (run[i].pid < 0 || p.timed_out) continue;
    const int st = run[i].status;
    if (WIFEXITED(st)) p.exit_code = WEXITSTATUS(st);
    if (WIFSIGNALED(st)) p.signal = WTERMSIG(st);
    if (sb.available && p.exit_code > 128 && p.exit_code < 128 + 32) {
      // bwrap reports a command killed by signal N as status 128 + N
      p.signal = p.exit_code - 128;
      p.exit_code = -1;
    }
    if (sb.available && p.exit_code == 1 && res[i].err.rfind("bwrap: ", 0) == 0)
      res[i].sandbox_error = res[i].err.substr(0, res[i].err.find('\n'));
  }
  return res;
}

}  // namespace judge
