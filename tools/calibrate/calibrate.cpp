// `banklab calibrate`: measure the pattern set with hardware counters and compare with the model.
#include "calibrate.hpp"

#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "patterns.hpp"
#include "results.hpp"
#include "worker.hpp"

#ifndef BANKLAB_CUDA_BIN_DIR
#define BANKLAB_CUDA_BIN_DIR "/usr/local/cuda/bin"
#endif

namespace banklab::cli {
namespace {

namespace fs = std::filesystem;
using namespace banklab::calibrate;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

// A program given by path, else on PATH, else in the CUDA toolkit's bin folder.
std::string find_program(const std::string& given, const std::string& name) {
  if (!given.empty()) return is_executable(given) ? given : std::string();
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (!dir.empty() && is_executable(dir + "/" + name)) return dir + "/" + name;
  }
  for (const char* dir : {BANKLAB_CUDA_BIN_DIR, "/usr/local/cuda/bin"})
    if (is_executable(std::string(dir) + "/" + name)) return std::string(dir) + "/" + name;
  return "";
}

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

std::string shell_quote(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    if (a.find_first_of(" \t'\"$\\") == std::string::npos && !a.empty()) {
      s += a;
    } else {
      s += '\'';
      for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
      s += '\'';
    }
  }
  return s;
}

// Run argv with stdout and stderr into `log`; returns the exit status (or 128 + signal, or -1).
int run_process(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    std::_Exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::vector<std::string> worker_command(const CalibrateOptions& o, const std::string& pattern_file) {
  std::vector<std::string> cmd = o.self_command;
  if (cmd.empty()) cmd = {self_exe(), "calibrate"};
  cmd.push_back("--worker");
  cmd.push_back(pattern_file);
  cmd.push_back("--device");
  cmd.push_back(std::to_string(o.device));
  return cmd;
}

std::vector<std::string> ncu_command(const CalibrateOptions& o, const std::string& ncu, const std::string& log_file,
                                     const std::string& pattern_file, const std::vector<Pattern>& patterns) {
  std::string metrics = metric_list(patterns);
  if (!o.extra_metrics.empty()) metrics += "," + o.extra_metrics;
  std::vector<std::string> cmd = {ncu, "--clock-control", "none", "--cache-control", "none",
                                  "--metrics", metrics, "--csv", "--print-units", "base",
                                  "--log-file", log_file};
  for (auto& a : worker_command(o, pattern_file)) cmd.push_back(a);
  return cmd;
}

int run_worker(const CalibrateOptions& o, std::ostream& err) {
  std::vector<Pattern> patterns;
  try {
    patterns = parse_pattern_list(read_text(o.worker), o.worker);
  } catch (const std::exception& e) {
    err << "banklab calibrate --worker: " << e.what() << "\n";
    return kCalibrateError;
  }
  const std::string reason = gpu_unavailable_reason();
  if (!reason.empty()) {
    err << "banklab calibrate --worker: " << reason << "\n";
    return kCalibrateNoGpu;
  }
  return run_patterns_on_gpu(patterns, o.device, err) == 0 ? kCalibrateOk : kCalibrateError;
}

int run_compare(const std::string& file, std::ostream& out, std::ostream& err) {
  std::vector<Measurement> rows;
  try {
    rows = read_measurements_file(file);
  } catch (const std::exception& e) {
    err << "banklab calibrate: " << e.what() << "\n";
    return kCalibrateError;
  }
  return compare_with_model(rows, out) == 0 ? kCalibrateOk : kCalibrateMismatch;
}

bool sass_ok(const CalibrateOptions& o, const std::string& work, std::ostream& out, std::ostream& err) {
  const std::string cuobjdump = find_program(o.cuobjdump, "cuobjdump");
  if (cuobjdump.empty()) {
    err << "banklab calibrate: warning: cuobjdump not found, the kernels' SASS is not checked\n";
    return true;
  }
  const std::string log = work + "/sass.txt";
  const int rc = run_process({cuobjdump, "-sass", self_exe()}, log);
  if (rc != 0) {
    err << "banklab calibrate: " << cuobjdump << " -sass failed (exit " << rc << "):\n" << read_text(log);
    return false;
  }
  const auto problems = check_sass(parse_sass(read_text(log)));
  for (const auto& p : problems) err << "banklab calibrate: SASS check: " << p << "\n";
  if (problems.empty())
    out << "SASS check: each of the " << all_kernel_names().size()
        << " kernels runs exactly one shared-memory instruction of its kind and width\n";
  return problems.empty();
}

}  // namespace

