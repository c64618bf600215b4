#include "sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <pwd.h>
#include <sstream>
#include <thread>

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
// The uids a root judge leases, one per judge process (one submission), never one of the
// system's users; the lease is an flock on a file of a root-only folder, held until the judge ends.
constexpr uid_t kUidBase = 58000;
constexpr int kUidCount = 1000;
constexpr const char* kLeaseDir = "/run/banklab-judge";
constexpr const char* kCgroupName = "banklab-judge";

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

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

bool write_text(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

// ---- the leased uid (root judge) ---------------------------------------------------------------

struct Lease {
  long long uid = -1;
  std::string why_not;
};

// The real uid and state of a process ("" when it is gone).
bool process_uid(const char* pid, long long& uid, char& state) {
  std::ifstream f(std::string("/proc/") + pid + "/status");
  std::string line;
  bool got = false;
  state = '?';
  while (std::getline(f, line)) {
    if (line.rfind("State:", 0) == 0) {
      const std::size_t p = line.find_first_not_of(" \t", 6);
      if (p != std::string::npos) state = line[p];
    } else if (line.rfind("Uid:", 0) == 0) {
      uid = std::atoll(line.c_str() + 4);
      got = true;
      break;
    }
  }
  return got;
}

// Ends every process of `uid` and waits until none is left: a helper that becomes the uid sends
// SIGKILL to all processes it may signal (kill(-1): every process of that uid, in one pass of the
// kernel, so a fork racing with it is killed too), then /proc is read until no live process of the
// uid remains; the judge, a subreaper, reaps those re-parented to it. True when none is left.
bool kill_uid(long long uid) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int round = 0;; ++round) {
    const pid_t k = fork();
    if (k == 0) {
      if (setgroups(0, nullptr) != 0 || setgid(static_cast<gid_t>(uid)) != 0 || setuid(static_cast<uid_t>(uid)) != 0) _exit(1);
      kill(-1, SIGKILL);
      _exit(0);
    }
    if (k > 0) waitpid(k, nullptr, 0);
    bool live = false;
    if (DIR* d = opendir("/proc")) {
      while (dirent* e = readdir(d)) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        long long u = -1;
        char state = '?';
        if (!process_uid(e->d_name, u, state) || u != uid) continue;
        if (state == 'Z') waitpid(static_cast<pid_t>(std::atoi(e->d_name)), nullptr, WNOHANG);
        else live = true;
      }
      closedir(d);
    }
    if (!live) return true;
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(10)) return false;
    usleep(round < 10 ? 1000 : 10000);
  }
}

// The lease folder: root's own, not a link, writable by root alone.
bool lease_dir_ok(std::string& why) {
  mkdir(kLeaseDir, 0700);
  struct stat st {};
  if (lstat(kLeaseDir, &st) != 0) {
    why = std::string("cannot make ") + kLeaseDir + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) != 0) {
    why = std::string(kLeaseDir) + " is not a folder of root's that only root can write";
    return false;
  }
  return true;
}

// One uid of kUidBase.. that no user or group of the system has, held by an flock for as long as
// this judge runs (its descriptor closes with the process). What a previous holder left running
// is ended first.
const Lease& lease() {
  static const Lease l = [] {
    Lease out;
    if (!is_root()) {
      out.why_not = "the judge is not root";
      return out;
    }
    if (!lease_dir_ok(out.why_not)) return out;
    for (int i = 0; i < kUidCount; ++i) {
      const uid_t uid = kUidBase + static_cast<uid_t>((getpid() + i) % kUidCount);
      if (getpwuid(uid) || getgrgid(uid)) continue;  // someone's: never ours
      const std::string f = std::string(kLeaseDir) + "/uid-" + std::to_string(uid) + ".lock";
      const int fd = open(f.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0) continue;
      if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        continue;
      }
      if (!kill_uid(uid)) {  // a survivor of an earlier judge that will not end: not this uid
        close(fd);
        continue;
      }
      out.uid = uid;  // fd stays open: the lease
      return out;
    }
    out.why_not = "no free uid in " + std::to_string(kUidBase) + ".." + std::to_string(kUidBase + kUidCount - 1);
    return out;
  }();
  return l;
}

