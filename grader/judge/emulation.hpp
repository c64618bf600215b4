// The GPU tier without a GPU (docs/dev/EMULATOR.md, "One harness, two devices"): each judge
// executable has an emulated twin beside it (`banklab-judge-emu`, `banklab-judge-labNN-emu`: the
// same objects linked against the emulator's CUDA runtime, emu/shim/). `banklab-judge test` of GPU
// tests starts the twin in its place where the judge emulates; the twin's records say so
// (Verdict::emulated), its timing tests skip ("needs a GPU"), and a test whose launch the emulator
// cannot run is skipped "not judged (emulator: ...)", never failed.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace judge {

/// Whether this process is an emulated twin (linked against the emulator's runtime).
bool emulated_process();

/// Whether lab `lab`'s emulated GPU tier is checked (every solution passes, every stub fails its
/// traced test as on the GPU: `judge.EmulatedGpuTierNN`), so that its GPU tests run on the emulator
/// by default where there is no GPU: the labs of BANKLAB_EMULATED_LABS (grader/CMakeLists.txt).
bool lab_is_emulated(const std::string& lab);

/// Whether this machine has no usable GPU (banklab::no_gpu_reason() is not empty). `traced`: the
/// process is to start a trace session, which must come before any CUDA call, so a child asks.
bool no_usable_gpu(bool traced);

/// Whether the GPU tests of lab `lab` are to run on the emulator: BANKLAB_EMULATE=1 always,
/// BANKLAB_EMULATE=0 never; otherwise (the default) where `lab_is_emulated(lab)`, no GPU is usable
/// here (`no_gpu`: no_usable_gpu()) and `gpu_required` is false (graded mode needs a GPU unless the
/// instructor says --emulate-gpu: docs/dev/GRADER.md, "Without a GPU"). Only `no_gpu` asks CUDA.
bool emulation_wanted(const std::string& lab, bool gpu_required, const std::function<bool()>& no_gpu);

/// `banklab-judge test` of lab `lab`'s `tests`: where the judge emulates (emulation_wanted) and
/// this process is not the twin, and one of the tests is a GPU test, replaces this process with
/// the twin (same arguments). Returns only when it does not: nothing to emulate, or no twin beside
/// this judge (a note on stderr where BANKLAB_EMULATE=1 asked for it; the GPU tests then skip as
/// without a GPU).
void become_the_emulated_twin(const std::string& lab, const std::vector<std::string>& tests, bool gpu_required,
                              char** argv);

/// Whether a GPU test times kernels (the emulator runs kernels but does not time them), as its
/// lab's generated table says (grader/tests_of_lab.hpp); false for a test no table lists.
bool is_timed(const std::string& test);

/// The skip of a timed test in an emulated process.
std::string timing_needs_a_gpu();

/// The emulator's "not judged (emulator: ...)" of the launches since the last call, "" when none.
std::string take_not_judged();

}  // namespace judge
