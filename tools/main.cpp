// banklab: the command-line face of the bank model. One file per subcommand (cmd_*.cpp).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "banklab/pattern_io.hpp"
#include "banklab_cli/expr.hpp"
#include "banklab_cli/run_app.hpp"
#include "commands.hpp"
#if defined(BANKLAB_HAVE_TRACE)
#include "trace_command.hpp"
#endif

#if defined(BANKLAB_CALIBRATE_PROGRAM)
namespace {
// `banklab calibrate ARGS` runs the calibrate program built beside banklab (tools/calibrate):
// `banklab-calibrate-standalone calibrate ARGS`, in this process (its exit status is the command's).
int run_calibrate_program(int argc, char** argv) {
  const char* program = BANKLAB_CALIBRATE_PROGRAM;
  std::vector<char*> args = {const_cast<char*>(program), const_cast<char*>("calibrate")};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  std::fflush(stdout);
  execv(program, args.data());
  const std::string prog = program, tools = prog.substr(0, prog.rfind("/calibrate/"));
  std::fprintf(stderr,
               "banklab: cannot run %s (%s): `banklab calibrate` is a program of its own; build it with\n"
               "  cmake --build %s --target banklab-calibrate-standalone\n",
               program, std::strerror(errno), tools.substr(0, tools.rfind('/')).c_str());
  return 2;
}
}  // namespace
#endif

#if defined(BANKLAB_PYTHON)
namespace {
// `banklab variant ARGS` runs the course's Python module banklab.lab.variants (a lab's per-student
// variants, docs/dev/VARIANTS.md) in this process: python3 python/banklab_run.py -m banklab.lab.variants ARGS.
int run_variant_module(int argc, char** argv) {
  std::vector<char*> args = {const_cast<char*>(BANKLAB_PYTHON), const_cast<char*>(BANKLAB_PYTHON_RUN),
                             const_cast<char*>("-m"), const_cast<char*>("banklab.lab.variants")};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  std::fflush(stdout);
  execv(BANKLAB_PYTHON, args.data());
  std::fprintf(stderr, "banklab: cannot run %s (%s): `banklab variant` needs the course's Python 3.11\n", BANKLAB_PYTHON,
               std::strerror(errno));
  return 2;
}
}  // namespace
#endif

int main(int argc, char** argv) {
#if defined(BANKLAB_CALIBRATE_PROGRAM)
  if (argc > 1 && std::strcmp(argv[1], "calibrate") == 0) return run_calibrate_program(argc, argv);
#endif
#if defined(BANKLAB_PYTHON)
  if (argc > 1 && std::strcmp(argv[1], "variant") == 0) return run_variant_module(argc, argv);
#endif
  CLI::App app{"banklab: how many wavefronts a warp's shared-memory access takes, and why.\n"
               "Accesses are 'op width mask off0 ... off31': op ld|st, width 1/2/4/8/16 bytes,\n"
               "mask in hex, 32 byte offsets (one per lane)."};
  app.name("banklab");
  app.require_subcommand(1);
  banklab::cli::add_predict_command(app);
  banklab::cli::add_compare_command(app);
  banklab::cli::add_explain_command(app);
#if defined(BANKLAB_CALIBRATE_PROGRAM)  // listed in --help; run above, before parsing
  app.add_subcommand("calibrate",
                     "Re-measure the model's facts on this GPU with Nsight Compute (ncu); "
                     "`banklab calibrate --help` for its options.");
#endif
#if defined(BANKLAB_PYTHON)  // listed in --help; run above, before parsing
  app.add_subcommand("variant",
                     "A lab's per-student variants: `banklab variant --lab NN --list`, or a student's with "
                     "--student ID --course-seed S (`banklab variant --help`).");
#endif
#if defined(BANKLAB_HAVE_TRACE)
  banklab::cli::add_trace_command(app);
#endif
  return banklab::cli::run_app(app, argc, argv);
}
