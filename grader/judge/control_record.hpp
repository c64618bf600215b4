// A control's pass, kept for the judge processes that follow it on this machine while it provably
// still holds (whose_fault.hpp, control_before_build; docs/dev/GRADER.md, "Whose fault a failed
// build is"). The control of a build's steps costs about as much as the build of a small lab, so
// a pass is written down, and a later judge process reuses it instead of running its own, only
// when all of this holds:
//   - the same key: the same user, the same boot of the machine, the same judge (by path and file
//     identity: device, inode, size, change times), the same sandbox tool and compiler (the same,
//     and those of the folder that holds each), the same sandbox (mode, the kind of its cgroups),
//     the same PATH, and the same three steps to the byte (commands, limits, every input's bytes);
//   - it is at most kControlFreshS seconds old on the boot's own clock (CLOCK_BOOTTIME);
//   - its file is this user's own, in a folder only this user can write (0700), and is no link.
// A failed control is never written down (each judge process that meets it runs it again), and a
// control that fails on a student's failure forgets every pass (forget_control_passes).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sandbox.hpp"

namespace judge {

/// How long a pass stays fresh (seconds).
constexpr long long kControlFreshS = 300;

/// The key of a control made of `steps` (a hex digest of everything listed above).
std::string control_key(const std::vector<Step>& steps);

/// The folder passes are kept in (/tmp/banklab-judge-control-EUID), made 0700 when missing; ""
/// with `why` when it is not usable (not this user's, writable by others, a link): then no pass
/// is kept or reused, and every judge process runs its own control.
std::string control_dir(std::string* why);

/// Held while a judge looks for a pass and, where none is fresh, runs its control and writes it
/// down: judges started together (grade-class -j N) run one control, the others reuse it.
class ControlLock {
 public:
  explicit ControlLock(const std::string& dir);
  ~ControlLock();
  ControlLock(const ControlLock&) = delete;
  ControlLock& operator=(const ControlLock&) = delete;

 private:
  int fd_ = -1;
};

/// The pass kept under `key` in `dir` when it is fresh: its words for the build's control.log
/// ("passed N s ago (judge process P), RECORD"); nothing when there is none, or it is stale or
/// not to be trusted (`why` then says which, when there was a record).
std::optional<std::string> fresh_control_pass(const std::string& dir, const std::string& key, std::string* why);

/// Writes down a pass of the control `key` in `dir`, now: the record's path, "" when it could not.
std::string record_control_pass(const std::string& dir, const std::string& key);

/// Removes every pass kept for this user: a control just failed on this machine.
void forget_control_passes();

}  // namespace judge
