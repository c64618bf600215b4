// banklab-judge: builds a student's kernel.cu apart from the grader, reads its answers as data,
// and judges the lab's tests. See docs/dev/GRADER.md.
//
//   banklab-judge build --lab 05 --source labs/05_swizzle/kernel.cu --work DIR [--graded] [--require-step-limits]
//   banklab-judge test  --lab 05 --work DIR --test Lab05Layout.TileIndexIsInBoundsAndOneToOne
//                       [--test ... | --tests A,B,...] [--graded] [--results DIR] [--logs DIR]
//   banklab-judge grade --lab 05 --source FILE --work DIR --json OUT [--graded] [--require-step-limits]
//                       [--tier cpu|gpu|all] [--one-per-process]
//   banklab-judge list  [--lab 05]
//   banklab-judge sandbox              says whether the student's file can be sandboxed here, and why not
//
// --fresh-container (build, grade): accepted for old callers; it loosens nothing (a container of
// the submission's own also writes its grade: the student's code is confined in it as anywhere).
// --require-step-limits (build, grade; --graded implies it): grading that counts. Where no cgroup
// per step can be made here, the build is a fault and no step of the file runs (sandbox_refusal).
//
// Exit status of build and test: 0 passed, 1 failed, 77 skipped (the CTest skip code), 1 for a
// fault (graded mode: a test that must run could not run here, e.g. no usable GPU: not judged, the
// grading machine's problem, a red test on purpose); it is derived from the verdict record this
// process wrote, never from anything the student's code did. A test of several tests: run_in_process.hpp.
//
// grade runs the lab's tests in as few processes as isolation allows (process_groups.hpp): the CPU
// tests in one, the untraced GPU tests in one, the traced ones in one; --one-per-process (or
// BANKLAB_JUDGE_ONE_TEST_PER_PROCESS=1) runs each in its own, as before issue 33.
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
#include "clean_text.hpp"
#include "emulation.hpp"
#include "grader/answers.hpp"
#include "grader/check.hpp"
#include "grader/context.hpp"
#include "grader/variants.hpp"
#include "process.hpp"
#include "sandbox.hpp"
#include "sha256.hpp"
#include "process_groups.hpp"
#include "run_in_process.hpp"
#include "verdict.hpp"

