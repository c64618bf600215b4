// The calibrate program: `banklab-calibrate-standalone calibrate ...`, which `banklab calibrate ...`
// runs (tools/main.cpp). Its messages and exit statuses are banklab's: a usage error exits 2.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "calibrate.hpp"

int main(int argc, char** argv) {
  CLI::App app{"banklab calibrate"};
  app.name("banklab");
  app.require_subcommand(1);
  banklab::cli::add_calibrate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    std::fflush(stdout);
    return rc == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "banklab: %s\n", e.what());
    return 2;
  }
  return std::fflush(stdout) == 0 ? 0 : 2;
}
