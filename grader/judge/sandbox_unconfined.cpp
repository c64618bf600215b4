// Mode none on a student's own machine that asked for it (BANKLAB_ALLOW_UNCONFINED=1, never a
// root judge; everywhere else the judge refuses: main.cpp): the step's programs run unconfined in
// a private scratch folder (mkdtemp, removed at exit) that holds its inputs. See sandbox_modes.hpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "sandbox_modes.hpp"

namespace judge {
namespace {

std::string& scratch() {
  static std::string s;
  return s;
}

void remove_scratch() {
  if (!scratch().empty()) remove_at(AT_FDCWD, scratch().c_str());
}

}  // namespace

const std::string& ensure_scratch() {
  if (scratch().empty()) {
    char tmpl[] = "/tmp/banklab-judge-XXXXXX";
    if (mkdtemp(tmpl)) {
      scratch() = tmpl;
      std::atexit(remove_scratch);
      make_dirs(scratch() + "/tmp/w");
    }
  }
  return scratch();
}

void place_inputs_unconfined(const Step& s, std::vector<std::string>& envs) {
  const std::string& root = ensure_scratch();
  for (const StepInput& in : s.inputs) {
    const std::string p = root + in.path;
    if (read_file(p, in.content.size() + 1) == in.content) continue;  // a step beside this one may be reading it
    make_dirs(dir_of(p));
    unlink(p.c_str());
    write_file(p, in.content);
    chmod(p.c_str(), in.executable ? 0555 : 0444);
  }
  envs[1] = "HOME=" + root + "/tmp/w";
  envs[2] = "TMPDIR=" + root + "/tmp";
}

std::string inside(const std::string& path) {
  if (sandbox_info().available) return path;
  if (path == "/tmp" || under(path, "/tmp") || under(path, "/in") || under(path, "/inc")) return ensure_scratch() + path;
  return path;
}

}  // namespace judge
