// The judge's build of a student's file (build.hpp): its steps over one work folder, each a function
// returning its result, in the order build_lab() runs them; every step in the sandbox.
#include "build.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <set>
#include <sstream>
#include <vector>

#include "grader/answers.hpp"
#include "grader/lab_folders.hpp"
#include "clean_text.hpp"
#include "diagnostics.hpp"
#include "grader/probe_wraps.hpp"
#include "process.hpp"
#include "sandbox.hpp"
#include "sha256.hpp"
#include "whose_fault.hpp"

#ifndef BANKLAB_NVCC
#define BANKLAB_NVCC "/usr/local/cuda/bin/nvcc"
#endif
#ifndef BANKLAB_CUDA_ARCHS
#define BANKLAB_CUDA_ARCHS "90"
#endif
#ifndef BANKLAB_SOURCE_DIR
#define BANKLAB_SOURCE_DIR "."
#endif
#ifndef BANKLAB_GENERATED_DIR
#define BANKLAB_GENERATED_DIR "."
#endif
#ifndef BANKLAB_PROBE_RUNTIME
#define BANKLAB_PROBE_RUNTIME "libbanklab_probe_runtime.a"
#endif

namespace judge {
namespace {

// The judge's time limits, from their one home grader/judge/limits.json (grader/CMakeLists.txt
// reads it and passes them; banklab.grading.judging.judge_limits() reads the same file): a compile
// that never ends fails its lab within 2 min.
#if !defined(BANKLAB_COMPILE_TIMEOUT_S) || !defined(BANKLAB_PROBE_TIMEOUT_S)
#error "BANKLAB_COMPILE_TIMEOUT_S and BANKLAB_PROBE_TIMEOUT_S come from grader/judge/limits.json (grader/CMakeLists.txt)"
#endif
constexpr double kCompileTimeoutS = BANKLAB_COMPILE_TIMEOUT_S;
constexpr double kProbeTimeoutS = BANKLAB_PROBE_TIMEOUT_S;
// Bumped whenever the way a lab is built changes: an older build is never reused.
constexpr const char* kBuildProtocol = "sandbox-8";  // 8: the fatbin uncompressed, source.cu kept; 6: the probe with -nodlink (5: at -O0, never released)

// Where things are inside every step's sandbox: the student's file alone in /in, the headers a
// lab may include (a snapshot made by the judge) in /inc, the step's scratch in /tmp/w.
const std::string kStudentInside = "/in/kernel.cu";

std::vector<std::string> archs() {
  std::vector<std::string> out;
  std::stringstream ss(BANKLAB_CUDA_ARCHS);
  std::string a;
  while (std::getline(ss, a, ';'))
    if (!a.empty()) out.push_back(a.substr(0, a.find_first_of("-")));  // "90-real" -> "90"
  if (out.empty()) out.push_back("90");
  return out;
}

std::string src_dir() { return BANKLAB_SOURCE_DIR; }

// Where the sandbox sees the probe's runtime and a lab's generated headers: one name each, used by
// header_snapshot() (which puts them there), the probe's compile command and build_lab().
constexpr const char* kProbeRuntimeInside = "/inc/libbanklab_probe_runtime.a";
std::string generated_header(const std::string& lab, const char* what) { return "grader/lab" + lab + "_" + what + ".hpp"; }
const std::string& snapshot_content(const std::vector<StepInput>& snapshot, const std::string& path) {
  static const std::string none;
  for (const StepInput& h : snapshot)
    if (h.path == path) return h.content;
  return none;
}

// The headers a lab may include, as the judge's own snapshot: every common/include/banklab
// header, the probe's headers and the lab's description as python/banklab/lab/gen.py generated it into the
// build tree (grader/labNN_description.hpp). Nothing else of the course tree is visible to a compile.
std::vector<StepInput> header_snapshot(const std::string& lab) {
  std::vector<StepInput> out;
  const std::string dir = src_dir() + "/common/include/banklab";
  if (DIR* d = opendir(dir.c_str())) {
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if ((n.size() > 4 && n.compare(n.size() - 4, 4, ".hpp") == 0) || (n.size() > 4 && n.compare(n.size() - 4, 4, ".cuh") == 0))
        names.push_back(n);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) out.push_back({"/inc/banklab/" + n, read_file(dir + "/" + n, 1 << 20)});
  }
  for (const char* h : {"probe.hpp", "launch_calls.hpp", "lab_description.hpp"})
    out.push_back({std::string("/inc/grader/") + h, read_file(src_dir() + "/grader/include/grader/" + h, 1 << 20)});
  // The probe's runtime, compiled with the judge (grader/probe/probe_runtime.cpp): every probe links it.
  out.push_back({kProbeRuntimeInside, read_file(BANKLAB_PROBE_RUNTIME, 64 << 20)});
  for (const char* what : {"probe", "description"}) {  // the description last: build_lab() reads it
    const std::string h = generated_header(lab, what);
    out.push_back({"/inc/" + h, read_file(std::string(BANKLAB_GENERATED_DIR) + "/" + h, 1 << 20)});
  }
  return out;
}

std::vector<std::string> common_flags() { return {"-std=c++17", "-w", "-I" + inside("/inc")}; }

// A step whose product is a file: nvcc's messages go to stderr, and the file comes back on stdout
// after the compile ended (cat, the sandbox's last act): nothing is taken from the sandbox by path.
std::vector<std::string> compile_then_cat(const std::vector<std::string>& nvcc_args, const std::string& product) {
  std::vector<std::string> cmd = {"/bin/sh", "-c", "\"$0\" \"$@\" >&2 && exec cat " + product, BANKLAB_NVCC};
  cmd.insert(cmd.end(), nvcc_args.begin(), nvcc_args.end());
  return cmd;
}

// The probe's compile and link, in ONE place. It compiles /in/probe_main.cu (probe_source():
// the probe's interface, the student's file, the lab's probe code) and links the probe's runtime
// (grader/probe/probe_runtime.cpp, built with the judge). The device pass is only there for the
// kernels' registration (the probe never runs a kernel; nvcc 13's cicc writes the host stubs, so
// it cannot be left out: a device pass with no kernels leaves the launchers' stubs undefined).
// Host code at -O1, as before: the probe's host code must see what an optimised build sees
// (__OPTIMIZE__; judge.FailsClosed's host-side test holds it: -O0 would let a file answer the
// probe one way and run another). No device link (-nodlink: a file compiled whole has no
// device code to link; nvcc's device link ran nvlink, fatbinary and one more host compile).
std::vector<std::string> probe_compile_command(const std::string& arch) {
  std::vector<std::string> args = common_flags();
  args.insert(args.end(), {"-O1", "-nodlink", "-gencode", "arch=compute_" + arch + ",code=compute_" + arch});
  // --- extra probe flags (compile or link) go here, e.g. "-Xlinker", "--wrap=cudaLaunchKernel" ---
  // The launch capture wraps the runtime's launch entry points: one --wrap per name of
  // probe::kWrappedSymbols (grader/include/grader/probe_wraps.hpp).
  for (const char* sym : probe::kWrappedSymbols) args.insert(args.end(), {"-Xlinker", std::string("--wrap=") + sym});
  args.insert(args.end(), {inside("/in/probe_main.cu"), inside(kProbeRuntimeInside), "-o", inside("/tmp/w/probe")});
  return compile_then_cat(args, inside("/tmp/w/probe"));
}

std::vector<std::string> fatbin_compile_command(const std::vector<std::string>& arch) {
  std::vector<std::string> args = common_flags();
  // -no-compress: the judge reads the device code before loading it (grader/gpu/device_code.hpp).
  args.insert(args.end(), {"-fatbin", "-lineinfo", "-no-compress"});
  for (const auto& a : arch) args.insert(args.end(), {"-gencode", "arch=compute_" + a + ",code=[sm_" + a + ",compute_" + a + "]"});
  args.insert(args.end(), {inside(kStudentInside), "-o", inside("/tmp/w/kernel.fatbin")});
  return compile_then_cat(args, inside("/tmp/w/kernel.fatbin"));
}

// True when `text` holds no token at all: nothing but white space and comments (an empty file,
// blank lines, a file whose code was all deleted but its comments). Read by the judge, not
// compiled: a string or character literal, a directive, any other character is a token.
bool has_no_code(const std::string& text) {
  for (std::size_t i = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0; i < text.size();) {  // after a UTF-8 BOM
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (c == '\\' && (text.compare(i, 2, "\\\n") == 0 || text.compare(i, 3, "\\\r\n") == 0)) {
      i += text[i + 1] == '\n' ? 2 : 3;  // a line splice
    } else if (text.compare(i, 2, "//") == 0) {
      // to the end of the line; a backslash at its end continues the comment on the next line
      for (i += 2; i < text.size() && text[i] != '\n'; ++i)
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      if (end == std::string::npos) return false;  // an unterminated comment: the compiler says so
      i = end + 2;
    } else {
      return false;
    }
  }
  return true;
}

// The build's message for a file with no code: what happened, and the command that brings the
// lab's stub back (as printed, from the course folder).
std::string no_code_message(const std::string& lab, const std::string& folder) {
  const std::string stub = "labs/" + (folder.empty() ? lab + "_<name>" : folder) + "/kernel.cu";
  return "your kernel.cu is empty: it has no code, only blank lines or comments, so there is nothing to judge. "
         "Start again from the lab's stub (this replaces the file with the stub):\n  git checkout " + stub +
         "\nthen do the lab's TODOs in it.";
}

// Every name the probe's own code after the student's file uses (the generated main() and the
// lab's probe.cu): each identifier of their text, comments and strings included (an #undef of a
// name that is no macro does nothing). A name the preprocessor does not allow to #undef (the
// predefined __X__ macros, `defined`, C++'s operator words) is left out; none of them can be a
// student's macro.
std::vector<std::string> names_of(const std::string& text) {
  static const char* const kOperatorWords[] = {"and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq",
                                               "or", "or_eq", "xor", "xor_eq", "defined"};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isalpha(c) || c == '_') {
      std::size_t j = i + 1;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      std::string n = text.substr(i, j - i);
      bool skip = n.size() > 1 && n[0] == '_' && (n[1] == '_' || std::isupper(static_cast<unsigned char>(n[1])));
      for (const char* w : kOperatorWords) skip = skip || n == w;
      if (!skip) out.push_back(std::move(n));
      i = j;
    } else if (std::isdigit(c)) {  // a number, with its suffix (0x40ull): no name in it
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' || text[i] == '.')) ++i;
    } else {
      ++i;
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The probe's source: the probe's interface (grader/probe.hpp, a few declarations), the
// student's file #included as it is (each of nvcc's passes sees it as that pass sees the file
// alone: an #ifndef __CUDA_ARCH__ host helper is there for the host code; the kernels get their
// host stubs and registrations), then, host side only, the lab's generated main() and probe.cu.
// What the student's file defines as macros must not reach the probe's own code (a macro that
// renames tile_index for "any code after the file" would make the probe report another layout
// than the kernels use): every name that code uses is #undef'd first, so it means what the judge
// wrote or nothing. Its headers were all included before the student's file. An #include ends
// every comment, string and #if the file left open.
std::string probe_source(const std::string& lab, const std::string& probe_name, const std::string& probe_text,
                         const std::string& probe_main_text) {
  std::string s = "#include \"grader/probe.hpp\"\n#include \"" + inside(kStudentInside) + "\"\n#ifndef __CUDA_ARCH__\n";
  for (const std::string& n : names_of(probe_main_text + "\n" + probe_text)) s += "#undef " + n + "\n";
  s += "#include \"" + generated_header(lab, "probe") + "\"\n#line 1 \"" + probe_name + "\"\n" + probe_text + "\n#endif\n";
  return s;
}

std::string stamp_of(const std::string& source_text, const std::string& probe_text, const std::vector<StepInput>& headers) {
  std::string all = source_text;
  for (const StepInput& h : headers) all += h.path + "\n" + h.content;
  all += probe_text;
  all += BANKLAB_NVCC;
  all += BANKLAB_CUDA_ARCHS;
  all += kBuildProtocol;
  all += mode_name(sandbox_info().mode);
  return sha256_hex(all);
}

// What the step's cgroup saw, for the instructor (probe.log): the most the whole step held at once.
std::string memory_line(const StepResult& r) {
  if (r.memory_limit <= 0) return "memory: " + sandbox_info().limits_line() + "\n";
  return "memory: peak " + std::to_string(r.memory_peak) + " bytes of the step's limit " + std::to_string(r.memory_limit) +
         " bytes (its cgroup: every process, memfd and tmpfs page of the step)" +
         (r.oom_killed ? "; a process of it was ended at the limit" : "") + "\n";
}

// ---- The build's steps over one work folder (WorkDir), each returning what build_lab() sequences ----

// How a build ends: built, refused before the work folder is touched, failed (the file's failure,
// said in build.log) or a fault (the grader's problem, said in build.log: not judged, never the
// student's failure).
enum class Kind { built, refused, failed, faulted };
struct Ending {
  Kind kind;
  std::string message;
};
Ending built(std::string msg) { return {Kind::built, std::move(msg)}; }
Ending refused(std::string msg) { return {Kind::refused, std::move(msg)}; }
Ending failed(std::string msg) { return {Kind::failed, std::move(msg)}; }
Ending faulted(std::string msg) { return {Kind::faulted, std::move(msg)}; }
std::string cannot_write(const WorkDir& work) {
  return "the judge cannot write its work folder " + work.dir + " (is the disk full?).";
}

BuildResult finish(const Ending& e, const WorkDir& work, std::chrono::steady_clock::time_point t0) {
  BuildResult r;
  r.ok = e.kind == Kind::built;
  r.fault = e.kind == Kind::faulted;
  r.message = e.message;
  if (e.kind == Kind::failed || e.kind == Kind::faulted) write_file(work.build_log(), e.message);
  if (r.fault) r.message += " Not judged: this is not your file's fault; report it to your instructor.";
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// A step's result with the build's end set: the build stops there.
template <class R>
R stopped(R r, Ending e) {
  r.end = std::move(e);
  return r;
}

// What a build is built from, read before anything of the work folder is removed: the student's
// text, the judge's snapshot of the headers, the lab's probe and the stamp of them all.
struct Snapshot {
  std::string text;
  std::vector<StepInput> headers;
  const grader::LabFolders* folders = nullptr;
  std::string probe_name, probe_text, stamp;
  std::optional<Ending> end;
};

Snapshot snapshot(const std::string& lab, const std::string& source, const WorkDir& work) {
  Snapshot s;
  std::ifstream in(source, std::ios::binary);
  if (!in) return stopped(s, refused("cannot read " + source));
  std::stringstream ss;
  ss << in.rdbuf();
  s.text = ss.str();

  make_dirs(work.dir);
  s.headers = header_snapshot(lab);
  if (s.headers.back().content.empty())
    return stopped(s, refused("the judge has no lab " + lab + " (no " + BANKLAB_GENERATED_DIR + "/" +
                              generated_header(lab, "description") + ", generated from labs/" + lab +
                              "_<name>/judge/lab.toml): rebuild the project (cmake --build)"));
  if (snapshot_content(s.headers, kProbeRuntimeInside).empty())
    return stopped(s, refused(std::string("the judge has no probe runtime (") + BANKLAB_PROBE_RUNTIME +
                              "): rebuild the project (cmake --build)"));
  // The lab's probe (labs/<folder>/judge/probe.cu), its folder as the lab's generated code
  // registered it (grader/lab_folders.hpp).
  s.folders = grader::lab_folders(lab);
  if (!s.folders)
    return stopped(s, refused("the judge has no lab " + lab + " (this banklab-judge was built without it): rebuild "
                              "the project (cmake --build)"));
  s.probe_name = s.folders->judge_dir + "/probe.cu";
  const std::string probe_src = src_dir() + "/" + s.probe_name;
  if (access(probe_src.c_str(), R_OK) != 0) return stopped(s, refused("there is no lab " + lab + " (no " + probe_src + ")"));
  s.probe_text = read_file(probe_src, 1 << 20);
  s.stamp = stamp_of(s.text, s.probe_text, s.headers);
  return s;
}

// True when the work folder holds the build of this very snapshot: nothing changed since.
bool still_built(const Snapshot& s, const std::string& lab, const WorkDir& work) {
  if (read_file(work.stamp(), 256) != s.stamp || access(work.answers().c_str(), R_OK) != 0 || !read_hashed(work.fatbin()))
    return false;
  grader::Answers check;
  return !check.load(work.answers(), lab);
}

// The work folder made ready: the last build's outputs removed, the text to compile written
// (source.cu, read beside the answers: predictions as written, answers.cpp), a file with no code
// refused.
std::optional<Ending> start_work(const Snapshot& s, const std::string& lab, const std::string& source, const WorkDir& work) {
  work.clear();
  if (!write_file(work.source_txt(), source) || !write_file(work.source_cu(), s.text)) return faulted(cannot_write(work));
  if (has_no_code(s.text)) return failed(no_code_message(lab, s.folders->folder));
  return std::nullopt;
}

// The three steps of a build, as commands and limits: the device code's compile, the probe's
// compile and the probe's run (its input, the probe, once compiled).
struct BuildSteps {
  Step fatbin, probe, run;
};

BuildSteps plan_steps(const std::string& lab, const Snapshot& s, bool unsandboxed) {
  BuildSteps b;
  std::vector<StepInput> inputs = s.headers;
  inputs.push_back({kStudentInside, s.text});
  // 1. The device code's compile (from the student's file as it is).
  const std::vector<std::string> arch = archs();
  b.fatbin.argv = fatbin_compile_command(arch);
  b.fatbin.inputs = inputs;
  b.fatbin.limits.timeout_s = kCompileTimeoutS;
  b.fatbin.max_stdout = 64 << 20;
  // 2. The probe: the student's file, then the probe's own code, host side only, linked with the
  // probe's runtime.
  const std::string& probe_main_text = snapshot_content(s.headers, "/inc/" + generated_header(lab, "probe"));
  b.probe.argv = probe_compile_command(arch.front());
  b.probe.inputs = inputs;
  b.probe.inputs.push_back({"/in/probe_main.cu", probe_source(lab, s.probe_name, s.probe_text, probe_main_text)});
  b.probe.limits.timeout_s = kCompileTimeoutS;
  b.probe.max_stdout = 256 << 20;
  // 3. The probe's run: its command and limits (its input, the probe, after step 2).
  b.run.argv = {"/in/probe", "fd:3"};
  if (unsandboxed) b.run.argv.front() = inside("/in/probe");
  b.run.answers_fd = true;
  b.run.limits.timeout_s = kProbeTimeoutS;
  b.run.limits.cpu_s = 30;
  b.run.limits.address_space = 1LL << 30;
  b.run.limits.processes = 64;
  b.run.limits.file_size = 64LL << 20;
  b.run.limits.tmp_size = 64LL << 20;
  return b;
}

// 0. Before the student's file is touched, once per judge process: the control of the three
// steps (the judge's known-good file through them; a fresh pass of an earlier judge process
// reused: whose_fault.hpp). Its failure is the machine's: nothing of the student's runs.
std::optional<Ending> control(const BuildSteps& steps, const WorkDir& work) {
  const BuildControl control = control_before_build(steps.probe, steps.fatbin, steps.run);
  write_file(work.control_log(), control.note + "\n");
  if (!control.fault.empty()) return faulted(control.fault);
  return std::nullopt;
}

// A failed compile is the file's, unless the judge's own checks failed or the same compile of
// the judge's known-good file fails the same way now (whose_fault.hpp): what the compiler
// printed (the student's #line can make it read like bubblewrap's error) decides nothing.
Ending compile_error(const Snapshot& s, const std::string& source, const StepResult& res, const Step& step,
                     ControlStep which, const Step& probe_step, const char* what) {
  if (res.process.timed_out)
    return failed("compiling your file took longer than " + std::to_string(static_cast<int>(kCompileTimeoutS)) +
                  " s and was stopped: look for templates or constexpr evaluation that never end.");
  if (!res.sandbox_error.empty()) return faulted("the judge's sandbox could not run the compiler: " + res.sandbox_error + ".");
  std::string checked;
  if (may_be_the_machines(res)) {
    const ControlResult c = run_control(which, step, probe_step);
    if (same_failure(res, c))
      return faulted("the judge's sandbox could not run the compiler (" + c.failure + "): the same compile of the "
                     "judge's own known-good file failed the same way just now (" + c.said + ").");
    checked = control_says_yours(c, "compiled its own known-good file", "compiled") + "\n";
  }
  std::string msg = "your file does not compile (" + std::string(what) + ", nvcc: " + res.process.describe() + ").\n";
  const bool limit = res.process.signal != 0;  // a compiler that dies of a signal ran into a limit (memory: abort)
  if (limit)
    msg += "The compiler was stopped by a resource limit of the judge (memory, CPU time or processes): look for "
           "templates, unrolled loops or constexpr evaluation that grow without end.\n";
  const std::string said = own_diagnostics(res.err, inside(kStudentInside), source, s.probe_name, !limit);
  if (said.find("File size limit exceeded") != std::string::npos || said.find("File too large") != std::string::npos)
    msg += "A file the compile wrote reached the step's file-size limit (" + std::to_string(step.limits.file_size >> 20) +
           " MiB): look for a large array with an initialiser in your file (a global or static array counts in full), "
           "and make it smaller or fill it at run time.\n";
  if (has_line_directive(s.text))
    msg += "Your file has #line directives: they make the compiler's messages name other files, so the judge cannot "
           "tell which messages are about your file. Remove them to see your errors.\n";
  return failed(msg + checked + clean_text(said));  // stdout is data
}

// What the compiles handed back after they ended: the probe and the device code.
struct Compiled {
  std::string probe_exe, device_code;
  std::optional<Ending> end;
};

// 1 and 2. The probe's compile and the device code's, side by side, each in its own sandbox.
// Unsandboxed (a student's own machine), the steps share one scratch folder: one after the other.
Compiled compile(const Snapshot& s, const std::string& source, const BuildSteps& steps, bool unsandboxed,
                 const WorkDir& work) {
  Compiled c;
  std::future<StepResult> fatbin_result = std::async(unsandboxed ? std::launch::deferred : std::launch::async,
                                                     [fatbin = steps.fatbin] { return run_steps({fatbin}).front(); });
  const std::vector<StepResult> p2 = {run_steps({steps.probe}).front(), fatbin_result.get()};
  write_file(work.probe_build_log(), p2[0].err);
  write_file(work.fatbin_build_log(), p2[1].err);
  if (!p2[0].process.ok())
    return stopped(c, compile_error(s, source, p2[0], steps.probe, ControlStep::probe_compile, steps.probe, "its probe"));
  if (!p2[1].process.ok())
    return stopped(c, compile_error(s, source, p2[1], steps.fatbin, ControlStep::device_compile, steps.probe,
                                    "its device code"));
  if (p2[0].out_cut || p2[1].out_cut || p2[0].out.empty() || p2[1].out.empty())
    return stopped(c, failed("your file's compiled probe or device code is empty or too large: not judged."));
  c.probe_exe = p2[0].out;
  c.device_code = p2[1].out;
  write_file(work.probe(), c.probe_exe);  // kept for the instructor; the run gets it by descriptor
  return c;
}

// The probe's run as it ended, and what a control said of it (for the messages that follow).
struct Probed {
  StepResult result;
  std::string checked;
  std::optional<Ending> end;
};

// 3. The probe: the student's host code runs here, in its own sandbox, and nowhere else. Its
// answers come back over descriptor 3 (a pipe with a size limit); what it prints is kept for
// the instructor in probe.log, never shown back.
Probed run_probe(const BuildSteps& steps, const std::string& probe_exe, bool unsandboxed, const WorkDir& work) {
  Probed p;
  Step run = steps.run;
  run.inputs = {{"/in/probe", probe_exe, true}};
  const std::string judge_path = self_path();
  const std::string judge_hash = unsandboxed ? sha256_hex(read_file(judge_path, 256u << 20)) : "";
  // A limit the file itself runs into is judged before the step, as the file's: bubblewrap
  // writes the probe into the sandbox under the step's own file-size limit (RLIMIT_FSIZE).
  if (static_cast<long long>(probe_exe.size()) > run.limits.file_size)
    return stopped(p, failed("your file's compiled probe is " + std::to_string(probe_exe.size() >> 20) + " MiB (" +
                             std::to_string(probe_exe.size()) + " bytes), more than the " +
                             std::to_string(run.limits.file_size >> 20) +
                             " MiB a probe may be (the file-size limit of its step): look for a large array with an "
                             "initialiser in your host code (a global or static array counts in full in the program), "
                             "and make it smaller or fill it at run time."));
  const StepResult& p3 = p.result = run_steps({run}).front();
  write_file(work.probe_log(), "== stdout ==\n" + p3.out + (p3.out_cut ? "\n[cut]\n" : "") + "== stderr ==\n" + p3.err +
                                   (p3.err_cut ? "\n[cut]\n" : "") + "== step ==\n" + memory_line(p3));
  if (!p3.sandbox_error.empty())
    return stopped(p, faulted("the judge's sandbox could not run your file's probe: " + p3.sandbox_error + "."));
  // A probe that ended the way the sandbox's own failure does is judged by a control: the judge's
  // own known-good file's probe, built and run the same way now (whose_fault.hpp). What the
  // student's probe printed decides nothing.
  if (!p3.process.ok() && may_be_the_machines(p3)) {
    const ControlResult c = run_control(ControlStep::probe_run, run, steps.probe);
    if (same_failure(p3, c))
      return stopped(p, faulted("the judge's sandbox could not run your file's probe (" + c.failure + "): the judge's "
                                "own known-good file's probe failed the same way just now (" + c.said + ")."));
    p.checked = " " + control_says_yours(c, "ran its own known-good file's probe", "ran");
  }
  if (unsandboxed && sha256_hex(read_file(judge_path, 256u << 20)) != judge_hash)
    return stopped(p, failed("your file's probe changed banklab-judge itself while it ran: not judged. Rebuild the "
                             "project (cmake --build) before grading again."));
  return p;
}

// The probe's answers, judged readable and written as the work folder's answers.txt; a failure
// leaves none.
std::optional<Ending> take_answers(const std::string& lab, const Probed& p, const WorkDir& work) {
  const StepResult& p3 = p.result;
  if (p3.process.timed_out)  // first: what a stopped probe left of its answers is not the cause
    return failed("your code did not finish within " + std::to_string(static_cast<int>(kProbeTimeoutS)) +
                  " s and was stopped (the judge's probe of your file, no GPU): look for a loop that never ends or a "
                  "wait that never returns in code that runs when your program starts (the initialiser of a global "
                  "variable, a static object's constructor) or in a host function the judge calls (your launchers, "
                  "your access functions).");
  if (p3.answers_cut) return failed("your file's probe wrote more than 16 MiB of answers: not judged.");
  const std::string answers = work.answers();
  if (!write_file(answers, p3.answers)) return faulted(cannot_write(work));
  grader::Answers check;
  if (auto err = check.load(answers, lab)) {
    unlink(answers.c_str());
    return failed("your file's answers could not be read: " + clean_text(*err, 400, false) + " (probe: " +
                  p3.process.describe() + "). What your file's code printed is not shown; run it yourself to see it." +
                  p.checked);
  }
  if (!p3.process.ok()) {
    unlink(answers.c_str());
    return failed("your file's probe wrote its answers but then ended badly (" + p3.process.describe() +
                  "): something in your file runs at exit. Remove it." + p.checked);
  }
  return std::nullopt;
}

// The device code kept, written by the judge from what the sandbox handed back after it ended,
// with its hash and the stamp of what it was built from.
Ending keep(const Snapshot& s, const Compiled& c, const WorkDir& work) {
  if (!write_file(work.fatbin(), c.device_code) || !write_file(work.fatbin_hash(), sha256_hex(c.device_code)) ||
      !write_file(work.stamp(), s.stamp))
    return faulted(cannot_write(work));
  const SandboxInfo& sb = sandbox_info();
  if (!sb.available) return built("warning: built without a sandbox (" + sb.why_not + ")");
  // A judge with no cgroup says so: the step's processes together may hold more than one may.
  return built(sb.cgroup.empty() ? "built in bubblewrap; " + sb.limits_line() : "");
}

}  // namespace

// The device code at `path` when its bytes match the hash the build recorded beside it
// (path.sha256), else nothing: what the GPU tier loads, and what a rebuild may keep.
std::optional<std::string> read_hashed(const std::string& path) {
  std::string image = read_file(path, 64u << 20);
  if (image.empty() || read_file(path + ".sha256", 128) != sha256_hex(image)) return std::nullopt;
  return image;
}

// The judge's own outputs in its work folder, removed before a build (a failed build leaves no
// answers and no device code). Names of an older judge (src/, run/) go too, without following any
// link in them.
void WorkDir::clear() const {
  for (const char* f : {"answers.txt", "kernel.fatbin", "kernel.fatbin.sha256", "stamp", "probe", "build.log",
                        "probe.log", "probe_build.log", "fatbin_build.log", "control.log", "preprocess.log", "macros.log",
                        "baseline.log", "macros.txt", "baseline.txt", "source.txt", "source.cu", "src", "run", "probe_main.cu"})
    remove_tree_nofollow(file(f));
}

// The build: its steps in their order over the work folder, the first that ends it ending it.
BuildResult build_lab(const std::string& lab, const std::string& source, const std::string& dir) {
  const auto t0 = std::chrono::steady_clock::now();
  const WorkDir work{dir};
  auto end = [&](const Ending& e) { return finish(e, work, t0); };
  const Snapshot s = snapshot(lab, source, work);
  if (s.end) return end(*s.end);
  if (still_built(s, lab, work)) return end(built(""));  // nothing changed since the last build
  if (auto e = start_work(s, lab, source, work)) return end(*e);
  const bool unsandboxed = !sandbox_info().available;
  const BuildSteps steps = plan_steps(lab, s, unsandboxed);
  if (auto e = control(steps, work)) return end(*e);
  const Compiled c = compile(s, source, steps, unsandboxed, work);
  if (c.end) return end(*c.end);
  const Probed p = run_probe(steps, c.probe_exe, unsandboxed, work);
  if (p.end) return end(*p.end);
  if (auto e = take_answers(lab, p, work)) return end(*e);
  return end(keep(s, c, work));
}

}  // namespace judge
