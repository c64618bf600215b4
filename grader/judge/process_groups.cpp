// grade's tests in as few processes as isolation allows (process_groups.hpp).
#include "process_groups.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>

#include "grader/tests_of_lab.hpp"

namespace judge {

std::string tier_of_test(const std::string& suite_dot_name) {
  const grader::TestOfLab* t = grader::find_test_of_lab(suite_dot_name);
  return t ? t->tier : "cpu";
}

bool is_traced(const std::string& test) {
  const grader::TestOfLab* t = grader::find_test_of_lab(test);
  return t && t->traced;
}

double test_time_limit(const std::string& tier) { return tier == "gpu" ? 180 : 60; }

std::vector<TestGroup> group_tests(const std::vector<std::string>& tests, bool one_per_process) {
  std::vector<TestGroup> groups;
  if (one_per_process) {
    for (const std::string& t : tests) groups.push_back({t, {t}, test_time_limit(tier_of_test(t))});
    return groups;
  }
  TestGroup cpu{"cpu", {}, test_time_limit("cpu")}, gpu{"gpu", {}, test_time_limit("gpu")},
      traced{"traced", {}, test_time_limit("gpu")};
  for (const std::string& t : tests) {
    if (tier_of_test(t) == "cpu") cpu.tests.push_back(t);
    else (is_traced(t) ? traced : gpu).tests.push_back(t);
  }
  for (TestGroup* g : {&cpu, &gpu, &traced})
    if (!g->tests.empty()) groups.push_back(*g);
  return groups;
}

bool one_test_per_process_from_env() {
  const char* e = std::getenv("BANKLAB_JUDGE_ONE_TEST_PER_PROCESS");
  return e && std::string(e) == "1";
}

namespace {

// The verdict of a test whose process ended before it wrote its record, as a process of its own
// would leave it: what ended the process, and what the test printed.
Verdict no_verdict(const std::string& lab, const std::string& test, const ProcessResult& r, const std::string& output) {
  Verdict v;
  v.lab = lab;
  v.test = test;
  v.tier = tier_of_test(test);
  v.status = "failed";
  v.message = "the judge wrote no verdict for this test (" + r.describe() + "): " + output;
  return v;
}

}  // namespace

std::vector<Verdict> run_group(const std::string& lab, const TestGroup& g, const GroupRunner& runner) {
  const ProcessResult r = runner.run(g.name, g.tests, g.timeout_s);
  std::vector<Verdict> out;
  for (const std::string& t : g.tests) {
    if (std::optional<Verdict> v = runner.record(t); v && v->test == t) {
      out.push_back(*v);
      continue;
    }
    std::optional<std::string> own = runner.own_output(t);
    if (g.tests.size() == 1) {  // alone: its verdict whether it started or not
      out.push_back(no_verdict(lab, t, r, own ? *own : runner.process_output(g.name)));
    } else if (own) {  // the test that was running when its process ended
      out.push_back(no_verdict(lab, t, r, *own));
    } else {  // never started here: alone now, as before issue 33
      out.push_back(run_group(lab, {t, {t}, g.timeout_s}, runner).front());
    }
  }
  return out;
}

GroupRunner judge_runner(const std::string& me, const std::string& lab, const std::string& work, bool graded,
                         bool emulate_gpu) {
  const std::string results = work + "/results", logs = work + "/logs";
  auto record_file = [results, lab](const std::string& t) { return results + "/lab" + lab + "/" + t + ".json"; };
  auto log_file = [logs](const std::string& t) { return logs + "/" + t + ".log"; };
  auto process_log = [logs](const std::string& name) { return logs + "/" + name + ".process.log"; };
  GroupRunner r;
  r.run = [=](const std::string& name, const std::vector<std::string>& tests, double timeout_s) {
    make_dirs(logs);
    std::vector<std::string> cmd = {me, "test", "--lab", lab, "--work", work, "--results", results, "--logs", logs};
    for (const std::string& t : tests) {
      std::remove(record_file(t).c_str());
      std::remove(log_file(t).c_str());
      cmd.push_back("--test");
      cmd.push_back(t);
    }
    if (graded) cmd.push_back("--graded");
    if (emulate_gpu) cmd.push_back("--emulate-gpu");
    ProcessOptions opt;
    opt.output_file = process_log(name);
    opt.timeout_s = timeout_s;
    // Each test's limit: the clock restarts at each record written.
    auto seen = std::make_shared<std::set<std::string>>();
    opt.progressed = [=] {
      bool more = false;
      struct stat st {};
      for (const std::string& t : tests)
        if (!seen->count(t) && stat(record_file(t).c_str(), &st) == 0) more = seen->insert(t).second;
      return more;
    };
    return run_process(cmd, opt);
  };
  r.record = [=](const std::string& t) -> std::optional<Verdict> {
    Verdict v;
    if (!read_verdict(record_file(t), v)) return std::nullopt;
    return v;
  };
  r.own_output = [=](const std::string& t) -> std::optional<std::string> {
    if (access(log_file(t).c_str(), F_OK) != 0) return std::nullopt;
    return read_file(log_file(t), 2000);
  };
  r.process_output = [=](const std::string& name) { return read_file(process_log(name), 2000); };
  return r;
}

}  // namespace judge
