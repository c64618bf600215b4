// Whose fault a failed step is (whose_fault.hpp): the judge's known-good file through the same
// step, in the same sandbox, with the same limits, when a student's step failed in a way that may
// be the machine's.
#include "whose_fault.hpp"

#include "clean_text.hpp"

namespace judge {
namespace {

// The judge's known-good file: one kernel, and its launcher, nothing a compile could refuse.
constexpr const char* kControlKernel =
    "// banklab-judge's control file: built and probed as a student's file is, to tell the machine's\n"
    "// failures from the file's.\n"
    "__global__ void banklab_control_kernel(int* out) { if (out) out[threadIdx.x] = 1; }\n"
    "void banklab_control_launch(int* out) { banklab_control_kernel<<<1, 32>>>(out); }\n";

// The control's probe: the probe's interface, the control file, and a main() that writes its one
// answer to descriptor 3 as the probe does.
constexpr const char* kControlProbeMain =
    "#include <cstdio>\n"
    "#include \"grader/probe.hpp\"\n"
    "#include \"/in/kernel.cu\"\n"
    "#ifndef __CUDA_ARCH__\n"
    "int main(int, char**) {\n"
    "  std::FILE* f = fdopen(3, \"w\");\n"
    "  if (!f || std::fputs(\"banklab-control ok\\n\", f) < 0 || std::fclose(f) != 0) return 1;\n"
    "  return 0;\n"
    "}\n"
    "#endif\n";
constexpr const char* kControlAnswer = "banklab-control ok\n";

// `like` with the student's file (and the probe's source) replaced by the control's.
Step control_of(const Step& like) {
  Step s = like;
  for (StepInput& in : s.inputs) {
    if (in.path == "/in/kernel.cu") in.content = kControlKernel;
    if (in.path == "/in/probe_main.cu") in.content = kControlProbeMain;
  }
  return s;
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

ControlResult run_control(ControlStep which, const Step& like, const Step& probe_compile) {
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
  Step run = like;
  for (StepInput& in : run.inputs)
    if (in.path == "/in/probe") in.content = built.out;
  const StepResult r = run_steps({run}).front();
  ControlResult c = result_of(r);
  if (c.failure.empty() && r.answers != kControlAnswer) c.failure = "no answers";
  return c;
}

}  // namespace judge
