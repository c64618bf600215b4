// What the judge knows about the submission under judgement, for the checks that need it.
#pragma once

#include <optional>
#include <string>

namespace grader {

struct Context {
  std::string lab;      ///< "05"
  std::string work;     ///< the lab's work folder: answers.txt, kernel.fatbin, logs
  std::string source;   ///< the student's file as submitted (for messages)
  bool graded = false;  ///< instructor's graded mode: a GPU test that cannot run fails
  /// The student's compiled device code (cudaLibraryLoadFromFile reads it).
  std::string fatbin() const { return work + "/kernel.fatbin"; }
};

Context& context();

/// The bytes of the student's compiled device code (context().fatbin()), checked against the hash
/// its build recorded (grader/judge/build.cpp, where the hash is made): nothing when the file is
/// missing or is not the one the build made.
std::optional<std::string> built_fatbin();

}  // namespace grader
