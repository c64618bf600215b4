// The sandbox every step that touches a student's file runs in (preprocessing, both nvcc
// compiles, the probe): bubblewrap with new user, PID, mount, network, IPC, UTS and cgroup
// namespaces, a private tmpfs as the only writable place, read-only binds of the system and the
// CUDA toolkit, and the step's inputs copied in from descriptors (never a path of the course or
// of the judge's work folder). Output comes back over pipes, with a size limit. When the
// sandbox's PID 1 ends, every process of the step ends with it. See docs/dev/GRADER.md.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "process.hpp"

namespace judge {

/// How the judge isolates a step on this machine (found once per process).
struct SandboxInfo {
  bool available = false;  ///< bubblewrap runs here
  std::string tool;        ///< the bwrap binary used
  std::string why_not;     ///< when not available: what was tried and what failed
};
const SandboxInfo& sandbox_info();

/// The judge runs without a sandbox only where the platform gives each submission a container of
/// its own (banklab-judge --fresh-container) or, outside graded mode, with a plain warning.
void set_fresh_container(bool fresh);
bool fresh_container();

struct StepLimits {
  double timeout_s = 60;
  long long address_space = 2LL << 30;  ///< RLIMIT_AS of every process of the step
  long long cpu_s = 120;                ///< RLIMIT_CPU of every process
  long long processes = 256;            ///< RLIMIT_NPROC inside the step's own user namespace
  long long file_size = 256LL << 20;    ///< RLIMIT_FSIZE
  long long tmp_size = 1LL << 30;       ///< size of the private tmpfs (/tmp)
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
  std::string sandbox_error;      ///< the sandbox itself could not start the step
};

/// Runs several steps at once, each in a sandbox of its own, and waits for all.
std::vector<StepResult> run_steps(const std::vector<Step>& steps);

/// Where an inside path ("/in/kernel.cu", "/tmp/w/k.fatbin") is for the step's programs: the same
/// path in the sandbox; under a private scratch folder when there is no sandbox.
std::string inside(const std::string& path);

/// Removes a file or a whole tree without following any symbolic link in it.
void remove_tree_nofollow(const std::string& path);

}  // namespace judge
