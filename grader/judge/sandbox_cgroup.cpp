#include "sandbox_cgroup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <ctime>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <utility>

#include "process.hpp"

namespace judge {
namespace {

constexpr const char* kCgroupName = "banklab-judge";
constexpr const char* kLeafName = "banklab-callers";  // where a delegated cgroup's own processes go

bool is_root() { return geteuid() == 0; }

bool write_text(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

long long read_number(const std::string& path) {
  const std::string t = read_file(path, 256);
  return t.empty() ? -1 : std::atoll(t.c_str());
}

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

bool enable_memory_and_pids(const std::string& dir) {
  const std::string now = read_file(dir + "/cgroup.subtree_control", 4096);
  return (has_word(now, "memory") && has_word(now, "pids")) || write_text(dir + "/cgroup.subtree_control", "+memory +pids");
}

// The delegated way (cgroup v2): beneath the judge's own cgroup, where its user may write it. A
// cgroup with processes cannot hand memory to children, so its processes (the judge, and whoever
// shares the scope) move into a leaf of it first; a judge started later in that leaf uses its
// parent. Step cgroups go into BASE/banklab-judge. False, with why, where it cannot.
bool delegated_place(const std::string& point, CgroupPlace& p, std::string& why) {
  std::string base = point + own_cgroup("");
  while (base.size() > point.size() && base.back() == '/') base.pop_back();
  if (base.size() > point.size() && base.substr(base.rfind('/') + 1) == kLeafName) base = base.substr(0, base.rfind('/'));
  // The machine's root cgroup is the root judge's way (above); a root seen from a cgroup namespace
  // (a container's own cgroup: it has cgroup.type, the real root has not) is a cgroup like any.
  if (base.size() <= point.size() && access((point + "/cgroup.type").c_str(), F_OK) != 0)
    return why = "its cgroup is the root of cgroup v2 at " + point, false;
  const std::string controllers = read_file(base + "/cgroup.controllers", 4096);
  if (!has_word(controllers, "memory") || !has_word(controllers, "pids"))
    return why = "its cgroup " + base + " is given no memory and pids controllers (cgroup.controllers: " +
                 (controllers.empty() ? std::string("none") : controllers.substr(0, controllers.find('\n'))) + ")", false;
  for (const char* f : {"", "/cgroup.procs", "/cgroup.subtree_control"})
    if (access((base + f).c_str(), W_OK) != 0)
      return why = "its cgroup " + base + " is not delegated to its user (" + base + f + ": " + std::strerror(errno) +
                   "); start it in a scope of its own: systemd-run --user --scope -p Delegate=yes COMMAND", false;
  const std::string leaf = base + "/" + kLeafName;
  mkdir(leaf.c_str(), 0755);
  bool enabled = false;
  for (int round = 0; round < 50 && !(enabled = enable_memory_and_pids(base)); ++round) {
    std::istringstream in(read_file(base + "/cgroup.procs", 1 << 20));
    for (std::string pid; in >> pid;) write_text(leaf + "/cgroup.procs", pid);
  }
  if (!enabled) return why = "cannot give memory and pids to the children of " + base + ": " + std::strerror(errno), false;
  const std::string dir = base + "/" + kCgroupName;
  mkdir(dir.c_str(), 0755);
  if (!enable_memory_and_pids(dir)) return why = "cannot give memory and pids to the children of " + dir + ": " + std::strerror(errno), false;
  p.version = 2;
  p.parents = {dir};
  p.delegated = true;
  return true;
}

CgroupPlace find_cgroup_place() {
  CgroupPlace p;
  std::vector<std::string> whys;
  std::string v1_memory, v1_pids, v2_point;
  for (const auto& [fstype, point_opts] : cgroup_mounts())
    if (fstype == "cgroup2" && v2_point.empty()) v2_point = point_opts.substr(0, point_opts.find(' '));
  // The machine's own hierarchies: root's alone.
  for (const auto& [fstype, point_opts] : is_root() ? cgroup_mounts() : decltype(cgroup_mounts())()) {
    const std::string point = point_opts.substr(0, point_opts.find(' '));
    std::string opts = point_opts.substr(point_opts.find(' ') + 1);
    for (char& c : opts) c = c == ',' ? ' ' : c;
    if (fstype == "cgroup2" && p.version == 0) {
      // Step cgroups go beside the machine's top-level ones (a cgroup with processes cannot
      // hand memory and pids to children): DIR/banklab-judge/step-PID-N-NONCE.
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
  } else if (p.version == 0 && is_root()) {
    whys.push_back("no cgroup v1 memory and pids hierarchies");
  }
  if (p.version == 0) {  // a normal user's judge, or root's where the machine's are not its to share
    std::string why = "no cgroup v2 is mounted";
    if (!v2_point.empty() && delegated_place(v2_point, p, why)) whys.clear();
    else if (is_root()) whys.push_back(why);
    else if (v2_point.empty() || why.find("systemd-run") != std::string::npos) whys.insert(whys.begin(), "the judge is not root and " + why);
    else whys.insert(whys.begin(), "the judge is not root and " + why + "; a delegated one: systemd-run --user --scope -p Delegate=yes COMMAND");
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
    p.delegated = false;
    p.why_not = whys.empty() ? "no cgroup file system" : whys.front();
  }
  return p;
}


}  // namespace

int remove_leftover_step_cgroups(const CgroupPlace& place) {
  int removed = 0;
  const std::time_t now = std::time(nullptr);
  for (const std::string& parent : place.parents) {
    DIR* dir = opendir(parent.c_str());
    if (dir == nullptr) continue;
    std::vector<std::string> gone;
    while (const dirent* e = readdir(dir)) {
      const std::string name = e->d_name;
      const std::size_t start = name.rfind("step-", 0) == 0 ? 5 : name.rfind("trial-", 0) == 0 ? 6 : 0;
      if (start == 0) continue;
      char* end = nullptr;
      const long pid = std::strtol(name.c_str() + start, &end, 10);
      if (end == name.c_str() + start || (*end != '\0' && *end != '-') || pid <= 0 || pid == getpid()) continue;
      if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // its judge may still run
      struct stat st {};
      const std::string d = parent + "/" + name;
      if (stat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || now - st.st_mtime < kLeftoverStepCgroupAgeS) continue;
      gone.push_back(d);
    }
    closedir(dir);
    for (const std::string& d : gone) removed += rmdir(d.c_str()) == 0;  // fails, and keeps it, if not empty
  }
  return removed;
}

const CgroupPlace& cgroup_place() {
  static const CgroupPlace p = [] {
    CgroupPlace found = find_cgroup_place();
    remove_leftover_step_cgroups(found);
    return found;
  }();
  return p;
}

bool StepCgroup::make(long long memory, long long processes) {
  const CgroupPlace& place = cgroup_place();
  if (place.version == 0) return false;
  static std::mutex m;
  static int n = 0;
  // A step cgroup's name is this judge's pid, its count and a nonce: a judge killed before its
  // cleanup (SIGKILL, a lost machine) leaves its empty step cgroups behind, and pids come back
  // (pid_max is often 32768), so pid and count alone would meet such a leftover and the step would
  // not run (not graded). A name that exists all the same is passed over for another.
  for (int attempt = 0; dirs.empty(); ++attempt) {
    if (attempt == 8) return false;
    std::string name;
    {
      std::lock_guard<std::mutex> g(m);
      const auto t = std::chrono::steady_clock::now().time_since_epoch().count();
      name = "/step-" + std::to_string(getpid()) + "-" + std::to_string(n++) + "-" +
             std::to_string(static_cast<unsigned long long>(t) % 1000000007ULL);
    }
    for (const std::string& parent : place.parents) {
      const std::string d = parent + name;
      if (mkdir(d.c_str(), 0755) != 0) {
        const int e = errno;
        error = "mkdir " + d + ": " + std::strerror(e);
        remove();                       // dirs empty again: the next attempt, where the name was taken
        if (e != EEXIST) return false;
        break;
      }
      dirs.push_back(d);
      procs.push_back(d + "/cgroup.procs");
    }
  }
  error.clear();
  const std::string mem = std::to_string(memory), pids = std::to_string(processes);
  bool ok = true;
  if (place.version == 2) {
    ok = write_text(dirs[0] + "/memory.max", mem) && write_text(dirs[0] + "/pids.max", pids);
    write_text(dirs[0] + "/memory.swap.max", "0");  // absent without swap accounting
  } else {
    ok = write_text(dirs[0] + "/memory.limit_in_bytes", mem) && write_text(dirs[1] + "/pids.max", pids);
    if (access((dirs[0] + "/memory.memsw.limit_in_bytes").c_str(), F_OK) == 0)
      ok = ok && write_text(dirs[0] + "/memory.memsw.limit_in_bytes", mem);
    // The kernel, not the step, decides at the limit: its OOM killer ends a process of the step.
    ok = ok && read_number(dirs[0] + "/memory.limit_in_bytes") <= memory;
  }
  if (!ok) {
    error = "its memory and process limits could not be written in " + dirs[0];
    remove();
  }
  limit = ok ? memory : 0;
  return ok;
}

std::vector<pid_t> StepCgroup::members() const {
  std::vector<pid_t> out;
  for (const std::string& p : procs) {
    std::istringstream in(read_file(p, 1 << 20));
    for (long long v; in >> v;) out.push_back(static_cast<pid_t>(v));
  }
  return out;
}

bool StepCgroup::end() {
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
  // The most the step held at once (v2: memory.peak, kernels from 5.19), and whether the kernel
  // ended one of its processes at the limit.
  const bool v2 = cgroup_place().version == 2;
  peak = read_number(dirs[0] + (v2 ? "/memory.peak" : "/memory.max_usage_in_bytes"));
  // "oom_kill N" is a line of memory.events (v2) and of memory.oom_control (v1).
  std::istringstream ev(read_file(dirs[0] + (v2 ? "/memory.events" : "/memory.oom_control"), 4096));
  for (std::string k; ev >> k;) {
    long long v = 0;
    ev >> v;
    if (k == "oom_kill" && v > 0) oom_killed = true;
  }
  remove();
  return empty;
}

void StepCgroup::remove() {
  for (const std::string& d : dirs)
    for (int i = 0; i < 100 && rmdir(d.c_str()) != 0 && errno == EBUSY; ++i) usleep(2000);
  dirs.clear();
  procs.clear();
}

}  // namespace judge
