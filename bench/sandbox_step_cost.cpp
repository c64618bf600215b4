// Times bare sandboxed steps: judge::run_steps with `/bin/true`, N times one after another (after one
// untimed step, so that finding bubblewrap and the cgroups is not counted), and prints the median wall
// milliseconds of one step. Compiled against a judge tree's grader/judge/sandbox.hpp and linked with
// that tree's banklab_judge_core (see docs/perf/confinement_cost.md for the command); the same source
// builds against the trees before and after the confinement change, whose run_steps take the same Step.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sandbox.hpp"

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10;
  judge::Step step;
  step.argv = {"/bin/true"};
  const auto info = judge::sandbox_info();
  std::fprintf(stderr, "%s\n", info.describe().c_str());
  auto first = judge::run_steps({step});
  if (!first[0].sandbox_error.empty() || first[0].process.exit_code != 0) {
    std::fprintf(stderr, "step failed: %s (exit %d)\n", first[0].sandbox_error.c_str(),
                 first[0].process.exit_code);
    return 1;
  }
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = judge::run_steps({step});
    const auto t1 = std::chrono::steady_clock::now();
    if (!r[0].sandbox_error.empty() || r[0].process.exit_code != 0) return 1;
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%d steps of true: median %.1f ms, min %.1f ms, max %.1f ms\n", n, ms[n / 2], ms.front(),
              ms.back());
  return 0;
}
