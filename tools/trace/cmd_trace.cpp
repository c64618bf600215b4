// banklab trace: run a program with the tracer injected and report its shared-memory traffic
// per kernel and source line, explained by the bank model.
//   banklab trace [--kernel REGEX] [--out FILE] [--format text|csv|json|predict] -- PROGRAM ARGS...
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "banklab/pattern_io.hpp"
#include "banklab_trace/trace.hpp"
#include "commands.hpp"
#include "trace_command.hpp"

#ifndef BANKLAB_TRACE_INJECT_PATH
#define BANKLAB_TRACE_INJECT_PATH "libbanklab_trace_inject.so"
#endif

namespace banklab::cli {
namespace {

#if !defined(BANKLAB_SANITIZER_HAS_TMA) || !BANKLAB_SANITIZER_HAS_TMA
// What this build's tracer cannot see (docs/perf/trace_cublas_hopper.md).
constexpr const char* kNotTraced =
    "TMA (cp.async.bulk.tensor: UTMALDG / UTMASTG): the Compute Sanitizer API this tracer was built with has no "
    "patch point for it (sanitizer_patching.h lists no SANITIZER_INSTRUCTION_TMA_LOAD / _TMA_STORE; its bulk-copy "
    "points see only cp.async.bulk without .tensor). TMA moves no LSU shared-memory wavefront (measured), so the "
    "wavefront totals above lack nothing for it; its bytes are not reported";
#else
constexpr const char* kNotTraced = "";
#endif

struct TraceOptions {
  std::string kernel, out, format = "text", keep;
  std::vector<std::string> command;
};

bool readable(const std::string& p) { return access(p.c_str(), R_OK) == 0; }

// The injection library: $BANKLAB_TRACE_INJECT, else beside this executable, else where it
// was built.
std::string inject_library() {
  if (const char* e = std::getenv("BANKLAB_TRACE_INJECT"); e && *e) return e;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    std::string dir(self, static_cast<std::size_t>(n));
    dir = dir.substr(0, dir.rfind('/'));
    if (readable(dir + "/libbanklab_trace_inject.so")) return dir + "/libbanklab_trace_inject.so";
    if (readable(dir + "/trace/libbanklab_trace_inject.so")) return dir + "/trace/libbanklab_trace_inject.so";
  }
  return BANKLAB_TRACE_INJECT_PATH;
}

int run_traced(const std::vector<std::string>& command, const std::string& lib, const std::string& out) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) throw ParseError("banklab trace", 0, std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    setenv("CUDA_INJECTION64_PATH", lib.c_str(), 1);
    setenv("BANKLAB_TRACE_OUT", out.c_str(), 1);
    std::vector<char*> argv;
    for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "banklab trace: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

void add_trace_command(CLI::App& app) {
  auto o = std::make_shared<TraceOptions>();
  CLI::App* sub = app.add_subcommand(
      "trace",
      "Run PROGRAM with every shared-memory instruction traced (Compute Sanitizer API, no profiler "
      "permission) and report per kernel and source line: warp instructions, wavefronts, the model's "
      "minimum, the excess, worst lines first. Compile the program with -lineinfo for source lines.");
  sub->add_option("--kernel", o->kernel, "only kernels whose name (mangled or not) matches this regex");
  sub->add_option("--out", o->out, "write the report here instead of stdout");
  sub->add_option("--format", o->format, "text, csv, json, or predict (lines `banklab predict` reads)")
      ->check(CLI::IsMember({"text", "csv", "json", "predict"}));
  sub->add_option("--keep", o->keep, "also keep the binary trace file here");
  sub->add_option("command", o->command, "-- PROGRAM ARGS...")->required();
  sub->callback([o] {
    const std::string lib = inject_library();
    if (!readable(lib)) throw ParseError("banklab trace", 0, "cannot read the tracer library " + lib);
    std::regex filter;
    try {
      if (!o->kernel.empty()) filter = std::regex(o->kernel);
    } catch (const std::regex_error& e) {
      throw ParseError("--kernel", 1, std::string("not a regular expression: ") + e.what());
    }
    std::string file = o->keep;
    if (file.empty()) {
      char tmpl[] = "/tmp/banklab-trace-XXXXXX";
      const int fd = mkstemp(tmpl);
      if (fd < 0) throw ParseError("banklab trace", 0, std::string("cannot make a temporary file: ") + std::strerror(errno));
      close(fd);
      file = tmpl;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = run_traced(o->command, lib, file);
    const auto t1 = std::chrono::steady_clock::now();

    trace::TraceData data;
    {
      std::ifstream in(file, std::ios::binary);
      if (!in) throw ParseError(file, 0, "the traced program wrote no trace (did it make a CUDA call?)");
      try {
        data = trace::read_trace(in);
      } catch (const std::exception& e) {
        throw ParseError(file, 0, std::string(e.what()) + " (did the program exit normally?)");
      }
    }
    if (o->keep.empty()) std::remove(file.c_str());
    std::vector<trace::Instruction> instructions;
    std::vector<trace::Unmodelled> unmodelled;
    std::vector<trace::Traffic> traffic;
    trace::decode(data, instructions, unmodelled, traffic);
    if (!o->kernel.empty()) {
      auto keep = [&](const std::string& k) {
        return std::regex_search(k, filter) || std::regex_search(trace::display_name(k), filter);
      };
      instructions.erase(std::remove_if(instructions.begin(), instructions.end(),
                                        [&](const trace::Instruction& i) { return !keep(i.kernel); }),
                         instructions.end());
      unmodelled.erase(std::remove_if(unmodelled.begin(), unmodelled.end(),
                                      [&](const trace::Unmodelled& u) { return !keep(u.kernel); }),
                       unmodelled.end());
      traffic.erase(std::remove_if(traffic.begin(), traffic.end(),
                                   [&](const trace::Traffic& t) { return !keep(t.kernel); }),
                    traffic.end());
    }
    trace::Report report = trace::aggregate(instructions, unmodelled, traffic, data.dropped);
    report.not_traced = kNotTraced;
    const trace::Format fmt = o->format == "csv" ? trace::Format::Csv
                              : o->format == "json" ? trace::Format::Json
                              : o->format == "predict" ? trace::Format::Predict
                                                       : trace::Format::Text;
    if (o->out.empty()) {
      trace::write_report(std::cout, fmt, report, instructions);
      std::cout.flush();
    } else {
      std::ofstream out(o->out, std::ios::binary | std::ios::trunc);
      trace::write_report(out, fmt, report, instructions);
      if (!out) throw ParseError(o->out, 0, "cannot write the report");
    }
    const auto t2 = std::chrono::steady_clock::now();
    std::uint64_t total = 0;
    for (const auto& r : data.records) total += r.count;
    std::fprintf(stderr, "banklab trace: %llu warp records (%zu distinct) from %zu kernels; program %.3f s, analysis %.3f s\n",
                 static_cast<unsigned long long>(total), data.records.size(), data.kernels.size(),
                 std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count());
    if (rc != 0) {
      std::fprintf(stderr, "banklab trace: %s exited with status %d\n", o->command[0].c_str(), rc);
      throw Exit{rc};
    }
  });
}

}  // namespace banklab::cli
