// banklab: the command-line face of the bank model. One file per subcommand (cmd_*.cpp).
#include <cstdio>
#include <exception>
#include <new>

#include <CLI/CLI.hpp>

#include "banklab/pattern_io.hpp"
#include "banklab_cli/expr.hpp"
#include "commands.hpp"
#if defined(BANKLAB_HAVE_CALIBRATE)
#include "calibrate/calibrate.hpp"
#endif
#if defined(BANKLAB_HAVE_TRACE)
#include "trace_command.hpp"
#endif

int main(int argc, char** argv) {
  CLI::App app{"banklab: how many wavefronts a warp's shared-memory access takes, and why.\n"
               "Accesses are 'op width mask off0 ... off31': op ld|st, width 1/2/4/8/16 bytes,\n"
               "mask in hex, 32 byte offsets (one per lane)."};
  app.name("banklab");
  app.require_subcommand(1);
  banklab::cli::add_predict_command(app);
  banklab::cli::add_compare_command(app);
  banklab::cli::add_explain_command(app);
#if defined(BANKLAB_HAVE_CALIBRATE)
  banklab::cli::add_calibrate_command(app);
#endif
#if defined(BANKLAB_HAVE_TRACE)
  banklab::cli::add_trace_command(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Usage errors are bad input too: CLI11's message, then status 2 (0 for --help).
    const int rc = app.exit(e);
    std::fflush(stdout);
    return rc == 0 ? 0 : 2;
  } catch (const banklab::cli::Exit& e) {
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
