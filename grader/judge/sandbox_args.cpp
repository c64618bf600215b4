#include "sandbox_args.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#ifndef BANKLAB_NVCC
#define BANKLAB_NVCC "/usr/local/cuda/bin/nvcc"
#endif

namespace judge {
namespace {

constexpr long long kNobody = 65534;
constexpr const char* kPrlimit = "/usr/bin/prlimit";
constexpr const char* kSetpriv = "/usr/bin/setpriv";

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

}  // namespace

// The toolkit's root: the folder above nvcc's bin/.
std::string cuda_root() { return dir_of(dir_of(BANKLAB_NVCC)); }

std::vector<std::string> env_list(const Step&) {
  return {"PATH=" + cuda_root() + "/bin:/usr/bin:/bin", "HOME=/tmp/w", "TMPDIR=/tmp", "LANG=C", "LC_ALL=C",
          "CUDA_VISIBLE_DEVICES="};
}

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
  a.insert(a.end(), {"--remount-ro", "/", "--chdir", "/tmp/w", "--"});
  if (sb.as_root) {
    const std::string u = std::to_string(sb.uid >= 0 ? sb.uid : kNobody);
    a.insert(a.end(), {kSetpriv, "--reuid", u, "--regid", u, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                       "--no-new-privs", "--"});
  }
  a.insert(a.end(), {kPrlimit, "--nproc=" + std::to_string(s.limits.processes), "--core=0", "--"});
  return a;
}

}  // namespace judge
