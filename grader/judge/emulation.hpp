// The GPU tier without a GPU (docs/dev/EMULATOR.md, "One harness, two devices"): each judge
// executable has an emulated twin beside it (`banklab-judge-emu`, `banklab-judge-labNN-emu`: the
// same objects linked against the emulator's CUDA runtime, emu/shim/). `banklab-judge test` of GPU
// tests starts the twin in its place where the judge emulates; the twin's records say so
// (Verdict::emulated), its timing tests skip ("needs a GPU"), and a test whose launch the emulator
// cannot run is skipped "not judged (emulator: ...)", never failed.
#pragma once

#include <string>
#include <vector>

namespace judge {

/// Whether this process is an emulated twin (linked against the emulator's runtime).
bool emulated_process();

/// Whether GPU tests are to run on the emulator: BANKLAB_EMULATE=1. (Not yet by default where no
/// GPU is found: the points table has no setting for what an emulated tier earns; EMULATOR.md.)
bool emulation_wanted();

/// `banklab-judge test` of `tests`: where the judge emulates and this process is not the twin,
/// and one of the tests is a GPU test, replaces this process with the twin (same arguments).
/// Returns only when it does not: nothing to emulate, or no twin beside this judge (a note on
/// stderr; the GPU tests then skip as without a GPU).
void become_the_emulated_twin(const std::vector<std::string>& tests, char** argv);

/// Whether a GPU test times kernels (the emulator runs kernels but does not time them), as its
/// lab's generated table says (grader/tests_of_lab.hpp); false for a test no table lists.
bool is_timed(const std::string& test);

/// The skip of a timed test in an emulated process.
std::string timing_needs_a_gpu();

/// The emulator's "not judged (emulator: ...)" of the launches since the last call, "" when none.
std::string take_not_judged();

}  // namespace judge
