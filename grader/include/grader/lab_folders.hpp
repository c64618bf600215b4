/// @file lab_folders.hpp
/// @brief Where each lab compiled into the judge lives: its folder (labs/<folder>/kernel.cu) and
///        its judge folder (probe.cu, test.cu) from the course root, registered by the lab's
///        generated labNN_questions_test.cpp (python/banklab/lab/gen.py) from its description.
///        The judge's build takes them from here, never from a header's text.
#pragma once

#include <map>
#include <string>

namespace grader {

struct LabFolders {
  std::string folder;     ///< "05_swizzle"
  std::string judge_dir;  ///< "labs/05_swizzle/judge" (the student release: "grader/labs/05_swizzle")
};

/// Every lab this judge was built with, by number.
inline std::map<std::string, LabFolders>& lab_folders_registry() {
  static std::map<std::string, LabFolders> labs;
  return labs;
}

/// Called once per lab at start-up by its generated code.
inline bool register_lab_folders(const char* lab, const char* folder, const char* judge_dir) {
  lab_folders_registry()[lab] = LabFolders{folder, judge_dir};
  return true;
}

/// Lab `lab`'s folders, or nullptr when this judge was not built with it.
inline const LabFolders* lab_folders(const std::string& lab) {
  const auto& labs = lab_folders_registry();
  const auto it = labs.find(lab);
  return it == labs.end() ? nullptr : &it->second;
}

}  // namespace grader