// Removes what `uid` left in the system's world-writable folders and its System V IPC objects:
// a step in the uid sandbox shares them with the machine (a bubblewrap step has its own).
void remove_at(int dirfd, const char* name);
void clean_uid_traces(long long uid) {
  for (const char* dir : {"/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock"}) {
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    const int fd2 = dup(fd);
    if (DIR* d = fdopendir(fd2)) {
      std::vector<std::string> mine;
      while (dirent* e = readdir(d)) {
        struct stat st {};
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid == static_cast<uid_t>(uid) &&
            std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
          mine.push_back(e->d_name);
      }
      closedir(d);
      for (const std::string& n : mine) remove_at(fd, n.c_str());
    }
    close(fd);
  }
  // /proc/sysvipc/{shm,msg,sem}: the id is column 2; the owner's and the creator's uid follow.
  struct Ipc { const char* file; int uid_col, cuid_col; int kind; };
  for (const Ipc& ipc : {Ipc{"/proc/sysvipc/shm", 8, 10, 0}, Ipc{"/proc/sysvipc/msg", 8, 10, 1}, Ipc{"/proc/sysvipc/sem", 5, 7, 2}}) {
    std::ifstream f(ipc.file);
    std::string line;
    std::getline(f, line);  // header
    while (std::getline(f, line)) {
      std::istringstream in(line);
      std::vector<long long> col;
      for (long long v; in >> v;) col.push_back(v);
      if (static_cast<int>(col.size()) < ipc.cuid_col) continue;
      if (col[ipc.uid_col - 1] != uid && col[ipc.cuid_col - 1] != uid) continue;
      const int id = static_cast<int>(col[1]);
      if (ipc.kind == 0) shmctl(id, IPC_RMID, nullptr);
      else if (ipc.kind == 1) msgctl(id, IPC_RMID, nullptr);
      else semctl(id, 0, IPC_RMID);
    }
  }
}

// ---- a cgroup per step ------------------------------------------------------------------------

// Where step cgroups are made: cgroup v2 (one folder with memory and pids) first, else v1 (a
// memory and a pids folder). Found once; a trial cgroup is made and removed.
struct CgroupPlace {
  int version = 0;
  std::vector<std::string> parents;  // v2: {dir}; v1: {memory dir, pids dir}
  std::string why_not;
};

std::vector<std::pair<std::string, std::string>> cgroup_mounts() {  // (fstype, mount point + options)
  std::vector<std::pair<std::string, std::string>> out;
  std::ifstream f("/proc/self/mountinfo");
  for (std::string line; std::getline(f, line);) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream a(line.substr(0, dash)), b(line.substr(dash + 3));
    std::string id, parent, dev, root, point, fstype, source, opts;
    a >> id >> parent >> dev >> root >> point;
    b >> fstype >> source >> opts;
    if (fstype == "cgroup2" || fstype == "cgroup") out.emplace_back(fstype, point + " " + opts);
  }
  return out;
}

std::string own_cgroup(const std::string& controller) {  // this process's path in a hierarchy
  std::ifstream f("/proc/self/cgroup");
  for (std::string line; std::getline(f, line);) {
    const std::size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string ctl = line.substr(a + 1, b - a - 1);
    std::stringstream cs(ctl);
    for (std::string c; std::getline(cs, c, ',');)
      if (c == controller) return line.substr(b + 1);
    if (controller.empty() && ctl.empty()) return line.substr(b + 1);
  }
  return "";
}

bool has_word(const std::string& text, const std::string& word) {
  std::istringstream in(text);
  for (std::string w; in >> w;)
    if (w == word) return true;
  return false;
}