namespace judge {
namespace {

struct Args {
  std::string command, lab, source, work, results, logs, json, tier = "all", variant;
  std::vector<std::string> tests;
  bool graded = false;
  bool fresh_container = false;
  bool one_per_process = false;
  bool require_step_limits = false;  ///< grading that counts: no cgroup per step, no build (--graded too)
};

int usage(const char* why) {
  std::fprintf(stderr,
               "banklab-judge: %s\n"
               "usage: banklab-judge build --lab NN --source FILE --work DIR [--graded] [--require-step-limits]\n"
               "       banklab-judge test  --lab NN --work DIR --test Suite.Name [--test ... | --tests A,B,...]\n"
               "                           [--graded] [--results DIR] [--logs DIR]\n"
               "       banklab-judge grade --lab NN --source FILE --work DIR --json OUT [--graded] [--require-step-limits]\n"
               "                           [--tier cpu|gpu|all] [--one-per-process] [--variant K]\n"
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
    else if (k == "--require-step-limits") a.require_step_limits = true;
    else if (k == "--lab") { if (!next(a.lab)) return false; }
    else if (k == "--source") { if (!next(a.source)) return false; }
    else if (k == "--work") { if (!next(a.work)) return false; }
    else if (k == "--one-per-process") a.one_per_process = true;
    else if (k == "--test" || k == "--tests") {
      std::string v;
      if (!next(v) || v.empty()) return false;
      for (std::size_t p = 0; p <= v.size();) {  // --tests: a comma-separated list
        const std::size_t c = k == "--tests" ? std::min(v.find(',', p), v.size()) : v.size();
        if (c > p) a.tests.push_back(v.substr(p, c - p));
        p = c + 1;
      }
    }
    else if (k == "--results") { if (!next(a.results)) return false; }
    else if (k == "--logs") { if (!next(a.logs)) return false; }
    else if (k == "--json") { if (!next(a.json)) return false; }
    else if (k == "--tier") { if (!next(a.tier)) return false; }
    else if (k == "--variant") { if (!next(a.variant)) return false; }
    else return false;
  }
  if (a.lab.size() == 1) a.lab = "0" + a.lab;
  if (a.graded) a.require_step_limits = true;  // graded mode is grading that counts
  return true;
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

std::optional<Verdict> choose_variant(const Args& a, const std::string& source, std::string& error);
std::string variant_note(const Args& a, const std::string& source);

int cmd_test(const Args& a, char** argv) {
  become_the_emulated_twin(a.tests, argv);  // returns where the tests run here (emulation.hpp)
  TestRun run;
  run.lab = a.lab;
  run.work = a.work;
  run.results = a.results;
  run.logs = a.logs;
  run.tests = a.tests;
  run.graded = a.graded;
  if (!a.variant.empty()) {
    setenv("BANKLAB_VARIANT", a.variant.c_str(), 1);  // the variant's questions (grader/variants.hpp)
  } else if (!std::getenv("BANKLAB_VARIANT")) {
    // One test as ctest runs it on a student's own machine: the variant the built file's
    // `// banklab variant:` line names, as grade without --variant (a variant's kernel may differ
    // from the lab's: lab 05's float4 tile). Every grader of a class names it (--variant).
    Args built = a;
    built.source = read_file(WorkDir{a.work}.source_txt(), 4096);
    std::string error;
    (void)choose_variant(built, read_file(built.source, 8u << 20), error);
  }
  if (!a.logs.empty()) make_dirs(a.logs);
  return run_tests(run, argv[0]);
}

// The judge decides confinement itself (sandbox.hpp): bubblewrap (as root without a user
// namespace, else with one), else it refuses to build, in every mode. The one exception is a student's own machine:
// not root, not graded, and BANKLAB_ALLOW_UNCONFINED=1 in the environment (callers that grade
// others remove it). --fresh-container changes nothing.
//
// Whole-step limits (issue 45): where no cgroup per step can be made (a normal user on cgroup v1,
// or on v2 without a delegated cgroup), nothing limits a step's processes together, and a probe's
// forked children held 4,111 MiB at once. Grading that counts (--require-step-limits, which every
// grader of others passes: banklab.grading.judging; --graded) then refuses before any step of the
// file runs: a fault, named, with its fix. A student's own build (ctest of their release, not
// graded) runs with per-process limits and says so (its Build record, probe.log).
std::optional<std::string> sandbox_refusal(const Args& a) {
  set_fresh_container(a.fresh_container);
  const SandboxInfo& sb = sandbox_info();
  if (sb.mode != Mode::none && a.require_step_limits && sb.cgroup.empty())
    return "the judge can make no cgroup per step here (" + sb.why_no_cgroup +
           "), so nothing would limit the memory and processes of your file's steps together (only each process's), "
           "and grading that counts refuses to run your file without that limit. Not graded: this is the grading "
           "machine's fault, not your file's. The fix, for whoever grades: run the grader as root, or as this user in "
           "a cgroup delegated to it (systemd-run --user --scope -p Delegate=yes COMMAND; a systemd service: "
           "Delegate=yes in its unit); banklab-judge sandbox says \"a cgroup per step\" once it can.";
  if (sb.mode != Mode::none) return std::nullopt;
  const char* allow = std::getenv("BANKLAB_ALLOW_UNCONFINED");
  const bool allowed = allow && std::string(allow) == "1" && geteuid() != 0 && !a.require_step_limits;
  std::fprintf(stderr, "banklab-judge: no sandbox here: %s\n", sb.why_not.c_str());
  if (allowed) {
    std::fprintf(stderr, "banklab-judge: BANKLAB_ALLOW_UNCONFINED=1: the student's file is compiled and its probe run "
                         "with your rights, unconfined (your own machine only; graded mode and root refuse this)\n");
    return std::nullopt;
  }
  return "the judge cannot confine the student's file here and refuses to build it: " + sb.describe().substr(12) +
         ". On your own machine, for your own file only: BANKLAB_ALLOW_UNCONFINED=1 before the command (not as root, "
         "not --graded, not --require-step-limits).";
}

BuildResult guarded_build(const Args& a) {
  if (auto why = sandbox_refusal(a)) {
    BuildResult b;
    b.fault = true;  // nothing was judged: the machine cannot confine, not the student's failure
    b.message = *why;
    make_dirs(a.work);
    write_file(WorkDir{a.work}.build_log(), *why);
    unlink(WorkDir{a.work}.answers().c_str());
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
  // What ctest's run summary says of the variant (grader/run_summary.py reads it beside the records).
  if (!a.results.empty()) {
    const std::string dir = a.results + "/lab" + a.lab, path = dir + "/variant.txt";
    const std::string note = variant_note(a, read_file(a.source, 8u << 20));
    make_dirs(dir);
    if (note.empty()) unlink(path.c_str());
    else if (write_file(path, note + "\n")) std::printf("%s\n", note.c_str());
  }
  v.checks = 1;
  v.seconds = b.seconds;
  v.status = b.ok ? "passed" : b.fault ? "fault" : "failed";
  v.message = b.message;
  if (!b.message.empty()) std::printf("%s\n", clean_text(b.message, 64 << 10).c_str());
  return finish_verdict(v, a.results);
}

// "variant 4 (col = 9, ...)", "variant 0 (the lab as written)"; a release's judge knows no variant's
// parameters (it registers no variant's questions): "variant 4".
std::string variant_words(const std::string& lab, int k) {
  const std::string params = k ? grader::variant_params(lab, k) : "the lab as written";
  return "variant " + std::to_string(k) + (params.empty() ? "" : " (" + params + ")");
}

// The variant that grades a file: `k`, the student's own where it is known (`students`: --variant K,
// the student's own from the course's seed, else, in a student's release (make-release --student or
// --variant), the release's), else the one the file's `// banklab variant:` line names (0, the lab as
// written, when none); -1 when the variant given is none of the lab's. `named`: the file's line's
// variant (-1: none, or none of the lab's).
struct GradedVariant {
  int k = -1, named = -1;
  bool students = false;
  std::string given;
};

GradedVariant graded_as(const Args& a, const std::string& source) {
  GradedVariant g;
  const int count = grader::variant_count(a.lab), line = grader::variant_named_in(source, a.lab);
  const int release = grader::release_variant(a.lab);
  g.named = line < count ? line : -1;  // a line naming no variant of the lab counts as none
  g.given = !a.variant.empty() ? a.variant : release >= 0 ? std::to_string(release) : "";
  g.students = !g.given.empty();
  g.k = std::max(g.named, 0);
  if (g.students) {
    char* end = nullptr;
    g.k = static_cast<int>(std::strtol(g.given.c_str(), &end, 10));
    if (*end || g.k < 0) g.k = -1;
  }
  if (g.k >= count) g.k = -1;
  return g;
}

// Per-student variants (docs/dev/VARIANTS.md): the file is graded as graded_as()'s k; the test
// processes get it as BANKLAB_VARIANT. When the student's is known, a file whose line names another
// variant gets a failed record LabNN.Variant saying so, and is graded as the student's own, never as
// the one it names (no record when it is the student's, or names none).
std::optional<Verdict> choose_variant(const Args& a, const std::string& source, std::string& error) {
  const GradedVariant g = graded_as(a, source);
  const int count = grader::variant_count(a.lab);
  if (g.k < 0) {
    error = "lab " + a.lab + (count > 1 ? " has variants 0 to " + std::to_string(count - 1) : " has no variants") +
            ", not " + g.given;
    return std::nullopt;
  }
  setenv("BANKLAB_VARIANT", std::to_string(g.k).c_str(), 1);
  Verdict v;
  v.lab = a.lab;
  v.test = "Lab" + a.lab + ".Variant";
  v.tier = "cpu";
  v.checks = 1;
  if (!g.students || g.named < 0 || g.named == g.k) {  // no record: the file's own variant, or the student's
    v.test.clear();
    return v;
  }
  v.status = "failed";
  v.message = "this file is lab " + a.lab + "'s " + variant_words(a.lab, g.named) +
              ", made for another student; yours is " + variant_words(a.lab, g.k) +
              ", and this file is graded against yours. Work from your own stub (your release's kernel.cu).";
  return v;
}

// The run summary's word on the variant (ctest: labNN.build writes it, grader/run_summary.py prints
// it), "" when there is nothing to say: the student's variant is not known here (the course's tree),
// or the file's line names it (or names none and it is variant 0).
std::string variant_note(const Args& a, const std::string& source) {
  const GradedVariant g = graded_as(a, source);
  if (!g.students || g.k < 0 || g.named == g.k || (g.named < 0 && g.k == 0)) return "";
  return "graded as " + variant_words(a.lab, g.k) + ", your own; this file " +
         (g.named < 0 ? std::string("carries no `// banklab variant:` line (the lab as written's file has none): if "
                                    "it is your own work, copy the line back from your stub")
                      : "was written for " + variant_words(a.lab, g.named) + ", another student's: work from your own stub");
}

int cmd_grade(const Args& a) {
  make_dirs(a.work);
  std::vector<Verdict> all;
  std::string variant_error;
  const std::optional<Verdict> variant = choose_variant(a, read_file(a.source, 8u << 20), variant_error);
  if (!variant) return usage(variant_error.c_str());
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
  std::vector<std::string> tests;
  for (const std::string& t : registered_tests(a.lab))
    if (a.tier == "all" || tier_of_test(t) == a.tier) tests.push_back(t);
  const GroupRunner runner = judge_runner(self_path(), a.lab, a.work, a.graded);
  std::map<std::string, Verdict> judged;
  for (const TestGroup& g : group_tests(tests, a.one_per_process || one_test_per_process_from_env()))
    for (Verdict& v : run_group(a.lab, g, runner)) {
      confirm_fault(v);
      std::printf("%s\n", summary_line(v).c_str());
      std::fflush(stdout);
      judged[v.test] = v;
    }
  for (const std::string& t : tests) all.push_back(judged.at(t));
  if (!variant->test.empty()) {
    std::printf("%s\n", summary_line(*variant).c_str());
    all.push_back(*variant);
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
    std::printf("%s %s %s\n", suite.substr(3, 2).c_str(), t.c_str(), tier_of_test(t).c_str());
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
  if (a.command == "list" || a.command == "test" || a.command == "grade")
    if (const std::string why = judge::test_table_mismatch(a.lab); !why.empty()) {
      std::fprintf(stderr, "banklab-judge: %s\n", why.c_str());
      return 2;
    }
  if (a.command == "list") return judge::cmd_list(a);
  if (a.command == "sandbox") return judge::cmd_sandbox();
  if (a.lab.empty() || a.lab.size() != 2) return judge::usage("--lab NN is required");
  if (a.command == "build") {
    if (a.source.empty() || a.work.empty()) return judge::usage("build needs --source and --work");
    return judge::cmd_build(a);
  }
  if (a.command == "test") {
    if (a.work.empty() || a.tests.empty()) return judge::usage("test needs --work and --test");
    return judge::cmd_test(a, argv);
  }
  if (a.command == "grade") {
    if (a.source.empty() || a.work.empty()) return judge::usage("grade needs --source and --work");
    return judge::cmd_grade(a);
  }
  return judge::usage("unknown command");
}
