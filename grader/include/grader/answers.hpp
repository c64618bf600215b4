// The judge's side of the probe: the answers a student's kernel.cu gave, read as data.
//
// banklab-judge loads work/answers.txt (written by probe_labNN, see probe.hpp) once per process.
// Nothing here runs student code: every value is a number the probe printed, checked for form
// (version, lab, counts, sizes) before any test looks at it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "banklab/model.hpp"
#include "grader/prediction_text.hpp"

namespace grader {

/// A function of the student's file over a box of integer arguments, e.g. tile_index(row, col).
struct Table {
  std::string name;
  std::vector<int> dims;
  std::vector<long long> values;  ///< row-major over dims

  /// The value at `idx`, or nothing when idx is outside the box the probe evaluated.
  std::optional<long long> at(std::initializer_list<int> idx) const;
  /// The value at `idx`; idx must be inside the box (the checks make sure of it).
  long long operator()(std::initializer_list<int> idx) const;
};

/// Shared-memory instructions of the kernel as the student's access functions describe them:
/// for every index in the box `dims`, one warp instruction (32 byte offsets).
struct AccessTable {
  std::string name;
  banklab::Op op = banklab::Op::Load;
  int width = 4;
  std::vector<int> dims;
  std::vector<long long> offsets;  ///< 32 per instruction, row-major over dims

  int count() const { return static_cast<int>(offsets.size() / 32); }
  /// Lane offsets of instruction `idx` (row-major index into the box).
  const long long* lanes(int flat) const { return offsets.data() + 32L * flat; }
  int flat(std::initializer_list<int> idx) const;
};

/// One argument of a recorded kernel launch (grader/probe/probe_runtime.cpp).
struct LaunchArg {
  enum class Kind { Pointer, Null, Foreign, Integer, Unknown };
  Kind kind = Kind::Unknown;
  int buffer = -1;      ///< Pointer: which of the call's buffers
  long long value = 0;  ///< Pointer: byte offset into it; Integer: the value
};

/// One kernel launch that a launcher of the student's file made when the probe called it.
struct Launch {
  std::string api;     ///< "launch" (<<<>>> or cudaLaunchKernel), "ex" (cudaLaunchKernelEx), "cooperative"
  std::string kernel;  ///< the device symbol, "?" when the launched function is no kernel of the file
  unsigned long long grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned long long shared = 0;  ///< dynamic shared memory, bytes
  bool args_known = false;        ///< false: a kernel the lab's probe does not describe
  std::vector<LaunchArg> args;

  /// "name<<<(gx, gy, gz), (bx, by, bz), shared>>>"
  std::string describe() const;
  /// Why this launch cannot be run as given (block or grid out of the GPU's range, a function
  /// that is no kernel, a launch API the judge does not replay), in words for the student.
  std::optional<std::string> invalid() const;
};

/// A launcher of the student's file as the probe called it (grader/launch_calls.hpp names the
/// calls): how it ended and the launches it made.
struct LauncherCall {
  std::string name;
  std::string status;  ///< "ok", "crashed", "hung" (5 s), "exited"
  std::vector<unsigned long long> buffer_bytes;  ///< the fake buffers it was given, in order
  std::vector<Launch> launches;
};

class Answers {
 public:
  /// Reads an answers file. On failure returns why, in words for the student.
  std::optional<std::string> load(const std::string& path, const std::string& lab);

  bool loaded() const { return loaded_; }
  long long value(const std::string& name) const;
  long long prediction(const std::string& name) const;
  /// Whether the probe recorded prediction `name` as not an integer (a float, a double, ...).
  bool prediction_not_integer(const std::string& name) const { return not_integer_.count(name) != 0; }
  /// Prediction `name` as the student's file writes it (its initializer and that initializer's
  /// floating-point part: prediction_text.hpp), from the copy of the file the build compiled
  /// (source.cu beside the answers file); nullptr when the file declares no such constant.
  const PredictionText* as_written(const std::string& name) const;
  /// Whether prediction `name` is read as an integer: of an integer type, with no floating-point
  /// literal or conversion in its initializer.
  bool prediction_is_integer(const std::string& name) const {
    const PredictionText* t = as_written(name);
    return !prediction_not_integer(name) && !(t && !t->floating.empty());
  }
  const Table& table(const std::string& name) const;
  const AccessTable& access(const std::string& name) const;
  /// The names of the access functions the probe tabulated (the lab's tables: "tile_index").
  std::vector<std::string> table_names() const {
    std::vector<std::string> n;
    for (const auto& [name, t] : tables_) n.push_back(name);
    return n;
  }
  bool has_value(const std::string& name) const { return values_.count(name) != 0; }
  /// The launcher call `name`, or nullptr when the probe recorded none of that name.
  const LauncherCall* call(const std::string& name) const;

 private:
  bool loaded_ = false;
  std::map<std::string, long long> values_, predictions_;
  std::set<std::string> not_integer_;
  std::map<std::string, PredictionText> as_written_;
  std::map<std::string, Table> tables_;
  std::map<std::string, AccessTable> accesses_;
  std::map<std::string, LauncherCall> calls_;
};

/// The answers of the student's file under judgement (loaded by banklab-judge's main).
Answers& answers();

}  // namespace grader
