/// @file run_app.hpp
/// @brief How a banklab program parses its command line and ends: the one parse-and-exit block of
///        `banklab` (tools/main.cpp) and of the calibrate program (tools/calibrate/calibrate_main.cpp).
///        Header-only, over CLI11 (which only the programs include): the CLI library's sources
///        stay free of it (the fuzzer and the site's explorer compile them).
#pragma once

#include <cstdio>
#include <exception>
#include <new>

#include <CLI/CLI.hpp>

#include "banklab/pattern_io.hpp"

namespace banklab::cli {

/// Thrown by a subcommand to end the program with `code` (after printing what it had to).
struct Exit {
  int code = 0;
};

/// Parses `argv` into `app` and runs the chosen subcommand; the program's exit status: 0, the
/// code of an Exit, or 2 for bad input (a usage error: CLI11's message; a banklab::ParseError, an
/// exception or unwritable output: "banklab: WHY").
inline int run_app(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Usage errors are bad input too: CLI11's message, then status 2 (0 for --help).
    const int rc = app.exit(e);
    std::fflush(stdout);
    return rc == 0 ? 0 : 2;
  } catch (const Exit& e) {
    std::fflush(stdout);
    return e.code;
  } catch (const banklab::ParseError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "banklab: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    std::fprintf(stderr, "banklab: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "banklab: %s\n", e.what());
    return 2;
  }
  if (std::fflush(stdout) != 0) {
    std::fprintf(stderr, "banklab: cannot write the output\n");
    return 2;
  }
  return 0;
}

}  // namespace banklab::cli
