// The calibrate program: `banklab-calibrate-standalone calibrate ...`, which `banklab calibrate ...`
// runs (tools/main.cpp). Its messages and exit statuses are banklab's (one parse-and-exit block for
// both: banklab_cli/run_app.hpp): a usage error exits 2.
#include <CLI/CLI.hpp>

#include "banklab_cli/run_app.hpp"
#include "calibrate.hpp"

int main(int argc, char** argv) {
  CLI::App app{"banklab calibrate"};
  app.name("banklab");
  app.require_subcommand(1);
  banklab::cli::add_calibrate_command(app);
  return banklab::cli::run_app(app, argc, argv);
}
