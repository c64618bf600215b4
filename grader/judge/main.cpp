// banklab-judge: builds a student's kernel.cu apart from the grader, reads its answers as data,
// and judges one lab test per process. See docs/dev/GRADER.md.
//
//   banklab-judge build --lab 05 --source labs/05_swizzle/kernel.cu --work DIR
//   banklab-judge test  --lab 05 --work DIR --test Lab05Layout.TileIndexIsInBoundsAndOneToOne
//                       [--graded] [--results DIR]
//   banklab-judge grade --lab 05 --source FILE --work DIR --json OUT [--graded] [--tier cpu|gpu|all]
//   banklab-judge list  [--lab 05]
//   banklab-judge sandbox              says whether the student's file can be sandboxed here, and why not
//
// --fresh-container (build, grade): accepted for old callers; it loosens nothing (a container of
// the submission's own also writes its grade: the student's code is confined in it as anywhere).
//
// Exit status of build and test: 0 passed, 1 failed, 77 skipped (the CTest skip code), 1 for a
// fault (graded mode: a test that must run could not run here, e.g. no usable GPU: not judged, the
// grading machine's problem, a red test on purpose); it is derived from the verdict record this
// process wrote, never from anything the student's code did.
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "banklab/cuda_check.cuh"
#include "build.hpp"
#include "grader/answers.hpp"
#include "grader/check.hpp"
#include "grader/context.hpp"
#include "grader/gpu/gpu_lock.hpp"
#include "grader/gpu/trace.cuh"
#include "process.hpp"
#include "sandbox.hpp"
#include "sha256.hpp"
#include "verdict.hpp"

namespace grader {
Context& context() {
  static Context c;
  return c;
}
}  // namespace grader

namespace judge {
namespace {

struct Args {
  std::string command, lab, source, work, test, results, json, tier = "all";
  bool graded = false;
  bool fresh_container = false;
};

int usage(const char* why) {
  std::fprintf(stderr,
               "banklab-judge: %s\n"
               "usage: banklab-judge build --lab NN --source FILE --work DIR\n"
               "       banklab-judge test  --lab NN --work DIR --test Suite.Name [--graded] [--results DIR]\n"
               "       banklab-judge grade --lab NN --source FILE --work DIR --json OUT [--graded] [--tier cpu|gpu|all]\n"
               "       banklab-judge list  [--lab NN]\n"
               "       banklab-judge sandbox\n"
               "build and grade also take --fresh-container, which changes nothing (accepted for old callers)\n",
               why);
  return 2;
}

bool parse(int argc, char** argv, Args& a) {
  if (argc < 2) return false;
  a.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string k = argv[i];
    auto next = [&](std::string& v) {
      if (i + 1 >= argc) return false;
      v = argv[++i];
      return true;
    };
    if (k == "--graded") a.graded = true;
    else if (k == "--fresh-container") a.fresh_container = true;
    else if (k == "--lab") { if (!next(a.lab)) return false; }
    else if (k == "--source") { if (!next(a.source)) return false; }
    else if (k == "--work") { if (!next(a.work)) return false; }
    else if (k == "--test") { if (!next(a.test)) return false; }
    else if (k == "--results") { if (!next(a.results)) return false; }
    else if (k == "--json") { if (!next(a.json)) return false; }
    else if (k == "--tier") { if (!next(a.tier)) return false; }
    else return false;
  }
  if (a.lab.size() == 1) a.lab = "0" + a.lab;
  return true;
}

std::string tier_of(const std::string& suite) {
  return suite.size() > 5 && suite.compare(suite.size() - 5, 5, "OnGpu") == 0 ? "gpu" : "cpu";
}

// Every test the judge knows, as "Suite.Name", for one lab ("" = all).
std::vector<std::string> registered_tests(const std::string& lab) {
  std::vector<std::string> out;
  auto* u = ::testing::UnitTest::GetInstance();
  for (int i = 0; i < u->total_test_suite_count(); ++i) {
    const ::testing::TestSuite* s = u->GetTestSuite(i);
    const std::string suite = s->name();
    if (!lab.empty() && suite.compare(0, 5, "Lab" + lab) != 0) continue;
    for (int j = 0; j < s->total_test_count(); ++j) out.push_back(suite + "." + s->GetTestInfo(j)->name());
  }
  return out;
}

// Records one test's outcome from GoogleTest's events: the judge's checks, not any output.
class Recorder : public ::testing::EmptyTestEventListener {
 public:
  Verdict verdict;
  bool ran = false;
  void OnTestStart(const ::testing::TestInfo&) override { grader::checks() = 0; }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.skipped()) {
      skip_message_ += r.message();
      return;
    }
    if (r.failed()) {
      if (!verdict.message.empty()) verdict.message += "\n";
      verdict.message += r.message();
    }
  }
  void OnTestEnd(const ::testing::TestInfo& t) override {
    ran = true;
    const ::testing::TestResult* r = t.result();
    verdict.checks = grader::checks();
    verdict.seconds = static_cast<double>(r->elapsed_time()) / 1000.0;
    if (r->Failed()) verdict.status = "failed";
    else if (r->Skipped()) {
      verdict.status = "skipped";
      verdict.message = skip_message_;
    } else if (verdict.checks <= 0) {
      verdict.status = "failed";
      verdict.message = "the judge made no check in this test: a verdict needs evidence (report this to your instructor)";
    } else {
      verdict.status = "passed";
    }
  }

 private:
  std::string skip_message_;
};

