// The sandbox's pieces, one file a mode, and what they share (internal to the sandbox; the judge
// includes sandbox.hpp):
//   sandbox.cpp             the common part: a step started (fork, descriptors, rlimits, exec) and
//                           the steps run together to their end (pipes, deadlines, results)
//   sandbox_bwrap.cpp       mode bwrap: finding bubblewrap, one trial run a way, its command line
//   sandbox_uid.cpp         a root judge: the uid leased to it, and the drop to it (setpriv inside a
//                           bubblewrap started as root, or setuid before a bubblewrap that makes a
//                           user namespace)
//   sandbox_unconfined.cpp  mode none on a student's own machine: a private scratch folder
//   sandbox_cgroup.cpp      a cgroup per step (memory and processes of the whole step)
//   sandbox_keys.cpp        nothing of the caller's keys: a fresh session keyring a step, the
//                           keyring calls filtered (libseccomp), a leased uid's keyrings cleared
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "sandbox.hpp"

namespace judge {

struct StepCgroup;

constexpr uid_t kNobody = 65534;
constexpr const char* kPrlimit = "/usr/bin/prlimit";
constexpr const char* kSetpriv = "/usr/bin/setpriv";
/// The descriptor bubblewrap reads the step's syscall filter from (--seccomp; sandbox_keys.hpp).
constexpr int kFilterFd = 9;

inline bool is_root() { return geteuid() == 0; }
std::string dir_of(const std::string& p);
bool under(const std::string& path, const std::string& dir);

// ---- the common part (sandbox.cpp) -------------------------------------------------------------

/// The toolkit's root: the folder above nvcc's bin/.
std::string cuda_root();
/// The environment of every step (PATH, HOME=/tmp/w, TMPDIR, C locale, no GPU).
std::vector<std::string> env_list(const Step& s);

/// A step started: its process (a session of its own) and the read ends of its pipes.
struct Running {
  pid_t pid = -1;
  int out = -1, err = -1, ans = -1;
  std::chrono::steady_clock::time_point start;
  bool exited = false;
  int status = 0;
};
/// Starts one step: bubblewrap (`bwrap_fd`, the tool opened) or, unconfined, the step's program.
Running start_step(const Step& s, const SandboxInfo& sb, int bwrap_fd, const StepCgroup* cg = nullptr);
/// Removes a tree without following any link (relative to `dirfd`).
void remove_at(int dirfd, const char* name);
/// Reads what is there on `fd` into `into` up to `max` (beyond: read and dropped, `cut`); closes
/// it at its end.
void drain(int& fd, std::string& into, long long max, bool& cut);

// ---- mode bwrap (sandbox_bwrap.cpp) ------------------------------------------------------------

/// bubblewrap's command line for a step, up to (not including) the step's own argv.
std::vector<std::string> bwrap_args(const Step& s, const SandboxInfo& sb);

// ---- a root judge's uid (sandbox_uid.cpp) ------------------------------------------------------

/// The uid leased to this (root) judge for its steps, held until it ends; -1: none (nobody).
long long leased_uid();
/// The uid the steps run as: the leased one, else nobody.
uid_t step_uid(const SandboxInfo& sb);
/// Bubblewrap may start as root here (no user namespace), the step dropping inside with setpriv.
bool can_start_bwrap_as_root();
/// What runs inside a bubblewrap started as root, before the step: setpriv to the step's uid,
/// every capability dropped, no new privileges. Empty when bubblewrap did not start as root.
std::vector<std::string> setpriv_args(const SandboxInfo& sb);
/// A root judge whose bubblewrap makes a user namespace becomes the step's uid before exec
/// (in the forked child): false when it cannot (the step must not start).
bool drop_before_bwrap(const SandboxInfo& sb);
/// "as root (steps as uid N)", " as uid N", " as user nobody" or "": who a trial ran as.
std::string trial_runs_as(const SandboxInfo& sb);
/// "uid N (leased for this judge)" or "user nobody": who the steps run as, for describe().
std::string steps_run_as(const SandboxInfo& sb);

// ---- mode none, a student's own machine (sandbox_unconfined.cpp) -------------------------------

/// The private scratch folder of unconfined steps (mkdtemp, removed at exit), made on first use.
const std::string& ensure_scratch();
/// Writes the step's inputs under the scratch folder and points HOME and TMPDIR of `envs` there.
void place_inputs_unconfined(const Step& s, std::vector<std::string>& envs);

}  // namespace judge
