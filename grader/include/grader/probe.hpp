// The probe: the only grader code compiled together with a student's kernel.cu.
//
// The probe writes the lab's "answers" with a probe::Writer: the predict:: constants, the lab's
// constants, every access function over its whole domain, every shared-memory instruction of the
// kernel as the access functions describe it (32 byte offsets per warp instruction), and the
// launches of the student's launchers. Its main() is generated from the lab's description
// (labs/NN_name/lab.toml -> grader/labNN_description.hpp, section BANKLAB_PROBE); labs/NN_name/probe.cu
// defines only the functions that call the student's code, one per table, instruction and launcher. The probe runs in a process of its own,
// started by banklab-judge in its sandbox with a timeout; what it writes to the descriptor the judge
// gave it (never a file) is data that the judge validates,
// never a verdict. This header uses the standard library only, so nothing of the judge (the
// model, GoogleTest) is ever compiled with a student's file.
#pragma once

/// Turns on the probe's part of the generated lab description (grader/labNN_description.hpp).
#define BANKLAB_PROBE 1

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

namespace probe {

/// Format version written on the first line; banklab-judge refuses any other.
inline constexpr int kFormatVersion = 1;

class Writer {
 public:
  /// argv[1] names the answers' channel: "fd:N", a descriptor the judge handed over (a pipe:
  /// nothing crosses back by path), or a file name (to run a probe by hand). The lab number goes
  /// on the header line.
  Writer(int argc, char** argv, const char* lab) {
    if (argc < 2) std::exit(2);
    const char* a = argv[1];
    f_ = a[0] == 'f' && a[1] == 'd' && a[2] == ':' ? fdopen(std::atoi(a + 3), "w") : std::fopen(a, "w");
    if (!f_) std::exit(3);
    std::fprintf(f_, "banklab-answers %d lab %s\n", kFormatVersion, lab);
  }
  ~Writer() {
    std::fprintf(f_, "end %d\n", records_);
    std::fclose(f_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  /// A constant of the lab (TILE_DIM, kPad, kTileBytes, ...).
  void value(const char* name, long long v) { record("value", name, v); }
  /// A prediction (a predict:: constant).
  void predict(const char* name, long long v) { record("predict", name, v); }

  /// A function over a box of integer arguments: f(idx) for every idx in [0, dims) (row-major).
  template <class F>
  void table(const char* name, std::initializer_list<int> dims, F f) {
    begin("table", name, dims, nullptr, 0);
    for_each(std::vector<int>(dims), [&](const int* idx) { std::fprintf(f_, " %lld", static_cast<long long>(f(idx))); });
    finish();
  }

  /// A launcher call and the launches it made, as probe::capture_call wrote them
  /// (grader/probe_launch.hpp).
  void launch_record(const std::string& rec) {
    std::fputs(rec.c_str(), f_);
    std::fflush(f_);
    ++records_;
  }

  /// Shared-memory instructions: for every idx in [0, dims), one warp instruction of `op`
  /// ("ld"/"st") and `width` bytes whose lane l accesses byte offset f(idx, l).
  template <class F>
  void access(const char* name, const char* op, int width, std::initializer_list<int> dims, F f) {
    begin("access", name, dims, op, width);
    for_each(std::vector<int>(dims), [&](const int* idx) {
      for (int lane = 0; lane < 32; ++lane) std::fprintf(f_, " %lld", static_cast<long long>(f(idx, lane)));
    });
    finish();
  }

 private:
  void record(const char* kind, const char* name, long long v) {
    std::fprintf(f_, "%s %s %lld\n", kind, name, v);
    std::fflush(f_);  // a later crash or hang still leaves what was written, and where it stopped
    ++records_;
  }
  void begin(const char* kind, const char* name, std::initializer_list<int> dims, const char* op, int width) {
    // "begin" first, flushed: if evaluating the function crashes or never ends, the judge can
    // say which function it was.
    std::fprintf(f_, "begin %s\n", name);
    std::fflush(f_);
    std::fprintf(f_, "%s %s", kind, name);
    if (op) std::fprintf(f_, " %s %d", op, width);
    std::fprintf(f_, " %d", static_cast<int>(dims.size()));
    for (int d : dims) std::fprintf(f_, " %d", d);
    std::fprintf(f_, "\n");
  }
  void finish() {
    std::fprintf(f_, "\n");
    std::fflush(f_);
    ++records_;
  }
  template <class G>
  static void for_each(const std::vector<int>& dims, G g) {
    std::vector<int> idx(dims.size(), 0);
    for (int d : dims)
      if (d <= 0) return;
    for (;;) {
      g(idx.data());
      int k = static_cast<int>(dims.size()) - 1;
      while (k >= 0 && ++idx[static_cast<std::size_t>(k)] == dims[static_cast<std::size_t>(k)]) idx[static_cast<std::size_t>(k--)] = 0;
      if (k < 0) return;
    }
  }

  std::FILE* f_ = nullptr;
  int records_ = 0;
};

}  // namespace probe

#include "grader/launch_calls.hpp"
#include "grader/probe_launch.hpp"