CgroupPlace find_cgroup_place() {
  CgroupPlace p;
  if (!is_root()) {
    p.why_not = "the judge is not root";
    return p;
  }
  std::vector<std::string> whys;
  std::string v1_memory, v1_pids;
  for (const auto& [fstype, point_opts] : cgroup_mounts()) {
    const std::string point = point_opts.substr(0, point_opts.find(' '));
    std::string opts = point_opts.substr(point_opts.find(' ') + 1);
    for (char& c : opts) c = c == ',' ? ' ' : c;
    if (fstype == "cgroup2" && p.version == 0) {
      // Step cgroups go beside the machine's top-level ones (a cgroup with processes cannot
      // hand memory and pids to children): DIR/banklab-judge/step-PID-N.
      const std::string controllers = read_file(point + "/cgroup.controllers", 4096);
      if (!has_word(controllers, "memory") || !has_word(controllers, "pids")) {
        whys.push_back("cgroup v2 at " + point + " has no memory or pids controller");
        continue;
      }
      const std::string top = read_file(point + "/cgroup.subtree_control", 4096);
      if ((!has_word(top, "memory") || !has_word(top, "pids")) && !write_text(point + "/cgroup.subtree_control", "+memory +pids")) {
        whys.push_back("cannot give memory and pids to the children of " + point + ": " + std::strerror(errno));
        continue;
      }
      const std::string dir = point + "/" + kCgroupName;
      mkdir(dir.c_str(), 0755);
      const std::string mine = read_file(dir + "/cgroup.subtree_control", 4096);
      if ((!has_word(mine, "memory") || !has_word(mine, "pids")) && !write_text(dir + "/cgroup.subtree_control", "+memory +pids")) {
        whys.push_back("cannot give memory and pids to the children of " + dir + ": " + std::strerror(errno));
        continue;
      }
      p.version = 2;
      p.parents = {dir};
    } else if (fstype == "cgroup") {
      // v1: beneath the judge's own cgroup of each hierarchy, so that its limits still hold.
      if (has_word(opts, "memory")) v1_memory = point + own_cgroup("memory");
      if (has_word(opts, "pids")) v1_pids = point + own_cgroup("pids");
    }
  }
  if (p.version == 0 && !v1_memory.empty() && !v1_pids.empty()) {
    for (std::string* d : {&v1_memory, &v1_pids}) {
      while (d->size() > 1 && d->back() == '/') d->pop_back();
      *d += std::string("/") + kCgroupName;
      mkdir(d->c_str(), 0755);
    }
    p.version = 1;
    p.parents = {v1_memory, v1_pids};
  } else if (p.version == 0) {
    whys.push_back("no cgroup v1 memory and pids hierarchies");
  }
  if (p.version != 0) {
    // A trial: make a step cgroup and remove it.
    const std::string trial = "/trial-" + std::to_string(getpid());
    for (const std::string& d : p.parents) {
      if (mkdir((d + trial).c_str(), 0755) != 0) {
        whys.insert(whys.begin(), "cannot make a cgroup in " + d + ": " + std::strerror(errno));
        p.version = 0;
      }
      rmdir((d + trial).c_str());
    }
  }
  if (p.version == 0) {
    p.parents.clear();
    p.why_not = whys.empty() ? "no cgroup file system" : whys.front();
  }
  return p;
}

const CgroupPlace& cgroup_place() {
  static const CgroupPlace p = find_cgroup_place();
  return p;
}

// One step's cgroup: made before the step starts (its first process joins it before anything
// else), killed, waited for and removed after the step's command ended.
struct StepCgroup {
  std::vector<std::string> dirs;
  std::vector<std::string> procs;  // the cgroup.procs files the step's first process writes

  bool make(const StepLimits& lim) {
    const CgroupPlace& place = cgroup_place();
    if (place.version == 0) return false;
    static std::mutex m;
    static int n = 0;
    std::string name;
    {
      std::lock_guard<std::mutex> g(m);
      name = "/step-" + std::to_string(getpid()) + "-" + std::to_string(n++);
    }
    const long long memory = lim.memory > 0 ? lim.memory : lim.address_space + lim.tmp_size + lim.dev_size;
    const std::string mem = std::to_string(memory), pids = std::to_string(lim.processes);
    for (const std::string& parent : place.parents) {
      const std::string d = parent + name;
      if (mkdir(d.c_str(), 0755) != 0) return remove(), false;
      dirs.push_back(d);
      procs.push_back(d + "/cgroup.procs");
    }
    bool ok = true;
    if (place.version == 2) {
      ok = write_text(dirs[0] + "/memory.max", mem) && write_text(dirs[0] + "/pids.max", pids);
      write_text(dirs[0] + "/memory.swap.max", "0");  // absent without swap accounting
    } else {
      ok = write_text(dirs[0] + "/memory.limit_in_bytes", mem) && write_text(dirs[1] + "/pids.max", pids);
      if (access((dirs[0] + "/memory.memsw.limit_in_bytes").c_str(), F_OK) == 0)
        ok = ok && write_text(dirs[0] + "/memory.memsw.limit_in_bytes", mem);
    }
    if (!ok) remove();
    return ok;
  }

  std::vector<pid_t> members() const {
    std::vector<pid_t> out;
    for (const std::string& p : procs) {
      std::istringstream in(read_file(p, 1 << 20));
      for (long long v; in >> v;) out.push_back(static_cast<pid_t>(v));
    }
    return out;
  }

