/// @file calibrate.hpp
/// @brief `banklab calibrate`: re-measure the bank model's facts on the GPU at hand.
///
/// The command builds a pattern set (named cases plus a seeded random set), runs every pattern
/// as one warp executing exactly one shared-memory instruction, counts its wavefronts with
/// Nsight Compute's hardware counters (`ncu` run as a subprocess on this same executable), writes
/// the counts in the format of `common/data/h200_wavefronts_named.csv` plus a `gpu` column, and
/// compares them with the model.
///
/// Exit status (a non-zero status ends the process from the subcommand's callback with
/// std::exit(status), after flushing std::cout and std::cerr, so that it reaches the shell
/// whatever the host program's main() does with exceptions; run_calibrate() only returns it):
///  - 0 every pattern matches the model (also for `--list` and `--dry-run`),
///  - 1 some pattern differs from the model,
///  - 2 the measurement itself failed (ncu missing or failing, bad input, ...),
///  - 3 no GPU can be used here.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace banklab::cli {

/// Add the `calibrate` subcommand to `app`.
void add_calibrate_command(CLI::App& app);

/// Exit statuses of `banklab calibrate`.
inline constexpr int kCalibrateOk = 0;
inline constexpr int kCalibrateMismatch = 1;
inline constexpr int kCalibrateError = 2;
inline constexpr int kCalibrateNoGpu = 3;

/// Everything `banklab calibrate` can be told.
struct CalibrateOptions {
  std::string out = "calibration.csv";  ///< where the measured CSV goes
  int random = 800;                     ///< random patterns on top of the named ones
  std::uint64_t seed = 1;               ///< seed of the random set
  std::string family = "ldst";          ///< ldst, ldsm, stsm, cpasync, atom, or all (the four new ones)
  std::string extra_metrics;            ///< more ncu metrics to collect, comma-separated
  bool list = false;                    ///< print the patterns in `banklab predict` format, stop
  bool dry_run = false;                 ///< say what would run, measure nothing
  std::string backend = "auto";         ///< auto | ncu | cupti (only ncu is implemented)
  std::string ncu;                      ///< path of ncu; empty: PATH, then the CUDA toolkit
  std::string cuobjdump;                ///< path of cuobjdump; empty: PATH, then the CUDA toolkit
  int chunk = 200;                      ///< patterns per ncu process
  int device = 0;                       ///< CUDA device index
  bool check_sass = true;               ///< check the kernels' SASS with cuobjdump first
  std::string log_dir;                  ///< keep pattern files and raw ncu logs here
  std::string compare;                  ///< only compare this measurement CSV with the model
  std::string worker;                   ///< internal: run the patterns of this file (under ncu)
  /// How to start this program's calibrate command again: executable, then subcommand names.
  std::vector<std::string> self_command;
};

/// Run the command; returns the exit status. Normal output goes to `out`, problems to `err`.
int run_calibrate(const CalibrateOptions& options, std::ostream& out, std::ostream& err);

}  // namespace banklab::cli
