// Every test of a lab as data: its name, its tier, whether it runs under the tracer and whether it
// times kernels, in the
// order of Lab.tests() (python/banklab/lab/lab_tests.py, the one list), which
// python/banklab/lab/gen.py generates into labNN_questions_test.cpp (kLabTests) and registers here
// at static initialisation. The judge reads a test's tier and traced-ness from here
// (grader/judge/process_groups.cpp), and its emulated twin which tests time (emulation.cpp), never
// from a test's name.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace grader {

/// One test of a lab, as Lab.tests() lists it.
struct TestOfLab {
  const char* test;  ///< "Suite.Name"; nullptr ends a table
  const char* tier;  ///< "cpu" or "gpu"
  bool traced;       ///< runs under the shared-memory tracer (a process of its own kind)
  bool timed = false; ///< times kernels (the emulator, which does not time, skips it)
};

/// The tables registered so far, by lab ("05").
inline std::map<std::string, std::vector<TestOfLab>>& test_tables() {
  static std::map<std::string, std::vector<TestOfLab>> tables;
  return tables;
}

/// Registers lab `lab`'s table (ended by an entry whose test is nullptr).
inline bool register_test_table(const char* lab, const TestOfLab* tests) {
  std::vector<TestOfLab>& t = test_tables()[lab];
  t.clear();
  for (const TestOfLab* p = tests; p->test; ++p) t.push_back(*p);
  return true;
}

/// The entry of test "Suite.Name" in any lab's table, or nullptr.
inline const TestOfLab* find_test_of_lab(const std::string& suite_dot_name) {
  for (const auto& [lab, tests] : test_tables())
    for (const TestOfLab& t : tests)
      if (suite_dot_name == t.test) return &t;
  return nullptr;
}

/// "" when `held` (the tests a judge holds, "Suite.Name", whose suites start with "LabNN") are exactly
/// those the tables list for lab `lab` ("" = every lab), else the first difference, in words.
inline std::string tests_differ_from_tables(const std::vector<std::string>& held, const std::string& lab) {
  std::map<std::string, std::vector<std::string>> have, listed;
  for (const std::string& t : held)
    if (t.size() > 5) have[t.substr(3, 2)].push_back(t);
  for (const auto& [n, tests] : test_tables())
    if (lab.empty() || n == lab)
      for (const TestOfLab& t : tests) listed[n].push_back(t.test);
  auto in = [](const std::vector<std::string>& v, const std::string& x) {
    for (const std::string& y : v)
      if (y == x) return true;
    return false;
  };
  for (const auto& [n, tests] : have)
    for (const std::string& t : tests)
      if (!in(listed[n], t))
        return "lab " + n + "'s test " + t + " is not in its table of tests (Lab.tests(), generated into lab" + n +
               "_questions_test.cpp): configure the build again";
  for (const auto& [n, tests] : listed)
    for (const std::string& t : tests)
      if (!in(have[n], t))
        return "lab " + n + "'s table of tests (Lab.tests()) lists " + t + ", which this judge does not hold: "
               "configure the build again";
  return "";
}

}  // namespace grader
