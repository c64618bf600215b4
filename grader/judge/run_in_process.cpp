// `banklab-judge test`: one or several tests of a lab in this process (run_in_process.hpp).
#include "run_in_process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "banklab/cuda_check.cuh"
#include "build.hpp"
#include "clean_text.hpp"
#include "emulation.hpp"
#include "grader/answers.hpp"
#include "grader/check.hpp"
#include "grader/context.hpp"
#include "grader/gpu/gpu_lock.hpp"
#include "grader/gpu/student.cuh"
#include "grader/gpu/trace.cuh"
#include "grader/tests_of_lab.hpp"
#include "output_capture.hpp"
#include "process.hpp"
#include "process_groups.hpp"

namespace judge {

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

std::string test_table_mismatch(const std::string& lab) {
  return grader::tests_differ_from_tables(registered_tests(lab), lab);
}

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

int exit_code_of(const Verdict& v) {
  if (v.status == "passed") return 0;
  if (v.status == "skipped") return 77;
  return 1;
}

int finish_verdict(const Verdict& v, const std::string& results, bool print_message) {
  if (!results.empty()) {
    const std::string dir = results + "/lab" + v.lab;
    make_dirs(dir);
    write_file(dir + "/" + v.test + ".json", to_json(v) + "\n");
  }
  if (print_message && !v.message.empty()) std::printf("%s\n", clean_text(v.message, 64 << 10).c_str());
  std::printf("%s\n", summary_line(v).c_str());
  std::fflush(stdout);
  return exit_code_of(v);
}

namespace {

// What a GPU test leaves behind is gone before the next test of the process starts: the student's
// module unloaded (the next test loads its own), a pending error cleared. False when the GPU's
// context is unusable (a sticky error such as an illegal address: every later call would fail) or
// work is still running after 10 s: the process then ends, and the tests left run each alone.
bool gpu_left_clean() {
  if (banklab::no_gpu_reason()[0] != '\0') return true;  // no GPU: nothing ran on one
  grader::gpu::forget_student_module();
  cudaGetLastError();
  const auto t0 = std::chrono::steady_clock::now();
  while (cudaStreamQuery(nullptr) == cudaErrorNotReady) {
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(10)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (cudaDeviceSynchronize() != cudaSuccess) return false;
  return cudaGetLastError() == cudaSuccess;
}

// Records each test's outcome from GoogleTest's events (the judge's checks, not any output) and
// gives each test what a process of its own would give it: its log, its lock, a fresh start.
class Recorder : public ::testing::EmptyTestEventListener {
 public:
  explicit Recorder(const TestRun& run) : run_(run) {}
  std::set<std::string> written;  ///< tests whose record is written
  std::vector<int> codes;         ///< their exit statuses, in order

  void OnTestStart(const ::testing::TestInfo& t) override {
    const std::string name = std::string(t.test_suite_name()) + "." + t.name();
    output_.start(run_.logs.empty() ? "" : run_.logs + "/" + name + ".log");  // let out cleaned at its end
    grader::checks() = 0;
    verdict_ = Verdict{};
    verdict_.lab = run_.lab;
    verdict_.test = name;
    verdict_.tier = tier_of_test(name);
    skip_message_.clear();
    (void)take_not_judged();  // the emulator's word on this test's launches only
    grader::gpu::detail::gpu_lock_waited_s() = 0;  // each test's own wait budget, as in a process of its own
    // One GPU, one timing at a time: the lock is held until the verdict is written, by the tests
    // grader/gpu/gpu_lock.hpp names (gpu_test_holds_the_lock), exclusively or shared.
    if (verdict_.tier == "gpu" && grader::gpu::gpu_test_holds_the_lock(name)) {
      gpu_lock_.emplace(grader::gpu::gpu_test_needs_the_gpu_alone(name));
      if (gpu_lock_->waited_s >= 1.0 || (!gpu_lock_->held() && gpu_lock_->note.rfind("no GPU", 0) != 0))
        std::printf("[ GPU LOCK ] %s (waited %.1f s)\n", gpu_lock_->note.c_str(), gpu_lock_->waited_s);
    }
  }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.skipped()) {
      skip_message_ += r.message();
      return;
    }
    if (r.failed()) {
      if (!verdict_.message.empty()) verdict_.message += "\n";
      verdict_.message += r.message();
    }
  }
  void OnTestEnd(const ::testing::TestInfo& t) override {
    const ::testing::TestResult* r = t.result();
    Verdict& v = verdict_;
    v.checks = grader::checks();
    v.seconds = static_cast<double>(r->elapsed_time()) / 1000.0;
    if (r->Failed()) v.status = "failed";
    else if (r->Skipped()) {
      v.status = "skipped";
      v.message = skip_message_;
    } else if (v.checks <= 0) {
      v.status = "failed";
      v.message = "the judge made no check in this test: a verdict needs evidence (report this to your instructor)";
    } else {
      v.status = "passed";
    }
    if (v.tier == "gpu" && emulated_process()) {
      v.emulated = true;
      // A launch the emulator could not run (an instruction it does not know): not judged, whatever
      // the test made of the failed launch.
      if (const std::string why = take_not_judged(); !why.empty()) {
        v.status = "skipped";
        v.message = skip_message_ = why;
      }
    }
    const bool not_from_gtest = (v.status == "skipped" && run_.graded) || v.checks <= 0;
    if (v.status == "skipped" && run_.graded) {
      v.status = "fault";
      v.message = fault_message(v, v.message);
    }
    codes.push_back(finish_verdict(v, run_.results, not_from_gtest));
    written.insert(v.test);
    const bool clean = v.tier != "gpu" || gpu_left_clean();
    gpu_lock_.reset();
    if (!clean) {
      std::printf("[ STOPPED ] the GPU is unusable after %s (or its work did not end): the tests after it run "
                  "each in a process of its own\n", v.test.c_str());
      output_.release();
      std::fflush(stdout);
      std::_Exit(kStoppedEarly);
    }
    output_.release();
  }
 private:
  const TestRun& run_;
  Verdict verdict_;
  std::string skip_message_;
  std::optional<grader::gpu::GpuLock> gpu_lock_;
  OutputCapture output_;
};

Verdict plain(const TestRun& run, const std::string& test, const std::string& message) {
  Verdict v;
  v.lab = run.lab;
  v.test = test;
  v.tier = tier_of_test(test);
  v.status = "failed";
  v.message = message;
  return v;
}

// Every test of `tests` gets `message` (a failure not from GoogleTest); the exit status of the last.
int fail_all(const TestRun& run, const std::vector<std::string>& tests, const std::string& message) {
  int code = 1;
  for (const std::string& t : tests) code = finish_verdict(plain(run, t, message), run.results, true);
  return code;
}

int exit_status(const std::vector<int>& codes) {
  if (codes.size() == 1) return codes.front();
  bool all_passed = true, none_failed = true;
  for (int c : codes) {
    all_passed = all_passed && c == 0;
    none_failed = none_failed && (c == 0 || c == 77);
  }
  return all_passed ? 0 : none_failed ? 77 : 1;
}

}  // namespace

