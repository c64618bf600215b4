#include "sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

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
bool g_fresh_container = false;

bool is_root() { return geteuid() == 0; }

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

std::string dir_of(const std::string& p) {
  const std::size_t s = p.find_last_of('/');
  return s == std::string::npos || s == 0 ? "/" : p.substr(0, s);
}

bool under(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

// The toolkit's root: the folder above nvcc's bin/.
std::string cuda_root() { return dir_of(dir_of(BANKLAB_NVCC)); }

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

std::vector<std::string> env_list(const Step&) {
  return {"PATH=" + cuda_root() + "/bin:/usr/bin:/bin", "HOME=/tmp/w", "TMPDIR=/tmp", "LANG=C", "LC_ALL=C",
          "CUDA_VISIBLE_DEVICES="};
}

// A private scratch folder for the steps when there is no sandbox (mkdtemp: never shared).
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

// Starts one step: the sandbox (bwrap, as nobody when the judge is root) or, without one, the
// step's program itself in the scratch folder. Returns the child with its pipes.
Running start(const Step& s, const SandboxInfo& sb, int bwrap_fd) {
  Running r;
  int out[2], err[2], ans[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return r;
  if (s.answers_fd && pipe2(ans, O_CLOEXEC) != 0) return r;
  std::vector<int> inputs;
  for (const StepInput& in : s.inputs) inputs.push_back(sb.available ? data_fd(in.content) : -1);

  std::vector<std::string> argv;
  if (sb.available) {
    argv = {sb.tool, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv"};
    for (const std::string& e : env_list(s)) {
      const std::size_t eq = e.find('=');
      argv.insert(argv.end(), {"--setenv", e.substr(0, eq), e.substr(eq + 1)});
    }
    for (const std::string& a : system_args()) argv.push_back(a);
    argv.insert(argv.end(), {"--proc", "/proc", "--dev", "/dev", "--size", std::to_string(s.limits.tmp_size), "--tmpfs",
                             "/tmp", "--dir", "/tmp/w"});
    for (std::size_t i = 0; i < s.inputs.size(); ++i)
      argv.insert(argv.end(), {"--perms", s.inputs[i].executable ? "0555" : "0444", "--ro-bind-data",
                               std::to_string(10 + i), s.inputs[i].path});
    argv.insert(argv.end(), {"--remount-ro", "/", "--chdir", "/tmp/w", "--", kPrlimit,
                             "--nproc=" + std::to_string(s.limits.processes), "--core=0", "--"});
  } else {
    const std::string& root = ensure_scratch();
    make_dirs(root + "/tmp/w");
    for (const StepInput& in : s.inputs) {
      const std::string p = root + in.path;
      if (read_file(p, in.content.size() + 1) == in.content) continue;  // a step beside this one may be reading it
      make_dirs(dir_of(p));
      unlink(p.c_str());
      write_file(p, in.content);
      chmod(p.c_str(), in.executable ? 0555 : 0444);
    }
  }
  for (const std::string& a : s.argv) argv.push_back(a);
  std::vector<std::string> envs = env_list(s);
  if (!sb.available) {
    envs[1] = "HOME=" + inside("/tmp/w");
    envs[2] = "TMPDIR=" + inside("/tmp");
  }
  std::vector<char*> cargv, cenv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  for (auto& e : envs) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  const std::string cwd = sb.available ? std::string("/") : inside("/tmp/w");

  r.start = std::chrono::steady_clock::now();
  r.pid = fork();
  if (r.pid == 0) {
    setpgid(0, 0);
    // Out of the way first: the numbers below are about to be taken.
    int tool = bwrap_fd >= 0 ? fcntl(bwrap_fd, F_DUPFD_CLOEXEC, 900) : -1;
    for (int& fd : inputs)
      if (fd >= 0) fd = fcntl(fd, F_DUPFD, 800);
    const int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    if (ans[1] >= 0) dup2(ans[1], 3);
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i] >= 0) {
        dup2(inputs[i], static_cast<int>(10 + i));
        close(inputs[i]);
      }
    const int keep_below = 10 + static_cast<int>(inputs.size());
    for (int fd = ans[1] >= 0 ? 4 : 3; fd < 1024; ++fd)
      if ((fd < 10 || fd >= keep_below) && fd != tool) close(fd);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    set_limit(RLIMIT_AS, s.limits.address_space);
    set_limit(RLIMIT_CPU, s.limits.cpu_s);
    set_limit(RLIMIT_FSIZE, s.limits.file_size);
    set_limit(RLIMIT_CORE, 0);
    // A root judge hands the step to nobody first: inside its own user namespace nobody owns
    // nothing of the host, and the process limit counts only the step's own processes.
    if (sb.available && is_root() && (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0)) _exit(126);
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
  if (r.pid > 0) setpgid(r.pid, r.pid);
  return r;
}

std::string probe_sandbox(const std::string& tool) {
  // One real run of the sandbox as the steps will use it: it works here, or says why not.
  SandboxInfo sb;
  sb.available = true;
  sb.tool = tool;
  const int fd = open(tool.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "cannot open " + tool + ": " + std::strerror(errno);
  Step s;
  s.argv = {"/bin/sh", "-c", std::string("test -r /in/x && test ! -e /etc/passwd && test -x ") + BANKLAB_NVCC +
                                 " && echo ok || echo 'the sandbox lacks /in or the CUDA toolkit (" + BANKLAB_NVCC + ")' >&2"};
  s.inputs = {{"/in/x", "x"}};
  s.limits.timeout_s = 20;
  Running r = start(s, sb, fd);
  close(fd);
  if (r.pid < 0) return "cannot start " + tool;
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
  if (out == "ok\n") return "";
  return tool + " does not run here" + (is_root() ? " as user nobody" : "") + ": " +
         (err.empty() ? "no output" : err.substr(0, err.find('\n')));
}

}  // namespace

void remove_tree_nofollow(const std::string& path) { remove_at(AT_FDCWD, path.c_str()); }

void set_fresh_container(bool fresh) { g_fresh_container = fresh; }
bool fresh_container() { return g_fresh_container; }

const SandboxInfo& sandbox_info() {
  static const SandboxInfo info = [] {
    SandboxInfo sb;
    std::vector<std::string> tried;
    std::vector<std::string> candidates;
    const char* env = std::getenv("BANKLAB_BWRAP");  // an explicit choice: the only one tried
    if (env && *env) candidates.push_back(env);
    if (*BANKLAB_BWRAP && candidates.empty()) candidates.push_back(BANKLAB_BWRAP);
    if (const char* path = std::getenv("PATH"); path && candidates.empty()) {
      std::string p = path;
      for (std::size_t a = 0; a <= p.size();) {
        const std::size_t b = std::min(p.find(':', a), p.size());
        if (b > a) candidates.push_back(p.substr(a, b - a) + "/bwrap");
        a = b + 1;
      }
    }
    if (!(env && *env)) {
      candidates.push_back("/usr/bin/bwrap");
      candidates.push_back(std::string(BANKLAB_SOURCE_DIR) + "/.carry/bwrap/bwrap");
    }
    if (access(kPrlimit, X_OK) != 0) {
      sb.why_not = std::string("no ") + kPrlimit + " (Debian package util-linux): the sandbox sets its limits with it";
      return sb;
    }
    for (const std::string& c : candidates) {
      if (access(c.c_str(), X_OK) != 0) {
        if (env && *env) tried.push_back("BANKLAB_BWRAP=" + c + " is not an executable file");
        continue;
      }
      const std::string why = probe_sandbox(c);
      if (why.empty()) {
        sb.available = true;
        sb.tool = c;
        return sb;
      }
      tried.push_back(why);
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
  const int bwrap_fd = sb.available ? open(sb.tool.c_str(), O_RDONLY | O_CLOEXEC) : -1;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    run[i] = start(steps[i], sb, bwrap_fd);
    if (run[i].pid < 0) res[i].sandbox_error = "could not start the step";
  }
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
          kill(-r.pid, SIGKILL);  // whatever is left in its group (the sandbox ends with its PID 1)
        }
      }
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
      if (!r.exited && el > steps[i].limits.timeout_s) {
        kill(-r.pid, SIGKILL);
        kill(r.pid, SIGKILL);
        waitpid(r.pid, &r.status, 0);
        r.exited = true;
        res[i].process.timed_out = true;
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
