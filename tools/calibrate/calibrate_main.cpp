// A small driver with only the calibrate subcommand: `banklab-calibrate-standalone calibrate ...`.
#include <CLI/CLI.hpp>

#include "calibrate.hpp"

int main(int argc, char** argv) {
  CLI::App app{"banklab calibrate, standalone"};
  app.require_subcommand(1);
  banklab::cli::add_calibrate_command(app);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
