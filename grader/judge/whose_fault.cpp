// Whose fault a failed step is (whose_fault.hpp): the judge's known-good file through the same
// step, in the same sandbox, with the same limits, when a student's step failed in a way that may
// be the machine's, and through all of a build's steps before the first build of a judge process.
#include "whose_fault.hpp"

#include <chrono>
#include <cstdio>
#include <optional>
#include <vector>

#include "clean_text.hpp"
#include "control_record.hpp"

namespace judge {
namespace {

// The judge's known-good file: one kernel, and its launcher, nothing a compile could refuse.
constexpr const char* kControlKernel =
    "// banklab-judge's control file: built and probed as a student's file is, to tell the machine's\n"
    "// failures from the file's.\n"
    "__global__ void banklab_control_kernel(int* out) { if (out) out[threadIdx.x] = 1; }\n"
    "void banklab_control_launch(int* out) { banklab_control_kernel<<<1, 32>>>(out); }\n";

// The control's probe: the probe's interface, the control file, and a main() that writes its one
// answer to descriptor 3 as the probe does (the file where the step sees it: /in, or unconfined
// its scratch, as the student's probe_main.cu names it).
std::string control_probe_main() {
  return "#include <cstdio>\n"
         "#include \"grader/probe.hpp\"\n"
         "#include \"" + inside("/in/kernel.cu") + "\"\n"
         "#ifndef __CUDA_ARCH__\n"
         "int main(int, char**) {\n"
         "  std::FILE* f = fdopen(3, \"w\");\n"
         "  if (!f || std::fputs(\"banklab-control ok\\n\", f) < 0 || std::fclose(f) != 0) return 1;\n"
         "  return 0;\n"
         "}\n"
         "#endif\n";
}
constexpr const char* kControlAnswer = "banklab-control ok\n";

// `like` with the student's file (and the probe's source) replaced by the control's.
Step control_of(const Step& like) {
  Step s = like;
  for (StepInput& in : s.inputs) {
    if (in.path == "/in/kernel.cu") in.content = kControlKernel;
    if (in.path == "/in/probe_main.cu") in.content = control_probe_main();
  }
  return s;
}

// The probe's run `like` (its command and limits) with the control's compiled probe as /in/probe.
StepResult run_control_probe(const Step& like, const std::string& probe) {
  Step run = like;
  bool given = false;
  for (StepInput& in : run.inputs)
    if (in.path == "/in/probe") in.content = probe, given = true;
  if (!given) run.inputs.push_back({"/in/probe", probe, true});
  return run_steps({run}).front();
}

ControlResult result_of(const StepResult& r) { return {failure_class(r), first_line(r)}; }

}  // namespace

std::string first_line(const StepResult& r) {
  return clean_text(std::string_view(r.err).substr(0, r.err.find('\n')), 400, false);
}

std::string failure_class(const StepResult& r) {
  if (!r.sandbox_error.empty()) return "the judge: " + r.sandbox_error;
  const ProcessResult& p = r.process;
  if (p.timed_out) return "time";
  if (p.signal != 0) return "signal " + std::to_string(p.signal);
  if (p.exit_code != 0)
    return "exit " + std::to_string(p.exit_code) +
           (p.exit_code == 1 && r.err.compare(0, 7, "bwrap: ") == 0 ? ", as bubblewrap's own error" : "");
  return "";
}

bool may_be_the_machines(const StepResult& r) {
  const int e = r.process.exit_code;
  return !r.process.timed_out && r.process.signal == 0 &&
         (e == 126 || e == 127 || (e == 1 && r.err.compare(0, 7, "bwrap: ") == 0));
}

namespace {

// The control of one step, as run_control() describes it.
ControlResult control_now(ControlStep which, const Step& like, const Step& probe_compile) {
  if (which != ControlStep::probe_run) {
    const StepResult r = run_steps({control_of(like)}).front();
    ControlResult c = result_of(r);
    if (c.failure.empty() && r.out.empty()) c.failure = "no output";
    return c;
  }
  const StepResult built = run_steps({control_of(probe_compile)}).front();
  if (!failure_class(built).empty() || built.out.empty()) {
    ControlResult c = result_of(built);
    if (c.failure.empty()) c.failure = "no output";
    c.said = "(its probe's compile) " + c.said;
    return c;
  }
  const StepResult r = run_control_probe(like, built.out);
  ControlResult c = result_of(r);
  if (c.failure.empty() && r.answers != kControlAnswer) c.failure = "no answers";
  return c;
}

// The three steps of control_before_build(), run now: the machine's reason when one failed.
std::string run_build_control(const std::vector<Step>& steps) {
  std::vector<StepResult> built;
  if (sandbox_info().available) {
    built = run_steps({steps[0], steps[1]});  // side by side, as the student's compiles run
  } else {  // unconfined steps share one scratch folder: one after the other
    built = {run_steps({steps[0]}).front(), run_steps({steps[1]}).front()};
  }
  const char* const what[] = {"its probe's compile", "its device code's compile"};
  for (int i = 0; i < 2; ++i) {
    const ControlResult c = result_of(built[i]);
    const std::string failure = !c.failure.empty() ? c.failure : built[i].out.empty() ? "no output" : "";
    if (!failure.empty())
      return std::string("the judge's own known-good file failed ") + what[i] + " just now, before your file was "
             "touched (" + failure + (c.said.empty() ? "" : ": " + c.said) + "): this machine cannot build a lab now.";
  }
  const StepResult r = run_control_probe(steps[2], built[0].out);
  ControlResult c = result_of(r);
  if (c.failure.empty() && r.answers != kControlAnswer) c.failure = "no answers";
  if (c.failure.empty()) return "";
  return "the judge's own known-good file's probe failed its run just now, before your file was touched (" + c.failure +
         (c.said.empty() ? "" : ": " + c.said) + "): this machine cannot run a probe now.";
}

}  // namespace

ControlResult run_control(ControlStep which, const Step& like, const Step& probe_compile) {
  ControlResult c = control_now(which, like, probe_compile);
  if (!c.failure.empty()) forget_control_passes();  // a pass kept earlier no longer says how this machine is
  return c;
}

BuildControl control_before_build(const Step& probe_compile, const Step& device_compile, const Step& probe_run) {
  static std::optional<BuildControl> once;  // once per judge process
  if (once) return {once->fault, once->note + " (this judge process's control, earlier)"};
  const std::vector<Step> steps = {control_of(probe_compile), control_of(device_compile), probe_run};
  const std::string key = control_key(steps);
  std::string no_dir, stale;
  const std::string dir = control_dir(&no_dir);
  const ControlLock lock(dir);  // judges started together run one control; the others reuse its pass
  if (const std::optional<std::string> pass = fresh_control_pass(dir, key, &stale)) {
    once = BuildControl{"", "control: reused, not run: the judge's own known-good file's build " + *pass};
    return *once;
  }
  const auto t0 = std::chrono::steady_clock::now();
  BuildControl b;
  b.fault = run_build_control(steps);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  char took[32];
  std::snprintf(took, sizeof took, "%.2f s", secs);
  if (!b.fault.empty()) {
    forget_control_passes();
    b.note = std::string("control: ran (") + took + "), FAILED: " + b.fault;
  } else {
    const std::string kept = record_control_pass(dir, key);
    b.note = std::string("control: ran (") + took + "), passed: the judge's own known-good file compiled (its probe and "
             "device code) and its probe ran; " +
             (kept.empty() ? "its pass is not kept" + (no_dir.empty() ? std::string() : " (" + no_dir + ")")
                           : "its pass is kept in " + kept + " for " + std::to_string(kControlFreshS) + " s");
  }
  if (!stale.empty()) b.note += "; " + stale;
  once = b;
  return b;
}

}  // namespace judge
