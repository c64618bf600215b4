// The sandbox every step that touches a student's file runs in (both nvcc compiles, the probe):
// bubblewrap, with new PID, mount, network, IPC, UTS and cgroup namespaces, a session of its own
// (no controlling terminal), sized tmpfs for /tmp and /dev as the only writable places, read-only
// binds of the system and the CUDA toolkit, and the step's inputs copied in from descriptors
// (never a path of the course or of the judge's work folder). A root judge starts bubblewrap as
// root, needing no user namespace, and the step drops to a uid leased to this judge alone inside
// (setpriv: no capability, no new privileges); where that fails, the step becomes the leased uid
// first and bubblewrap makes a user namespace (the way of a non-root judge). A cgroup per step
// (memory and processes of the whole step) where one can be made, rlimits per process. Output
// comes back over pipes, with a size limit. Mode `none` (bubblewrap cannot start): the judge
// refuses (main.cpp), except on a student's own machine that asks for it. See docs/dev/GRADER.md;
// one file a mode: sandbox_modes.hpp.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "process.hpp"

namespace judge {

enum class Mode { bwrap, none };
const char* mode_name(Mode m);  ///< "bwrap", "none"

/// How the judge isolates a step on this machine (found once per process).
struct SandboxInfo {
  Mode mode = Mode::none;
  bool available = false;  ///< bubblewrap runs here (mode bwrap)
  std::string tool;        ///< the bwrap binary used
  std::string why_not;     ///< when bubblewrap does not run: what was tried and what failed
  std::string remedy;      ///< what would make it run, when that is not bubblewrap ("": install bubblewrap)
  long long uid = -1;      ///< a root judge's leased uid, else -1 (nobody)
  bool as_root = false;    ///< bubblewrap started as root, no user namespace; setpriv drops inside
  std::string cgroup;      ///< "v2 DIR" / "v1 DIR, DIR": where each step's cgroup is made
  std::string why_no_cgroup;  ///< no cgroup: why (per-process limits only)
  bool userns_disabled = false;  ///< bwrap --disable-userns works here
  /// The line `banklab-judge sandbox` prints first: "sandbox: bwrap ...", "no sandbox: WHY".
  std::string describe() const;
  /// How the steps' memory and processes are limited: "a cgroup per step ..." or "no cgroup
  /// (WHY): ... per process only" (also in a Build record's message).
  std::string limits_line() const;
};
const SandboxInfo& sandbox_info();

/// Accepted for old callers (banklab-judge --fresh-container): it loosens nothing.
void set_fresh_container(bool fresh);
bool fresh_container();

struct StepLimits {
  double timeout_s = 60;
  long long address_space = 2LL << 30;  ///< RLIMIT_AS of every process of the step
  long long cpu_s = 120;                ///< RLIMIT_CPU of every process
  long long processes = 256;            ///< RLIMIT_NPROC of the step's uid (prlimit, inside) and its cgroup's pids.max
  long long file_size = 256LL << 20;    ///< RLIMIT_FSIZE
  long long tmp_size = 1LL << 30;       ///< size of the private tmpfs (/tmp)
  long long dev_size = 16LL << 20;      ///< size of the sandbox's /dev tmpfs (with /dev/shm in it)
  /// memory.max of the step's cgroup (all its processes, tmpfs and memfd pages included);
  /// 0: one process's address space plus its tmpfs.
  long long memory = 0;
};

struct StepInput {
  std::string path;     ///< where it appears inside the sandbox (absolute; under /in or /inc)
  std::string content;  ///< copied in through a descriptor: no path of the judge's is bound
  bool executable = false;
};

struct Step {
  std::vector<std::string> argv;  ///< paths as seen inside (see Scratch::path)
  std::vector<StepInput> inputs;
  StepLimits limits;
  long long max_stdout = 1 << 20;  ///< beyond this, stdout is cut (stdout_cut)
  long long max_stderr = 256 << 10;
  bool answers_fd = false;         ///< give the step descriptor 3, a pipe read into `answers`
  long long max_answers = 16 << 20;
};

struct StepResult {
  ProcessResult process;
  std::string out, err, answers;  ///< what came back over the pipes (cut at their limits)
  bool out_cut = false, err_cut = false, answers_cut = false;
  /// The judge's own checks of the step failed: it could not be started, its cgroup made or its
  /// processes ended. Never from what the step printed (whose_fault.hpp).
  std::string sandbox_error;
  long long memory_peak = -1;     ///< the most the whole step held at once (its cgroup), -1: no cgroup
  long long memory_limit = 0;     ///< its cgroup's memory limit (bytes), 0: no cgroup
  bool oom_killed = false;        ///< the kernel ended a process of the step at that limit
};

/// Runs several steps at once, each in a sandbox of its own, and waits for all.
std::vector<StepResult> run_steps(const std::vector<Step>& steps);

/// Where an inside path ("/in/kernel.cu", "/tmp/w/k.fatbin") is for the step's programs: the same
/// path in the sandbox; under a private scratch folder when there is none (a student's own
/// machine, BANKLAB_ALLOW_UNCONFINED=1).
std::string inside(const std::string& path);

/// Removes a file or a whole tree without following any symbolic link in it.
void remove_tree_nofollow(const std::string& path);

}  // namespace judge
