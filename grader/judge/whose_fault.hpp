// Whose fault a failed step is, from evidence the judge controls (docs/dev/GRADER.md, "Whose fault
// a failed build is"). A step's failure is the machine's only when the judge's own checks of its
// tools failed (a step it could not start, a cgroup it could not make, processes it could not end:
// StepResult::sandbox_error), or when the same step of the judge's own known-good file (a control:
// a tiny built-in kernel file, built and probed the same way, in the same sandbox, with the same
// limits) fails the same way on this machine now, or the control of every step of a build, run
// before a judge process's first build touches the student's file (control_before_build), fails.
// Otherwise it is the file's. What the student's
// probe or compiler prints (a line that reads like bubblewrap's own error) never decides it: it
// only makes the judge run the control.
#pragma once

#include <string>

#include "sandbox.hpp"

namespace judge {

/// How a step ended, in the judge's words: "" when it ran fine; "the judge: WHY" (its own checks),
/// "time", "signal N", "exit N", "exit N, as bubblewrap's own error" (exit 1 whose first line of
/// stderr begins "bwrap: "), "no output". Two steps that failed the same way have the same class.
std::string failure_class(const StepResult& r);

/// True when a failed step may be the machine's: the sandbox's own error status and words, or a
/// program that could not start (126, 127). Only a reason to run the control, never a verdict.
bool may_be_the_machines(const StepResult& r);

/// The steps of a build a control is run for.
enum class ControlStep { probe_compile, device_compile, probe_run };

struct ControlResult {
  std::string failure;  ///< failure_class() of the control's step ("" when it ran fine)
  std::string said;     ///< what the control's step printed first (the judge's own file: no student text)
};

/// Runs the control of `which`: `like` (the student's step: its command, limits and the judge's
/// headers; the student's file replaced by the judge's known-good one). For the probe's run, the
/// control's probe is first compiled as the student's was (`probe_compile`, the student's compile
/// step); its failure is then the control's.
ControlResult run_control(ControlStep which, const Step& like, const Step& probe_compile);

/// The control of a build's three steps before the student's first one, once per judge process
/// (docs/dev/GRADER.md, "Whose fault a failed build is"): the judge's known-good file compiled as
/// the student's probe and device code are about to be (the same commands, limits, headers and
/// sandbox; side by side where the student's are), then its probe run as the student's will be
/// (`probe_run`: its command and limits). A pass kept by an earlier judge process that is still
/// provably fresh (control_record.hpp) is reused instead of running it again.
struct BuildControl {
  std::string fault;  ///< the machine's reason ("the judge's own known-good file ..."), "" when it passed
  std::string note;   ///< what was done, for the build's control.log: what ran, or which pass was reused
};
BuildControl control_before_build(const Step& probe_compile, const Step& device_compile, const Step& probe_run);

/// The failure is the machine's: the control failed the same way as the student's step.
inline bool same_failure(const StepResult& student, const ControlResult& control) {
  return !control.failure.empty() && control.failure == failure_class(student);
}

/// The sentence a message adds when the control did not fail as the student's step did: "(The judge
/// DID the same way just now, and it OK_WORD: this failure is your file's.)", where the control
/// failed otherwise "and it did not fail this way (ITS FAILURE)". `did`: "compiled its own
/// known-good file", say; `ok_word`: what the control did where it ran fine ("compiled", "ran").
inline std::string control_says_yours(const ControlResult& c, const std::string& did, const char* ok_word) {
  return "(The judge " + did + " the same way just now, and it " +
         (c.failure.empty() ? std::string(ok_word) : "did not fail this way (" + c.failure + ")") +
         ": this failure is your file's.)";
}

/// The first line of a step's stderr, cleaned (for a message).
std::string first_line(const StepResult& r);

}  // namespace judge
