// A cgroup per step (sandbox.cpp's): the memory and the processes of the whole step, every
// process it forks, its memfds and its tmpfs pages included, counted and limited together.
// cgroup v2 where the machine gives one with the memory and pids controllers, else v1 (a memory
// and a pids hierarchy), made by a root judge; else (any judge, root in a container too) beneath
// the judge's own cgroup v2 where that cgroup is delegated to the judge's user (its directory,
// cgroup.procs and cgroup.subtree_control writable by it, memory and pids among its controllers:
// what `systemd-run --user --scope -p Delegate=yes` gives): the processes of that cgroup move
// into a leaf of it (banklab-callers), as rootless container runtimes do, and each step's cgroup
// is made beside it. Otherwise no cgroup: the limits are per process (the judge says so).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace judge {

/// Where step cgroups are made (found once; a trial cgroup is made and removed).
struct CgroupPlace {
  int version = 0;
  std::vector<std::string> parents;  ///< v2: {dir}; v1: {memory dir, pids dir}
  bool delegated = false;            ///< v2 beneath the judge's own cgroup, delegated to its user
  std::string why_not;
};
const CgroupPlace& cgroup_place();

/// How old an empty step cgroup of a judge that no longer runs must be before a judge removes it.
inline constexpr int kLeftoverStepCgroupAgeS = 3600;
/// Removes the step cgroups (and trial cgroups) that judges killed before their cleanup left in
/// `place` (SIGKILL, a lost machine): those whose pid no process has and whose directory is older
/// than kLeftoverStepCgroupAgeS. rmdir removes an empty cgroup only, so a step with processes is
/// never touched; the age keeps the cgroups of a live judge whose pid this judge cannot see
/// (another pid namespace) between their making and their first process. cgroup_place() runs it
/// once a judge. Returns how many it removed.
int remove_leftover_step_cgroups(const CgroupPlace& place);

/// One step's cgroup: made before the step starts (its first process joins it before anything
/// else), killed, waited for and removed after the step's command ended.
struct StepCgroup {
  std::vector<std::string> dirs;
  std::vector<std::string> procs;  ///< the cgroup.procs files the step's first process writes
  long long limit = 0;             ///< the memory limit written (bytes)
  long long peak = -1;             ///< the most the step held at once (bytes), read by end()
  bool oom_killed = false;         ///< the kernel ended a process of it at the limit
  std::string error;               ///< why make() failed (the directory and the system's words)

  /// Makes it with these limits; false (and nothing left) when it cannot.
  bool make(long long memory, long long processes);
  std::vector<pid_t> members() const;
  /// Every process of the step killed and gone, the peak read, then the cgroup removed.
  /// True when emptied.
  bool end();
  void remove();
};

}  // namespace judge
