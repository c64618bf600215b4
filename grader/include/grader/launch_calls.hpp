// The name of a launcher call the judge replays: the probe records each call of a student's
// launcher under this name (probe::Call, grader/probe/probe_runtime.cpp) with the sizes of the lab's
// description (labs/NN_name/judge/lab.toml, [[launches]]), and the GPU tier looks the launches up by it
// (grader/gpu/replay.cuh). Standard library only, because the probe is compiled with the
// student's file.
#pragma once

#include <string>
#include <vector>

namespace grader_calls {

/// The name of a call: launcher name and sizes, e.g. "transpose_1024x256".
inline std::string name(const char* launcher, const std::vector<long long>& sizes) {
  std::string n = launcher;
  char sep = '_';
  for (long long s : sizes) {
    n += sep + std::to_string(s);
    sep = 'x';
  }
  return n;
}

}  // namespace grader_calls
