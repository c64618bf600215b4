// Building a student's kernel.cu apart from the judge: the probe (host code, run in its own
// process) and the device code (a fatbin the judge loads and launches). See docs/dev/GRADER.md.
#pragma once

#include <optional>
#include <string>

namespace judge {

struct BuildResult {
  bool ok = false;
  double seconds = 0;
  std::string message;  ///< compiler errors, or why the probe's answers are unusable
  bool fault = false;   ///< not judged for a reason of the grader's own (a full disk, a sandbox that
                        ///< could not start): never the student's failure (verdict status `fault`)
};

/// Compiles `source` for lab `lab` into `work` (reusing the last build when nothing changed),
/// runs the probe, and checks that its answers can be read. A failed build leaves no answers.
BuildResult build_lab(const std::string& lab, const std::string& source, const std::string& work);

/// The device code at `path` when its bytes match the hash the build recorded beside it
/// (path.sha256), else nothing: what the GPU tier loads (the judge hands this reader to the
/// harness: grader/context.hpp), and what a rebuild may keep.
std::optional<std::string> read_hashed(const std::string& path);

}  // namespace judge