// A test that must run in graded mode but could not run here (no usable GPU, a tracer that cannot
// start, a GPU without TMA): not judged, and not the student's doing. Where the GPU tier found no
// usable GPU, CUDA's own words are replaced by plain ones (no_gpu_reason: "no GPU on this machine").
std::string fault_message(const Verdict& v, const std::string& skip_reason) {
  std::string why = skip_reason;
  if (v.tier == "gpu") {
    const char* no_gpu = banklab::no_gpu_reason();
    if (no_gpu[0] != '\0') why = no_gpu;
  }
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ' || why.back() == '.')) why.pop_back();
  return "not graded: " + why + ". Graded mode needs this test judged, and this machine cannot run it: "
         "the grading machine's problem, not the student's; grade it again where it can run.";
}

// A GPU test's fault is the machine's only when this process sees no usable GPU either: `grade`
// never loads the student's code, while the test's own process does, and a student's code that
// hides the GPU from it (clearing CUDA_VISIBLE_DEVICES at start-up) must not turn a failure into
// "not graded". Where this process sees a usable GPU, the test failed, as before faults existed.
void confirm_fault(Verdict& v) {
  if (v.status != "fault" || v.tier != "gpu") return;
  if (banklab::no_gpu_reason()[0] != '\0') {
    v.message = fault_message(v, v.message);  // in this process's words, not the test process's
    return;
  }
  v.status = "failed";
  v.message = "graded mode: this test must run, and this machine has a usable GPU (the judge sees it outside "
              "your program), yet the test could not use it: a program must not hide the GPU from its own tests "
              "(e.g. by changing CUDA_VISIBLE_DEVICES). The test said: " + v.message;
}

int exit_code_of(const Verdict& v) {
  if (v.status == "passed") return 0;
  if (v.status == "skipped") return 77;
  return 1;
}

// print_message: the verdict did not come from a GoogleTest run (which printed the failure).
int finish(const Verdict& v, const std::string& results, bool print_message = false) {
  if (!results.empty()) {
    const std::string dir = results + "/lab" + v.lab;
    make_dirs(dir);
    write_file(dir + "/" + v.test + ".json", to_json(v) + "\n");
  }
  if (print_message && !v.message.empty()) std::printf("%s\n", v.message.c_str());
  std::printf("%s\n", summary_line(v).c_str());
  std::fflush(stdout);
  return exit_code_of(v);
}

