// Where the judge emulates, and what an emulated test process does differently (emulation.hpp).
#include "emulation.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "banklab/cuda_check.cuh"  // no_gpu_reason
#include "banklab_emu/shim.h"  // weak: null in a judge linked against NVIDIA's runtime
#include "grader/tests_of_lab.hpp"
#include "process.hpp"
#include "process_groups.hpp"

namespace judge {

bool emulated_process() { return &banklab_emu_device != nullptr; }

#ifndef BANKLAB_EMULATED_LABS
#define BANKLAB_EMULATED_LABS ""
#endif

bool lab_is_emulated(const std::string& lab) {
  const std::string labs = std::string(" ") + BANKLAB_EMULATED_LABS + " ";  // "00 01 ...": grader/CMakeLists.txt
  return lab.size() == 2 && labs.find(" " + lab + " ") != std::string::npos;
}

bool no_usable_gpu(bool traced) {
  if (!traced) return banklab::no_gpu_reason()[0] != '\0';
  std::fflush(nullptr);
  const pid_t child = fork();  // a traced process makes no CUDA call before its trace session
  if (child == 0) _exit(banklab::no_gpu_reason()[0] != '\0' ? 1 : 0);
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status)) return false;  // as a GPU
  return WEXITSTATUS(status) == 1;
}

bool emulation_wanted(const std::string& lab, bool gpu_required, const std::function<bool()>& no_gpu) {
  const char* e = std::getenv("BANKLAB_EMULATE");
  const std::string said = e ? e : "";
  if (said == "1") return true;
  if (said == "0") return false;
  return lab_is_emulated(lab) && !gpu_required && no_gpu();
}

void become_the_emulated_twin(const std::string& lab, const std::vector<std::string>& tests, bool gpu_required,
                              char** argv) {
  if (emulated_process()) return;
  bool gpu = false, traced = false;
  for (const std::string& t : tests) {
    gpu = gpu || tier_of_test(t) == "gpu";
    traced = traced || is_traced(t);
  }
  if (!gpu || !emulation_wanted(lab, gpu_required, [traced] { return no_usable_gpu(traced); })) return;
  const std::string twin = self_path() + "-emu";
  if (access(twin.c_str(), X_OK) != 0) {
    const char* e = std::getenv("BANKLAB_EMULATE");
    if (e && std::string(e) == "1")
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
