// What the judge knows about the submission under judgement, for the checks that need it. The
// harness (the lab's tests, the checks) receives it: the judge hands it over with set_context()
// before any test runs (grader/judge/run_in_process.cpp); nothing here calls into the judge's own code.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace grader {

struct Context {
  std::string lab;      ///< "05"
  std::string work;     ///< the lab's work folder: answers.txt, kernel.fatbin, logs
  std::string source;   ///< the student's file as submitted (for messages)
  bool graded = false;  ///< instructor's graded mode: a GPU test that cannot run fails
  /// The judge's reader of the student's compiled device code: its bytes when they are the ones
  /// the build made (the judge checks the hash its build recorded), nothing otherwise.
  std::function<std::optional<std::string>()> read_fatbin;
  /// The student's compiled device code (cudaLibraryLoadFromFile reads it).
  std::string fatbin() const { return work + "/kernel.fatbin"; }
};

/// The submission under judgement, as the judge handed it over (empty before it did).
const Context& context();

/// The judge hands the harness the submission under judgement (once a test process, before its
/// tests run).
void set_context(Context c);

/// The bytes of the student's compiled device code (context().fatbin()), read by the judge's
/// reader: nothing when the file is missing, is not the one the build made, or when no reader was
/// handed over (missing evidence is a failure).
std::optional<std::string> built_fatbin();

}  // namespace grader