int cmd_test(const Args& a, int argc0, char** argv0) {
  Verdict v;
  v.lab = a.lab;
  v.test = a.test;
  const std::size_t dot = a.test.find('.');
  v.tier = tier_of(dot == std::string::npos ? a.test : a.test.substr(0, dot));
  grader::Context& ctx = grader::context();
  ctx.lab = a.lab;
  ctx.work = a.work;
  ctx.graded = a.graded;
  ctx.source = read_file(a.work + "/source.txt", 4096);

  const std::vector<std::string> known = registered_tests(a.lab);
  if (std::find(known.begin(), known.end(), a.test) == known.end()) {
    v.status = "failed";
    v.message = "lab " + a.lab + " has no test " + a.test;
    return finish(v, a.results, true);
  }
  if (auto err = grader::answers().load(a.work + "/answers.txt", a.lab)) {
    v.status = "failed";
    v.message = "not judged: " + *err + ".";
    // A failed build is reported once, by LabNN.Build; the other tests only point there.
    if (access((a.work + "/build.log").c_str(), F_OK) == 0)
      v.message = "not judged: the lab did not build (see lab" + a.lab + ".build)";
    return finish(v, a.results, true);
  }

  if (a.test.find("Traced") != std::string::npos) grader::gpu::start_trace_session();  // before any CUDA call
  // One GPU, one timing at a time: the lock is held until the verdict is written, by the tests
  // grader/gpu/gpu_lock.hpp names (gpu_test_holds_the_lock), exclusively or shared.
  std::optional<grader::gpu::GpuLock> gpu_lock;
  if (v.tier == "gpu" && grader::gpu::gpu_test_holds_the_lock(a.test)) {
    gpu_lock.emplace(grader::gpu::gpu_test_needs_the_gpu_alone(a.test));
    if (gpu_lock->waited_s >= 1.0 || (!gpu_lock->held() && gpu_lock->note.rfind("no GPU", 0) != 0))
      std::printf("[ GPU LOCK ] %s (waited %.1f s)\n", gpu_lock->note.c_str(), gpu_lock->waited_s);
  }
  std::string filter = "--gtest_filter=" + a.test;
  std::vector<char*> gargv = {argv0[0], filter.data(), const_cast<char*>("--gtest_color=no")};
  int gargc = static_cast<int>(gargv.size());
  (void)argc0;
  ::testing::InitGoogleTest(&gargc, gargv.data());
  auto* recorder = new Recorder;
  recorder->verdict = v;
  ::testing::UnitTest::GetInstance()->listeners().Append(recorder);
  const int gtest_status = RUN_ALL_TESTS();  // the verdict comes from the recorder, not from this
  (void)gtest_status;
  Verdict out = recorder->verdict;
  if (!recorder->ran) {
    out.status = "failed";
    out.message = "the test did not run";
  }
  const bool not_from_gtest = (out.status == "skipped" && a.graded) || !recorder->ran || out.checks <= 0;
  if (out.status == "skipped" && a.graded) {
    out.status = "fault";
    out.message = fault_message(out, out.message);
  }
  return finish(out, a.results, not_from_gtest);
}

// The judge decides confinement itself (sandbox.hpp): bubblewrap (as root without a user
// namespace, else with one), else it refuses to build, in every mode. The one exception is a student's own machine:
// not root, not graded, and BANKLAB_ALLOW_UNCONFINED=1 in the environment (callers that grade
// others remove it). --fresh-container changes nothing.
std::optional<std::string> sandbox_refusal(const Args& a) {
  set_fresh_container(a.fresh_container);
  const SandboxInfo& sb = sandbox_info();
  if (sb.mode != Mode::none) return std::nullopt;
  const char* allow = std::getenv("BANKLAB_ALLOW_UNCONFINED");
  const bool allowed = allow && std::string(allow) == "1" && geteuid() != 0 && !a.graded;
  std::fprintf(stderr, "banklab-judge: no sandbox here: %s\n", sb.why_not.c_str());
  if (allowed) {
    std::fprintf(stderr, "banklab-judge: BANKLAB_ALLOW_UNCONFINED=1: the student's file is compiled and its probe run "
                         "with your rights, unconfined (your own machine only; graded mode and root refuse this)\n");
    return std::nullopt;
  }
  return "the judge cannot confine the student's file here and refuses to build it: " + sb.describe().substr(12) +
         ". On your own machine, for your own file only: BANKLAB_ALLOW_UNCONFINED=1 before the command (not as root, "
         "not --graded).";
}

BuildResult guarded_build(const Args& a) {
  if (auto why = sandbox_refusal(a)) {
    BuildResult b;
    b.fault = true;  // nothing was judged: the machine cannot confine, not the student's failure
    b.message = *why;
    make_dirs(a.work);
    write_file(a.work + "/build.log", *why);
    unlink((a.work + "/answers.txt").c_str());
    return b;
  }
  return build_lab(a.lab, a.source, a.work);
}

int cmd_build(const Args& a) {
  Verdict v;
  v.lab = a.lab;
  v.test = "Lab" + a.lab + ".Build";
  v.tier = "cpu";
  const BuildResult b = guarded_build(a);
  v.checks = 1;
  v.seconds = b.seconds;
  v.status = b.ok ? "passed" : b.fault ? "fault" : "failed";
  v.message = b.message;
  if (!b.ok) std::printf("%s\n", b.message.c_str());
  else if (!b.message.empty()) std::printf("%s\n", b.message.c_str());
  return finish(v, a.results);
}