int run_calibrate(const CalibrateOptions& o, std::ostream& out, std::ostream& err) {
  if (!o.worker.empty()) return run_worker(o, err);
  if (!o.compare.empty()) return run_compare(o.compare, out, err);

  if (o.random < 0 || o.chunk <= 0) {
    err << "banklab calibrate: --random must be >= 0 and --chunk > 0\n";
    return kCalibrateError;
  }
  std::vector<Pattern> patterns;
  try {
    if (o.family == "all") {
      for (const char* f : kFamilies) {
        const auto v = family_patterns(f, o.random, o.seed);
        patterns.insert(patterns.end(), v.begin(), v.end());
      }
    } else {
      patterns = family_patterns(o.family, o.random, o.seed);
    }
  } catch (const std::exception& e) {
    err << "banklab calibrate: " << e.what() << "\n";
    return kCalibrateError;
  }
  for (const Pattern& p : patterns)
    if (auto e = validate(p.access)) {
      err << "banklab calibrate: internal error: pattern " << p.id << " is invalid: " << *e << "\n";
      return kCalibrateError;
    }
  if (o.list) {
    out << format_pattern_list(patterns);
    return kCalibrateOk;
  }
  if (o.backend == "cupti") {
    err << "banklab calibrate: the CUPTI backend is not implemented in this build; use --backend ncu (or auto)\n";
    return kCalibrateError;
  }
  const std::string ncu = find_program(o.ncu, "ncu");
  const std::size_t chunks = (patterns.size() + static_cast<std::size_t>(o.chunk) - 1) / static_cast<std::size_t>(o.chunk);
  if (o.dry_run) {
    out << patterns.size() << " patterns (family " << o.family << ", " << o.random
        << " random with seed " << o.seed << " per family), in " << chunks << " ncu run(s) of at most " << o.chunk << "\n";
    out << "each run: "
        << shell_quote(ncu_command(o, ncu.empty() ? "ncu" : ncu, "<work>/ncu_<k>.csv", "<work>/patterns_<k>.txt", patterns)) << "\n";
    out << "then: write " << o.out << " and compare it with the model\n";
    if (ncu.empty()) out << "note: ncu was not found (PATH, " BANKLAB_CUDA_BIN_DIR ")\n";
    const std::string reason = gpu_unavailable_reason();
    out << "GPU: " << (reason.empty() ? "available" : reason) << "\n";
    return kCalibrateOk;
  }

  const std::string reason = gpu_unavailable_reason();
  if (!reason.empty()) {
    err << "banklab calibrate: cannot measure: " << reason << ".\n"
        << "Nothing was measured. Run it on a machine with an NVIDIA GPU, driver and Nsight Compute "
           "(ncu); `banklab calibrate --list` shows the patterns without one.\n";
    return kCalibrateNoGpu;
  }
  std::string error;
  const std::string gpu = gpu_name(o.device, error);
  if (gpu.empty()) {
    err << "banklab calibrate: " << error << "\n";
    return kCalibrateError;
  }
  if (o.backend != "auto" && o.backend != "ncu") {
    err << "banklab calibrate: unknown backend '" << o.backend << "'\n";
    return kCalibrateError;
  }
  if (ncu.empty()) {
    err << "banklab calibrate: ncu (Nsight Compute) not found on PATH or in " BANKLAB_CUDA_BIN_DIR
           "; give its path with --ncu\n";
    return kCalibrateError;
  }

  // Where the pattern files and ncu's logs go.
  std::string work = o.log_dir;
  bool remove_work = false;
  if (work.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "banklab-calibrate-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) {
      err << "banklab calibrate: cannot create a temporary folder\n";
      return kCalibrateError;
    }
    work = tmpl;
    remove_work = true;
  } else {
    std::error_code ec;
    fs::create_directories(work, ec);
  }
  struct Cleanup {
    std::string dir;
    bool on;
    ~Cleanup() {
      std::error_code ec;
      if (on) fs::remove_all(dir, ec);
    }
  } cleanup{work, remove_work};

  out << "GPU " << o.device << ": " << gpu << "\n";
  if (o.check_sass && !sass_ok(o, work, out, err)) return kCalibrateError;

  out << "measuring " << patterns.size() << " patterns with " << ncu << " in " << chunks << " run(s)\n" << std::flush;
  std::vector<Measurement> rows;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t first = c * static_cast<std::size_t>(o.chunk);
    const std::size_t last = std::min(patterns.size(), first + static_cast<std::size_t>(o.chunk));
    const std::vector<Pattern> part(patterns.begin() + static_cast<long>(first), patterns.begin() + static_cast<long>(last));
    const std::string pfile = work + "/patterns_" + std::to_string(c) + ".txt";
    const std::string log = work + "/ncu_" + std::to_string(c) + ".csv";
    const std::string cout_log = work + "/ncu_" + std::to_string(c) + ".out";
    std::ofstream(pfile) << format_pattern_list(part);
    const auto cmd = ncu_command(o, ncu, log, pfile, part);
    const int rc = run_process(cmd, cout_log);
    const std::string text = read_text(log) + "\n" + read_text(cout_log);
    if (text.find("ERR_NVGPUCTRPERM") != std::string::npos) {
      err << "banklab calibrate: this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM); see "
             "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n";
      return kCalibrateError;
    }
    std::vector<Measurement> got;
    try {
      if (rc != 0) throw std::runtime_error("ncu exited with status " + std::to_string(rc));
      got = to_measurements(part, parse_ncu_csv(text), gpu);
    } catch (const std::exception& e) {
      err << "banklab calibrate: run " << c + 1 << "/" << chunks << " failed: " << e.what() << "\n  command: "
          << shell_quote(cmd) << "\n  output (end):\n"
          << text.substr(text.size() > 4000 ? text.size() - 4000 : 0) << "\n";
      return kCalibrateError;
    }
    rows.insert(rows.end(), got.begin(), got.end());
    {  // what is measured so far, so that an interrupted run still leaves its data
      std::ofstream f(o.out);
      write_measurements_csv(f, rows);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out << "  run " << c + 1 << "/" << chunks << ": " << rows.size() << "/" << patterns.size() << " patterns measured ("
        << static_cast<int>(s) << " s)\n"
        << std::flush;
  }
  for (std::size_t k = 0; k < rows.size(); ++k) rows[k].line = static_cast<long>(k) + 2;
  {
    std::ofstream f(o.out);
    write_measurements_csv(f, rows);
    if (!f) {
      err << "banklab calibrate: cannot write " << o.out << "\n";
      return kCalibrateError;
    }
  }
  out << "wrote " << rows.size() << " measurements to " << o.out << "\n";
  return compare_with_model(rows, out) == 0 ? kCalibrateOk : kCalibrateMismatch;
}