  // Every process of the step killed and gone, then the cgroup removed. True when emptied.
  bool end() {
    if (dirs.empty()) return true;
    const auto t0 = std::chrono::steady_clock::now();
    bool empty = false;
    for (int round = 0;; ++round) {
      if (access((dirs[0] + "/cgroup.kill").c_str(), F_OK) == 0) write_text(dirs[0] + "/cgroup.kill", "1");
      const std::vector<pid_t> left = members();
      for (pid_t p : left) kill(p, SIGKILL);
      if (left.empty()) {
        empty = true;
        break;
      }
      if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(10)) break;
      usleep(round < 10 ? 1000 : 10000);
    }
    remove();
    return empty;
  }

  void remove() {
    for (const std::string& d : dirs)
      for (int i = 0; i < 100 && rmdir(d.c_str()) != 0 && errno == EBUSY; ++i) usleep(2000);
    dirs.clear();
    procs.clear();
  }
};

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

// Without bubblewrap the steps share one scratch folder of this judge's. In the uid sandbox it is
// root's, entered only by root and the leased uid's group (mode 0710), its inputs root's and
// read-only, and only its tmp/ (with tmp/w) the leased uid's: nothing else there is writable by it,
// and no other submission's uid can reach it.
const std::string& ensure_scratch(long long uid = -1) {
  if (scratch().empty()) {
    char tmpl[] = "/tmp/banklab-judge-XXXXXX";
    if (mkdtemp(tmpl)) {
      scratch() = tmpl;
      std::atexit(remove_scratch);
      const std::string root = tmpl;
      if (uid >= 0) {
        const uid_t u = static_cast<uid_t>(uid);
        bool ok = chown(tmpl, 0, u) == 0 && chmod(tmpl, 0710) == 0;
        for (const char* d : {"/tmp", "/tmp/w"})
          ok = ok && mkdir((root + d).c_str(), 0700) == 0 && lchown((root + d).c_str(), u, u) == 0;
        if (!ok) scratch() = root + "/not-usable";  // every step then fails to start: never unconfined
      } else {
        make_dirs(root + "/tmp/w");
      }
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
Running start(const Step& s, const SandboxInfo& sb, int bwrap_fd, const StepCgroup* cg = nullptr) {
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
    if (sb.userns_disabled) argv.insert(argv.begin() + 2, "--disable-userns");
    for (const std::string& e : env_list(s)) {
      const std::size_t eq = e.find('=');
      argv.insert(argv.end(), {"--setenv", e.substr(0, eq), e.substr(eq + 1)});
    }
    for (const std::string& a : system_args()) argv.push_back(a);
    // /dev is a sized tmpfs of the step's own (bwrap's --dev is not sized, and /dev/shm is in it)
    // with the host's harmless devices bound in.
    argv.insert(argv.end(), {"--proc", "/proc", "--size", std::to_string(s.limits.dev_size), "--tmpfs", "/dev"});
    for (const char* d : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"})
      argv.insert(argv.end(), {"--dev-bind", d, d});
    argv.insert(argv.end(), {"--perms", "1777", "--dir", "/dev/shm", "--symlink", "/proc/self/fd", "/dev/fd",
                             "--symlink", "/proc/self/fd/0", "/dev/stdin", "--symlink", "/proc/self/fd/1", "/dev/stdout",
                             "--symlink", "/proc/self/fd/2", "/dev/stderr"});
    argv.insert(argv.end(), {"--size", std::to_string(s.limits.tmp_size), "--tmpfs", "/tmp", "--dir", "/tmp/w"});
    for (std::size_t i = 0; i < s.inputs.size(); ++i)
      argv.insert(argv.end(), {"--perms", s.inputs[i].executable ? "0555" : "0444", "--ro-bind-data",
                               std::to_string(10 + i), s.inputs[i].path});
    argv.insert(argv.end(), {"--remount-ro", "/", "--chdir", "/tmp/w", "--", kPrlimit,
                             "--nproc=" + std::to_string(s.limits.processes), "--core=0", "--"});
  } else {
    const std::string& root = ensure_scratch(sb.mode == Mode::uid ? sb.uid : -1);
    for (const StepInput& in : s.inputs) {
      const std::string p = root + in.path;
      if (read_file(p, in.content.size() + 1) == in.content) continue;  // a step beside this one may be reading it
      make_dirs(dir_of(p));
      if (sb.mode == Mode::uid)  // whatever the judge's umask: the leased uid reads its inputs
        for (std::string d = dir_of(p); d.size() > root.size(); d = dir_of(d)) chmod(d.c_str(), 0755);
      unlink(p.c_str());
      write_file(p, in.content);
      chmod(p.c_str(), in.executable ? 0555 : 0444);
    }
  }
  for (const std::string& a : s.argv) argv.push_back(a);
  std::vector<std::string> envs = env_list(s);
  if (!sb.available) {
    envs[1] = "HOME=" + scratch() + "/tmp/w";
    envs[2] = "TMPDIR=" + scratch() + "/tmp";
  }
  std::vector<char*> cargv, cenv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  for (auto& e : envs) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  const std::string cwd = sb.available ? std::string("/") : scratch() + "/tmp/w";

  // The step's identity: a root judge's leased uid (else nobody, in bwrap mode), no other group.
  const bool become = is_root() && (sb.mode == Mode::uid || sb.available);
  const uid_t as = sb.uid >= 0 ? static_cast<uid_t>(sb.uid) : kNobody;
  std::vector<const char*> join;
  if (cg)
    for (const std::string& p : cg->procs) join.push_back(p.c_str());

  r.start = std::chrono::steady_clock::now();
  r.pid = fork();
  if (r.pid == 0) {
    setpgid(0, 0);
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
    // The uid sandbox: the process limit counts the leased uid's processes (bubblewrap's is set
    // inside its user namespace, by prlimit).
    if (sb.mode == Mode::uid) set_limit(RLIMIT_NPROC, s.limits.processes);
    // A root judge hands the step to its leased uid first: it owns nothing of the host, and no
    // other submission shares its processes or its user namespaces.
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
  if (r.pid > 0) setpgid(r.pid, r.pid);
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
  if (sb.mode == Mode::uid) kill_uid(sb.uid);
  return {out, err.substr(0, err.find('\n'))};
}

std::string probe_sandbox(const std::string& tool, bool disable_userns) {
  // One real run of the sandbox as the steps will use it: it works here, or says why not.
  SandboxInfo sb;
  sb.mode = Mode::bwrap;
  sb.available = true;
  sb.tool = tool;
  sb.uid = lease().uid;
  sb.userns_disabled = disable_userns;
  const int fd = open(tool.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "cannot open " + tool + ": " + std::strerror(errno);
  Step s;
  s.argv = {"/bin/sh", "-c", std::string("test -r /in/x && test ! -e /etc/passwd && test -x ") + BANKLAB_NVCC +
                                 " && echo ok || echo 'the sandbox lacks /in or the CUDA toolkit (" + BANKLAB_NVCC + ")' >&2"};
  s.inputs = {{"/in/x", "x"}};
  s.limits.timeout_s = 20;
  const auto [out, err] = trial(s, sb, fd);
  close(fd);
  if (out == "ok\n") return "";
  const std::string who = !is_root() ? "" : sb.uid >= 0 ? " as uid " + std::to_string(sb.uid) : " as user nobody";
  return tool + " does not run here" + who + ": " + (err.empty() ? "no output" : err);
}

// The uid sandbox's trial: the leased uid runs the toolkit in its scratch folder and cannot read
// root's files.
std::string probe_uid(long long uid) {
  SandboxInfo sb;
  sb.mode = Mode::uid;
  sb.uid = uid;
  Step s;
  s.argv = {"/bin/sh", "-c", std::string("if test -r /etc/shadow; then echo 'it can read /etc/shadow' >&2; elif test -x ") +
                                 BANKLAB_NVCC + " && touch x; then echo ok; else echo 'it cannot run " + BANKLAB_NVCC +
                                 " or write its scratch folder' >&2; fi"};
  s.limits.timeout_s = 20;
  const auto [out, err] = trial(s, sb, -1);
  if (out == "ok\n") return "";
  return "the uid sandbox does not work here (uid " + std::to_string(uid) + "): " + (err.empty() ? "no output" : err);
}

}  // namespace

void remove_tree_nofollow(const std::string& path) { remove_at(AT_FDCWD, path.c_str()); }

void set_fresh_container(bool fresh) { g_fresh_container = fresh; }
bool fresh_container() { return g_fresh_container; }

const char* mode_name(Mode m) { return m == Mode::bwrap ? "bwrap" : m == Mode::uid ? "uid" : "none"; }

std::string SandboxInfo::describe() const {
  const std::string cg = cgroup.empty() ? "no cgroup (" + why_no_cgroup + "): per-process limits only"
                                        : "a cgroup per step (memory, processes) in " + cgroup;
  if (mode == Mode::bwrap)
    return "sandbox: bwrap " + tool + (uid >= 0 ? ", steps as uid " + std::to_string(uid) + " (leased for this judge)"
                                                : is_root() ? ", steps as user nobody" : "") +
           (userns_disabled ? ", no user namespace inside" : ", user namespaces NOT disabled inside (bubblewrap older than 0.8)") +
           ", " + cg;
  if (mode == Mode::uid)
    return "sandbox: uid " + std::to_string(uid) + " (leased for this judge; every process of it ends after each step), " + cg +
           "; bubblewrap does not run here: " + why_not;
  return "no sandbox: " + why_not + "; " + why_no_uid +
         ". Install bubblewrap (as root: apt-get install bubblewrap) or run the judge as root";
}

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
    const CgroupPlace& cg = cgroup_place();
    for (std::size_t i = 0; i < cg.parents.size(); ++i) sb.cgroup += (i ? ", " : "v" + std::to_string(cg.version) + " ") + cg.parents[i];
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
      std::string why = probe_sandbox(c, true);
      bool disabled = true;
      if (!why.empty() && probe_sandbox(c, false).empty()) {  // a bubblewrap without --disable-userns
        why.clear();
        disabled = false;
      }
      if (why.empty()) {
        sb.mode = Mode::bwrap;
        sb.available = true;
        sb.tool = c;
        sb.uid = lease().uid;
        sb.userns_disabled = disabled;
        return sb;
      }
      tried.push_back(why);
    }
    sb.why_not = tried.empty() ? "bubblewrap (bwrap) is not installed: apt-get install bubblewrap, or set BANKLAB_BWRAP"
                               : tried.front();
    if (!is_root()) {
      sb.why_no_uid = "the uid sandbox needs a root judge";
      return sb;
    }
    if (lease().uid < 0) {
      sb.why_no_uid = "the uid sandbox cannot lease a uid: " + lease().why_not;
      return sb;
    }
    sb.why_no_uid = probe_uid(lease().uid);
    if (sb.why_no_uid.empty()) {
      sb.mode = Mode::uid;
      sb.uid = lease().uid;
    }
    return sb;
  }();
  return info;
}

std::string inside(const std::string& path) {
  if (sandbox_info().available) return path;
  if (path == "/tmp" || under(path, "/tmp") || under(path, "/in") || under(path, "/inc"))
    return ensure_scratch(sandbox_info().mode == Mode::uid ? sandbox_info().uid : -1) + path;
  return path;
}

std::vector<StepResult> run_steps(const std::vector<Step>& steps) {
  const SandboxInfo& sb = sandbox_info();
  if (sb.mode == Mode::uid && steps.size() > 1) {
    // One leased uid, one scratch folder: the end of one step kills every process of the uid,
    // so steps of the uid sandbox run one after another, never side by side.
    std::vector<StepResult> one_by_one;
    for (const Step& s : steps) one_by_one.push_back(run_steps({s}).front());
    return one_by_one;
  }
  std::vector<StepResult> res(steps.size());
  std::vector<Running> run(steps.size());
  std::vector<StepCgroup> cgs(steps.size());
  const int bwrap_fd = sb.available ? open(sb.tool.c_str(), O_RDONLY | O_CLOEXEC) : -1;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const bool cg = cgs[i].make(steps[i].limits);
    run[i] = start(steps[i], sb, bwrap_fd, cg ? &cgs[i] : nullptr);
    if (run[i].pid < 0) res[i].sandbox_error = "could not start the step";
  }
  // The step's command ended (or its time is up): every process of the step ends, and is gone,
  // before anything of it is judged.
  auto end_step = [&](std::size_t i) {
    kill(-run[i].pid, SIGKILL);
    bool gone = cgs[i].end();
    if (sb.mode == Mode::uid) {
      gone = kill_uid(sb.uid) && gone;
      clean_uid_traces(sb.uid);
    }
    if (!gone) res[i].sandbox_error = "a process of the step could not be ended";
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
