// Where the judge emulates, and what an emulated test process does differently (emulation.hpp).
#include "emulation.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "banklab_emu/shim.h"  // weak: null in a judge linked against NVIDIA's runtime
#include "grader/tests_of_lab.hpp"
#include "process.hpp"
#include "process_groups.hpp"

namespace judge {

bool emulated_process() { return &banklab_emu_device != nullptr; }

bool emulation_wanted() {
  const char* e = std::getenv("BANKLAB_EMULATE");
  return e && std::string(e) == "1";
}

void become_the_emulated_twin(const std::vector<std::string>& tests, char** argv) {
  if (!emulation_wanted() || emulated_process()) return;
  bool gpu = false;
  for (const std::string& t : tests) gpu = gpu || tier_of_test(t) == "gpu";
  if (!gpu) return;
  const std::string twin = self_path() + "-emu";
  if (access(twin.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "banklab-judge: BANKLAB_EMULATE=1, but this judge has no emulated twin beside it (%s): "
                         "the GPU tests run as without a GPU\n", twin.c_str());
    return;
  }
  std::fflush(stdout);
  execv(twin.c_str(), argv);
  std::fprintf(stderr, "banklab-judge: could not start %s: the GPU tests run as without a GPU\n", twin.c_str());
}

// A test that times kernels, as its lab's table says (grader/tests_of_lab.hpp: Lab.tests(), from
// the description's timing tests and [gpu] timed), never its name.
bool is_timed(const std::string& test) {
  const grader::TestOfLab* t = grader::find_test_of_lab(test);
  return t && t->timed;
}

std::string timing_needs_a_gpu() {
  return "needs a GPU: this test times kernels, and the emulator (" + std::string(banklab_emu_device()) +
         ") runs them but does not time them";
}

std::string take_not_judged() {
  if (!emulated_process()) return "";
  return banklab_emu_take_not_judged();
}

}  // namespace judge
