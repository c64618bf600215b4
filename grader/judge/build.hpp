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

/// The judge's work folder of one lab: the name of every file a build writes there, in one place
/// (build_lab() writes them; the test processes read the answers, the device code, source.txt).
struct WorkDir {
  std::string dir;
  std::string file(const char* name) const { return dir + "/" + name; }
  std::string answers() const { return file("answers.txt"); }            ///< the probe's answers
  std::string fatbin() const { return file("kernel.fatbin"); }            ///< the device code
  std::string fatbin_hash() const { return fatbin() + ".sha256"; }        ///< its hash (read_hashed)
  std::string stamp() const { return file("stamp"); }                     ///< what the build was built from
  std::string probe() const { return file("probe"); }                     ///< the probe, kept for the instructor
  std::string source_txt() const { return file("source.txt"); }           ///< the path of the file built
  std::string source_cu() const { return file("source.cu"); }             ///< the text built (answers.cpp reads it)
  std::string build_log() const { return file("build.log"); }             ///< why the build failed
  std::string control_log() const { return file("control.log"); }         ///< the control's note
  std::string probe_log() const { return file("probe.log"); }             ///< what the probe printed
  std::string probe_build_log() const { return file("probe_build.log"); } ///< the probe's compile
  std::string fatbin_build_log() const { return file("fatbin_build.log"); }
  /// Removes the judge's own outputs (and names of an older judge's) before a build: a failed
  /// build leaves no answers and no device code.
  void clear() const;
};

/// Compiles `source` for lab `lab` into `work` (reusing the last build when nothing changed),
/// runs the probe, and checks that its answers can be read. A failed build leaves no answers.
BuildResult build_lab(const std::string& lab, const std::string& source, const std::string& work);

/// The device code at `path` when its bytes match the hash the build recorded beside it
/// (path.sha256), else nothing: what the GPU tier loads (the judge hands this reader to the
/// harness: grader/context.hpp), and what a rebuild may keep.
std::optional<std::string> read_hashed(const std::string& path);

}  // namespace judge