void add_calibrate_command(CLI::App& app) {
  auto opts = std::make_shared<CalibrateOptions>();
  auto no_sass = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Re-measure the model's facts on this GPU: run every pattern as one warp-wide shared-memory instruction, "
      "count its wavefronts with Nsight Compute (ncu), write a CSV and compare it with the model. "
      "Exit status: 0 all match, 1 some differ, 2 measurement failed, 3 no GPU.");
  cmd->add_option("--out,-o", opts->out, "measurement CSV to write")->capture_default_str();
  cmd->add_option("--random", opts->random, "random patterns on top of the named cases")->capture_default_str();
  cmd->add_option("--seed", opts->seed, "seed of the random patterns")->capture_default_str();
  cmd->add_option("--family", opts->family,
                  "instruction family: ldst (LDS/STS, named cases + --random), ldsm, stsm, cpasync, atom "
                  "(atom.add, red.add), atomop (the other shared atomics: exch, min, max, and, or, xor, inc, dec, "
                  "cas, red of a register, float add; 64-bit exch, cas, min, or, double add) (named cases + "
                  "--random each), or all five")
      ->check(CLI::IsMember({"ldst", "ldsm", "stsm", "cpasync", "atom", "atomop", "all"}))
      ->capture_default_str();
  cmd->add_option("--extra-metrics", opts->extra_metrics, "more ncu metrics to collect (comma-separated; kept in --log-dir)");
  cmd->add_flag("--list", opts->list, "print the patterns in `banklab predict` line format (no GPU needed)");
  cmd->add_flag("--dry-run", opts->dry_run, "say what would be measured and how, measure nothing");
  cmd->add_option("--backend", opts->backend, "how to read the counters: auto or ncu (cupti: not implemented)")
      ->check(CLI::IsMember({"auto", "ncu", "cupti"}))
      ->capture_default_str();
  cmd->add_option("--ncu", opts->ncu, "path of ncu (default: PATH, then the CUDA toolkit)");
  cmd->add_option("--cuobjdump", opts->cuobjdump, "path of cuobjdump (default: PATH, then the CUDA toolkit)");
  cmd->add_option("--chunk", opts->chunk, "patterns per ncu process")->capture_default_str();
  cmd->add_option("--device", opts->device, "CUDA device index")->capture_default_str();
  cmd->add_flag("--no-sass-check", *no_sass, "do not check the kernels' SASS with cuobjdump first");
  cmd->add_option("--log-dir", opts->log_dir, "keep the pattern files, SASS listing and raw ncu output here");
  cmd->add_option("--compare", opts->compare, "compare this measurement CSV with the model and stop (no GPU needed)");
  cmd->add_option("--worker", opts->worker, "internal: run the patterns of this file on the GPU")->group("");
  cmd->callback([opts, no_sass, cmd]() {
    CalibrateOptions o = *opts;
    o.check_sass = !*no_sass;
    // How to start this same subcommand again (for the worker under ncu).
    std::vector<std::string> names;
    for (const CLI::App* a = cmd; a != nullptr && a->get_parent() != nullptr; a = a->get_parent())
      names.insert(names.begin(), a->get_name());
    o.self_command = {self_exe()};
    o.self_command.insert(o.self_command.end(), names.begin(), names.end());
    const int rc = run_calibrate(o, std::cout, std::cerr);
    std::cout << std::flush;
    std::cerr << std::flush;
    // The status must reach the shell whatever the host program's main() does with exceptions
    // (banklab's main maps every CLI11 error to 2): end the process here.
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace banklab::cli