int run_tests(const TestRun& run, const char* argv0) {
  grader::Context ctx;
  ctx.lab = run.lab;
  ctx.work = run.work;
  ctx.graded = run.graded;
  ctx.source = read_file(WorkDir{run.work}.source_txt(), 4096);
  ctx.read_fatbin = [fatbin = ctx.fatbin()] { return read_hashed(fatbin); };
  grader::set_context(std::move(ctx));

  const std::vector<std::string> known = registered_tests(run.lab);
  std::vector<std::string> tests;  // known, once each
  std::vector<int> codes;
  for (const std::string& t : run.tests) {
    if (std::find(tests.begin(), tests.end(), t) != tests.end()) continue;
    if (std::find(known.begin(), known.end(), t) == known.end())
      codes.push_back(finish_verdict(plain(run, t, "lab " + run.lab + " has no test " + t), run.results, true));
    else
      tests.push_back(t);
  }
  if (tests.empty()) return exit_status(codes);
  const bool traced = is_traced(tests.front());
  for (const std::string& t : tests)
    if (is_traced(t) != traced) {
      std::fprintf(stderr, "banklab-judge: %s and %s cannot share a process: the tracer slows every kernel of its "
                           "process\n", tests.front().c_str(), t.c_str());
      return 2;
    }
  if (auto err = grader::answers().load(WorkDir{run.work}.answers(), run.lab)) {
    std::string message = "not judged: " + *err + ".";
    // A failed build is reported once, by LabNN.Build; the other tests only point there.
    if (access(WorkDir{run.work}.build_log().c_str(), F_OK) == 0)
      message = "not judged: the lab did not build (see lab" + run.lab + ".build)";
    codes.push_back(fail_all(run, tests, message));
    return exit_status(codes);
  }

  if (emulated_process()) {  // the emulator does not time: a timing test is skipped, not run
    std::vector<std::string> run_here;
    for (const std::string& t : tests) {
      if (tier_of_test(t) != "gpu" || !is_timed(t)) {
        run_here.push_back(t);
        continue;
      }
      Verdict v = plain(run, t, timing_needs_a_gpu());
      v.status = run.graded ? "fault" : "skipped";
      if (run.graded) v.message = fault_message(v, v.message);
      v.emulated = true;
      codes.push_back(finish_verdict(v, run.results, true));
    }
    tests = run_here;
    if (tests.empty()) return exit_status(codes);
  }
  if (traced) grader::gpu::start_trace_session();  // before any CUDA call
  std::string filter = "--gtest_filter=";
  for (std::size_t i = 0; i < tests.size(); ++i) filter += (i ? ":" : "") + tests[i];
  std::vector<char*> gargv = {const_cast<char*>(argv0), filter.data(), const_cast<char*>("--gtest_color=no")};
  int gargc = static_cast<int>(gargv.size());
  ::testing::InitGoogleTest(&gargc, gargv.data());
  // The recorder before GoogleTest's printer: a test's log starts with its "[ RUN      ]" line
  // (start events go to the listeners in order, end events in reverse order).
  ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
  ::testing::TestEventListener* printer = listeners.Release(listeners.default_result_printer());
  auto* recorder = new Recorder(run);
  listeners.Append(recorder);
  if (printer) listeners.Append(printer);
  const int gtest_status = RUN_ALL_TESTS();  // the verdicts come from the recorder, not from this
  (void)gtest_status;
  codes.insert(codes.end(), recorder->codes.begin(), recorder->codes.end());
  for (const std::string& t : tests)
    if (!recorder->written.count(t)) codes.push_back(finish_verdict(plain(run, t, "the test did not run"), run.results, true));
  return exit_status(codes);
}

}  // namespace judge
