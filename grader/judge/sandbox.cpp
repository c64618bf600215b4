// The sandbox's common part: a step started, whatever the mode (its own session, its cgroup joined
// first, its descriptors, rlimits, then bubblewrap or, unconfined, its program), and the steps of a
// stage run together to their end (pipes drained within their limits, deadlines, every process
// gone before a result). The modes: sandbox_modes.hpp.
#include "sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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

#include "sandbox_cgroup.hpp"
#include "sandbox_keys.hpp"
#include "sandbox_modes.hpp"

#ifndef BANKLAB_NVCC
#define BANKLAB_NVCC "/usr/local/cuda/bin/nvcc"
#endif

namespace judge {
namespace {

bool g_fresh_container = false;

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

}  // namespace

std::string dir_of(const std::string& p) {
  const std::size_t s = p.find_last_of('/');
  return s == std::string::npos || s == 0 ? "/" : p.substr(0, s);
}

bool under(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

std::string cuda_root() { return dir_of(dir_of(BANKLAB_NVCC)); }

std::vector<std::string> env_list(const Step&) {
  return {"PATH=" + cuda_root() + "/bin:/usr/bin:/bin", "HOME=/tmp/w", "TMPDIR=/tmp", "LANG=C", "LC_ALL=C",
          "CUDA_VISIBLE_DEVICES="};
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

// Starts one step: bubblewrap or, on a student's own machine that asked for no confinement, the
// step's program itself in the scratch folder. Returns the child with its pipes.
Running start_step(const Step& s, const SandboxInfo& sb, int bwrap_fd, const StepCgroup* cg) {
  Running r;
  // The keyring calls' filter (sandbox_keys.hpp): bubblewrap reads it from kFilterFd, a descriptor
  // of the step's own (one shared would share its offset between steps started together); an
  // unconfined step loads it itself, when the judge has one.
  const bool filtered = !keyring_filter().empty();
  int filter = sb.available ? data_fd(keyring_filter()) : -1;
  if (sb.available && filter < 0) return r;
  int out[2], err[2], ans[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return r;
  if (s.answers_fd && pipe2(ans, O_CLOEXEC) != 0) return r;
  std::vector<int> inputs;
  for (const StepInput& in : s.inputs) inputs.push_back(sb.available ? data_fd(in.content) : -1);

  std::vector<std::string> argv;
  std::vector<std::string> envs = env_list(s);
  if (sb.available) argv = bwrap_args(s, sb);
  else place_inputs_unconfined(s, envs);
  for (const std::string& a : s.argv) argv.push_back(a);
  std::vector<char*> cargv, cenv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  for (auto& e : envs) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  const std::string cwd = sb.available ? std::string("/") : ensure_scratch() + "/tmp/w";

  std::vector<const char*> join;
  if (cg)
    for (const std::string& p : cg->procs) join.push_back(p.c_str());

  r.start = std::chrono::steady_clock::now();
  r.pid = fork();
  if (r.pid == 0) {
    // A session of its own, in every mode: no controlling terminal (no /dev/tty, no TIOCSTI into
    // the terminal of whoever started the judge) and its own process group, killed as one.
    if (setsid() < 0) _exit(126);
    // A session keyring of its own, new and empty, before any uid drop: nothing of the caller's
    // keys (a login's Kerberos ticket) is the step's (sandbox_keys.hpp).
    if (!join_fresh_session_keyring()) _exit(126);
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
    if (filter >= 0) filter = fcntl(filter, F_DUPFD, 800);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) _exit(126);
    if (ans[1] >= 0 && dup2(ans[1], 3) < 0) _exit(126);
    if (filter >= 0 && dup2(filter, kFilterFd) < 0) _exit(126);
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i] >= 0) {
        dup2(inputs[i], static_cast<int>(10 + i));
        close(inputs[i]);
      }
    // Nothing else of the judge's (or of its caller's) open descriptors reaches the step.
    const int keep_below = 10 + static_cast<int>(inputs.size());
    const int first = ans[1] >= 0 ? 4 : 3;
    for (int fd = first; fd < 10; ++fd)
      if (fd != kFilterFd || filter < 0) close(fd);
    close_from(keep_below, tool);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    set_limit(RLIMIT_AS, s.limits.address_space);
    set_limit(RLIMIT_CPU, s.limits.cpu_s);
    set_limit(RLIMIT_FSIZE, s.limits.file_size);
    set_limit(RLIMIT_CORE, 0);
    // A root judge whose bubblewrap needs a user namespace hands the step to its leased uid (else
    // nobody) before bwrap starts; bwrap started as root drops to it inside (setpriv_args).
    if (!drop_before_bwrap(sb)) _exit(126);
    if (sb.available) syscall(SYS_execveat, tool, "", cargv.data(), cenv.data(), AT_EMPTY_PATH);
    else if (!filtered || load_keyring_filter()) execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (ans[1] >= 0) close(ans[1]);
  for (int fd : inputs)
    if (fd >= 0) close(fd);
  if (filter >= 0) close(filter);
  r.out = out[0];
  r.err = err[0];
  r.ans = ans[0];
  return r;
}

void remove_tree_nofollow(const std::string& path) { remove_at(AT_FDCWD, path.c_str()); }

void set_fresh_container(bool fresh) { g_fresh_container = fresh; }
bool fresh_container() { return g_fresh_container; }

const char* mode_name(Mode m) { return m == Mode::bwrap ? "bwrap" : "none"; }

namespace {

// Pipes still open after every step ended: a process holding them lives on outside any sandbox
// (no-sandbox mode). Stop waiting for it once the steps are over (after 200 idle polls).
void close_stray_pipes(std::vector<Running>& run) {
  bool all_exited = true;
  for (const Running& r : run) all_exited = all_exited && (r.pid < 0 || r.exited);
  if (!all_exited) return;
  static thread_local int idle = 0;
  if (++idle <= 200) return;
  for (auto& r : run)
    for (int* fd : {&r.out, &r.err, &r.ans})
      if (*fd >= 0) {
        close(*fd);
        *fd = -1;
      }
  idle = 0;
}

// How the step's command ended, from its status (bubblewrap's 128 + N: killed by signal N). What
// the step printed decides nothing here: a first line that reads like bubblewrap's own error may
// be the student's probe or compiler (whose_fault.hpp runs a control step to tell).
void read_exit(const Running& r, const SandboxInfo& sb, StepResult& res) {
  ProcessResult& p = res.process;
  if (r.pid < 0 || p.timed_out) return;
  const int st = r.status;
  if (WIFEXITED(st)) p.exit_code = WEXITSTATUS(st);
  if (WIFSIGNALED(st)) p.signal = WTERMSIG(st);
  if (sb.available && p.exit_code > 128 && p.exit_code < 128 + 32) {
    // bwrap reports a command killed by signal N as status 128 + N
    p.signal = p.exit_code - 128;
    p.exit_code = -1;
  }
}

}  // namespace

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
      res[i].sandbox_error = "the step's cgroup could not be made (" + sb.cgroup +
                             (cgs[i].error.empty() ? std::string() : "; " + cgs[i].error) + ")";
      continue;
    }
    run[i] = start_step(steps[i], sb, bwrap_fd, want_cgroup ? &cgs[i] : nullptr);
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
      if (n == 0) close_stray_pipes(run);
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
  for (std::size_t i = 0; i < steps.size(); ++i) read_exit(run[i], sb, res[i]);
  return res;
}

}  // namespace judge