int cmd_grade(const Args& a) {
  const std::string results = a.work + "/results";
  make_dirs(a.work);
  std::vector<Verdict> all;
  Verdict b;
  b.lab = a.lab;
  b.test = "Lab" + a.lab + ".Build";
  b.tier = "cpu";
  const BuildResult br = guarded_build(a);
  b.status = br.ok ? "passed" : br.fault ? "fault" : "failed";
  b.checks = 1;
  b.seconds = br.seconds;
  b.message = br.message;
  all.push_back(b);
  const std::string me = self_path();
  for (const std::string& t : registered_tests(a.lab)) {
    const std::string tier = tier_of(t.substr(0, t.find('.')));
    if (a.tier != "all" && tier != a.tier) continue;
    const std::string file = results + "/lab" + a.lab + "/" + t + ".json";
    std::remove(file.c_str());
    std::vector<std::string> cmd = {me, "test", "--lab", a.lab, "--work", a.work, "--test", t, "--results", results};
    if (a.graded) cmd.push_back("--graded");
    ProcessOptions opt;
    make_dirs(a.work + "/logs");
    opt.output_file = a.work + "/logs/" + t + ".log";
    opt.timeout_s = tier == "gpu" ? 180 : 60;
    const ProcessResult r = run_process(cmd, opt);
    Verdict v;
    if (!read_verdict(file, v) || v.test != t) {
      v = Verdict{};
      v.lab = a.lab;
      v.test = t;
      v.tier = tier;
      v.status = "failed";
      v.message = "the judge wrote no verdict for this test (" + r.describe() + "): " + read_file(opt.output_file, 2000);
    }
    confirm_fault(v);
    std::printf("%s\n", summary_line(v).c_str());
    std::fflush(stdout);
    all.push_back(v);
  }
  const std::string src = read_file(a.source, 8u << 20);
  const std::string json = grade_json(a.lab, a.source, sha256_hex(src), all);
  if (!a.json.empty() && !write_file(a.json, json)) {
    std::fprintf(stderr, "banklab-judge: cannot write %s\n", a.json.c_str());
    return 2;
  }
  int passed = 0, faults = 0;
  for (const Verdict& v : all) {
    passed += v.status == "passed";
    faults += v.status == "fault";
  }
  std::printf("lab %s: %d of %zu passed\n", a.lab.c_str(), passed, all.size());
  if (faults)
    std::printf("lab %s: NOT GRADED: %d test(s) could not run on this machine (a fault, not the student's)\n",
                a.lab.c_str(), faults);
  return 0;
}

int cmd_sandbox() {
  const SandboxInfo& sb = sandbox_info();
  std::printf("%s\n", sb.describe().c_str());
  return sb.mode == Mode::none ? 1 : 0;
}

int cmd_list(const Args& a) {
  for (const std::string& t : registered_tests(a.lab)) {
    const std::string suite = t.substr(0, t.find('.'));
    std::printf("%s %s %s\n", suite.substr(3, 2).c_str(), t.c_str(), tier_of(suite).c_str());
  }
  return 0;
}

}  // namespace
}  // namespace judge

int main(int argc, char** argv) {
  // Every step that runs the student's code ends with its sandbox (its PID namespace); what a
  // step outside a sandbox leaves behind is at least re-parented to the judge, not to init.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  judge::Args a;
  if (!judge::parse(argc, argv, a)) return judge::usage("bad arguments");
  if (a.command == "list") return judge::cmd_list(a);
  if (a.command == "sandbox") return judge::cmd_sandbox();
  if (a.lab.empty() || a.lab.size() != 2) return judge::usage("--lab NN is required");
  if (a.command == "build") {
    if (a.source.empty() || a.work.empty()) return judge::usage("build needs --source and --work");
    return judge::cmd_build(a);
  }
  if (a.command == "test") {
    if (a.work.empty() || a.test.empty()) return judge::usage("test needs --work and --test");
    return judge::cmd_test(a, argc, argv);
  }
  if (a.command == "grade") {
    if (a.source.empty() || a.work.empty()) return judge::usage("grade needs --source and --work");
    return judge::cmd_grade(a);
  }
  return judge::usage("unknown command");
}
