#include "process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "sandbox_keys.hpp"

extern char** environ;

namespace judge {

std::string ProcessResult::describe() const {
  if (timed_out) {
    std::ostringstream os;
    os << "killed after " << static_cast<int>(seconds + 0.5) << " s (time limit)";
    return os.str();
  }
  if (signal) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

namespace {

struct Child {
  pid_t pid = -1;
  std::chrono::steady_clock::time_point start, limit_from, asked;  ///< started; the time limit counts from; progress asked
  ProcessResult result;
  bool done = false;
};

pid_t spawn(const std::vector<std::string>& argv, const ProcessOptions& opt) {
  std::vector<std::string> envs;
  if (opt.clean_env) {
    const char* path = std::getenv("PATH");
    envs.push_back(std::string("PATH=") + (path ? path : "/usr/bin:/bin"));
    envs.push_back("LANG=C");
    envs.push_back("HOME=" + (opt.cwd.empty() ? std::string("/tmp") : opt.cwd));
  } else {
    for (char** e = environ; *e; ++e) envs.emplace_back(*e);
  }
  for (const auto& [k, v] : opt.env) {
    const std::string prefix = k + "=";
    for (auto it = envs.begin(); it != envs.end();)
      it = it->compare(0, prefix.size(), prefix) == 0 ? envs.erase(it) : it + 1;
    envs.push_back(prefix + v);
  }
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : envs) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);

  const pid_t pid = fork();
  if (pid != 0) return pid;
  // child
  setpgid(0, 0);
  // No child of the judge's possesses its caller's session keyring (a login's Kerberos ticket):
  // a new, empty one, before the drop to nobody (sandbox_keys.hpp).
  if (!join_fresh_session_keyring()) _exit(126);
  if (!opt.cwd.empty() && chdir(opt.cwd.c_str()) != 0) _exit(126);
  const int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  if (!opt.output_file.empty()) {
    const int fd = open(opt.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) _exit(126);
    dup2(fd, 1);
    dup2(fd, 2);
  }
  // Output and input are open; now the child may lose its rights.
  if (opt.as_nobody && getuid() == 0) {
    constexpr uid_t kNobody = 65534;
    if (!opt.cwd.empty() && chown(opt.cwd.c_str(), kNobody, kNobody) != 0) _exit(126);
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(126);
  }
  // No descriptor of the judge's (a results file, a pipe) reaches the child.
  for (int fd = 3; fd < 1024; ++fd) close(fd);
  execve(cargv[0], cargv.data(), cenv.data());
  _exit(127);
}

void truncate_output(const ProcessOptions& opt) {
  if (opt.output_file.empty()) return;
  struct stat st {};
  if (stat(opt.output_file.c_str(), &st) == 0 && st.st_size > opt.max_output_bytes)
    truncate(opt.output_file.c_str(), opt.max_output_bytes);
}

}  // namespace

std::vector<ProcessResult> run_processes(const std::vector<std::vector<std::string>>& argvs,
                                         const std::vector<ProcessOptions>& opts) {
  std::vector<Child> kids(argvs.size());
  for (std::size_t i = 0; i < argvs.size(); ++i) {
    kids[i].start = kids[i].limit_from = kids[i].asked = std::chrono::steady_clock::now();
    kids[i].pid = spawn(argvs[i], opts[i]);
    if (kids[i].pid > 0) setpgid(kids[i].pid, kids[i].pid);  // also from here: no race with exec
  }
  std::size_t left = kids.size();
  while (left > 0) {
    for (std::size_t i = 0; i < kids.size(); ++i) {
      Child& k = kids[i];
      if (k.done) continue;
      const auto now = std::chrono::steady_clock::now();
      if (opts[i].progressed && now - k.asked >= std::chrono::milliseconds(20)) {
        k.asked = now;
        if (opts[i].progressed()) k.limit_from = now;
      }
      const double elapsed = std::chrono::duration<double>(now - k.start).count();
      const double limit_elapsed = std::chrono::duration<double>(now - k.limit_from).count();
      if (k.pid < 0) {
        k.done = true;
        --left;
        continue;
      }
      int status = 0;
      const pid_t r = waitpid(k.pid, &status, WNOHANG);
      if (r == k.pid) {
        k.result.seconds = elapsed;
        if (WIFEXITED(status)) k.result.exit_code = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) k.result.signal = WTERMSIG(status);
        kill(-k.pid, SIGKILL);  // whatever it left running in its group
        k.done = true;
        --left;
      } else if (limit_elapsed > opts[i].timeout_s) {
        kill(-k.pid, SIGKILL);
        waitpid(k.pid, &status, 0);
        k.result.seconds = limit_elapsed;  // what describe() reports: the limit that ran out
        k.result.timed_out = true;
        k.done = true;
        --left;
      }
    }
    if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::vector<ProcessResult> out;
  for (std::size_t i = 0; i < kids.size(); ++i) {
    truncate_output(opts[i]);
    out.push_back(kids[i].result);
  }
  return out;
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opt) {
  return run_processes({argv}, {opt}).front();
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  // Read as it comes, up to max_bytes: a string of max_bytes made first cost every build the
  // zeroing of 64 MiB for the probe's 60 KB runtime (0.27 s under load; strace of a build).
  std::string s;
  char buf[1 << 16];
  while (s.size() < max_bytes) {
    in.read(buf, static_cast<std::streamsize>(std::min(sizeof buf, max_bytes - s.size())));
    if (in.gcount() <= 0) break;
    s.append(buf, static_cast<std::size_t>(in.gcount()));
  }
  return s;
}

std::string self_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

void make_dirs(const std::string& path) {
  for (std::size_t p = 1; p <= path.size(); ++p)
    if (p == path.size() || path[p] == '/') mkdir(path.substr(0, p).c_str(), 0755);
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();  // a full disk shows here, when the buffer is written
  return !out.fail();
}

}  // namespace judge
