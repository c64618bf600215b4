// What the judge knows about the submission under judgement, for the checks that need it.
#pragma once

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

}  // namespace grader
