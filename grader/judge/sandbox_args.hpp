// What bubblewrap is told for a step (sandbox.cpp's): the system it sees, the environment, and
// the whole command line. Internal to the sandbox.
#pragma once

#include <string>
#include <vector>

#include "sandbox.hpp"

namespace judge {

/// The toolkit's root: the folder above nvcc's bin/.
std::string cuda_root();
/// The environment of every step (PATH, HOME=/tmp/w, TMPDIR, C locale, no GPU).
std::vector<std::string> env_list(const Step& s);
/// bubblewrap's command line for a step, up to (not including) the step's own argv.
std::vector<std::string> bwrap_args(const Step& s, const SandboxInfo& sb);

}  // namespace judge
