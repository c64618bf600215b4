// Child processes with a time limit: the judge's way to run a compiler, a student's probe, or
// one of its own tests, so that nothing they do can hang or outlive the judge.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace judge {

struct ProcessResult {
  int exit_code = -1;     ///< exit status when the process exited normally, else -1
  int signal = 0;         ///< the signal that ended it, 0 when it exited
  bool timed_out = false; ///< killed at the time limit
  double seconds = 0;
  bool ok() const { return exit_code == 0 && !timed_out; }
  std::string describe() const;  ///< "exit 1", "killed by signal 11 (SIGSEGV)", "killed after 20 s"
};

struct ProcessOptions {
  std::string cwd;                               ///< "" = the judge's
  std::string output_file;                       ///< stdout+stderr go here ("" = inherit)
  long long max_output_bytes = 4 << 20;          ///< output beyond this is cut
  double timeout_s = 60;
  bool clean_env = false;                        ///< start with only PATH, HOME=cwd, LANG=C
  std::map<std::string, std::string> env;        ///< added or replaced
  /// When the judge runs as root: run the child as user nobody (uid/gid 65534), so that it
  /// cannot write the judge's files; cwd is handed to nobody first.
  bool as_nobody = false;
  /// Asked while waiting (every 20 ms or so): true restarts the time limit, which then bounds each
  /// piece of the work (banklab-judge grade: each test of a process that judges several).
  std::function<bool()> progressed;
};

/// Runs argv[0] (a path) with arguments, in a new process group, and waits at most timeout_s;
/// then the whole group is killed. Any process the child left in its group is killed too.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opt);

/// Starts several at once and waits for all (the judge compiles probe and kernel in parallel).
std::vector<ProcessResult> run_processes(const std::vector<std::vector<std::string>>& argvs,
                                         const std::vector<ProcessOptions>& opts);

/// The text of a file, at most max_bytes of it ("" when unreadable).
std::string read_file(const std::string& path, std::size_t max_bytes = 1 << 20);
bool write_file(const std::string& path, const std::string& text);
/// The running program's own path (/proc/self/exe).
std::string self_path();
/// mkdir -p.
void make_dirs(const std::string& path);

}  // namespace judge
