// The probe: the only grader code compiled together with a student's kernel.cu.
//
// The probe writes the lab's "answers" with a probe::Writer: the predict:: constants, the lab's
// constants, every access function over its whole domain, every shared-memory instruction of the
// kernel as the access functions describe it (32 byte offsets per warp instruction), and the
// launches of the student's launchers. Its main() is generated from the lab's description
// (labs/NN_name/judge/lab.toml -> grader/labNN_probe.hpp); labs/NN_name/judge/probe.cu defines only the
// functions that call the student's code, one per table, instruction and launcher. The probe runs
// in a process of its own, started by banklab-judge in its sandbox with a timeout; what it writes
// to the descriptor the judge gave it (never a file) is data that the judge validates, never a
// verdict.
//
// This header is the probe's interface only: declarations and the few templates that must see
// the student's types. Everything else (writing the answers, the launch capture, the wrapped
// runtime entry points) is grader/probe/probe_runtime.cpp, compiled once with the judge and
// linked into each probe, so a student's build parses no more than the student's own file and
// these lines. No standard header heavier than <type_traits> here: each one costs every build
// of every student's file (grader/judge/build.cpp composes the probe's source). Nothing of the
// judge (the model, GoogleTest) is ever compiled or linked with a student's file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace probe {

/// Format version written on the first line; banklab-judge refuses any other.
inline constexpr int kFormatVersion = 1;

class Writer {
 public:
  /// argv[1] names the answers' channel: "fd:N", a descriptor the judge handed over (a pipe:
  /// nothing crosses back by path), or a file name (to run a probe by hand). The lab number goes
  /// on the header line.
  Writer(int argc, char** argv, const char* lab);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  /// A constant of the lab (TILE_DIM, kPad, kTileBytes, ...).
  void value(const char* name, long long v);
  /// A prediction (a predict:: constant), read as written: an integer type gives its value; any
  /// other type (float, double, bool, an enum) is recorded as "not an integer", never converted
  /// (128.5f is not 128), and the judge says so.
  template <class T>
  void predict(const char* name, const T& v) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= sizeof(long long)) {
      if (std::is_unsigned_v<T> && sizeof(T) == sizeof(long long) && v > static_cast<T>(~0ull >> 1))
        predict_not_integer(name);  // beyond long long: no integer a question allows
      else
        predict_integer(name, static_cast<long long>(v));
    } else {
      predict_not_integer(name);
    }
  }
  void predict_integer(const char* name, long long v);
  void predict_not_integer(const char* name);
  /// A function over a box of integer arguments: f(idx) for every idx in [0, dims) (row-major).
  void table(const char* name, std::initializer_list<int> dims, long long (*f)(const int* idx));
  /// Shared-memory instructions: for every idx in [0, dims), one warp instruction of `op`
  /// ("ld"/"st") and `width` bytes whose lane l accesses byte offset f(idx, l).
  void access(const char* name, const char* op, int width, std::initializer_list<int> dims,
              long long (*f)(const int* idx, int lane));
  /// A launcher call and the launches it made (probe_runtime.cpp's capture), as one record.
  void launch_record(const char* rec, std::size_t size);

 private:
  void* f_ = nullptr;  // the answers' FILE*
  int records_ = 0;
};

namespace launch_detail {

// Fake device pointers: non-canonical x86-64 addresses (nothing can be mapped there, so a
// launcher that dereferences one on the host crashes, and says so). Buffer k starts at
// kFakeBase + (k + 1) * kFakeStride; offsets within +- kFakeStride / 2 are attributed to it.
inline constexpr std::uint64_t kFakeBase = 0x4000000000000000ull;
inline constexpr std::uint64_t kFakeStride = 1ull << 40;
inline constexpr int kMaxBuffers = 8;

/// Where a launch's arguments are written (probe_runtime.cpp): a count, then one entry each.
struct Args;
void arg_count(Args& a, int n);
void arg_pointer(Args& a, const void* p);
void arg_integer(Args& a, long long v);
void arg_unknown(Args& a);  // a type the judge cannot pass (structs, floats): the judge refuses the launch
using Decoder = void (*)(void** args, Args& out);
void register_kernel(const void* host_stub, Decoder decode);

template <class T>
void one_arg(void* slot, Args& out) {
  if constexpr (std::is_pointer_v<T>) {
    arg_pointer(out, *static_cast<const void* const*>(slot));
  } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    T v;
    __builtin_memcpy(&v, slot, sizeof(T));
    arg_integer(out, static_cast<long long>(v));
  } else {
    arg_unknown(out);
  }
}

}  // namespace launch_detail

/// Tells the capture the parameter types of a lab kernel (so its arguments can be recorded).
template <class... P>
void kernel(void (*f)(P...)) {
  launch_detail::register_kernel(reinterpret_cast<const void*>(f), [](void** args, launch_detail::Args& out) {
    launch_detail::arg_count(out, static_cast<int>(sizeof...(P)));
    int i = 0;
    (launch_detail::one_arg<P>(args[i++], out), ...);
    (void)args;
    (void)i;
  });
}

/// The fake device buffers of one launcher call: `ptr<T>(k)` is buffer k.
class Fakes {
 public:
  template <class T>
  T* ptr(int k) const {
    return reinterpret_cast<T*>(launch_detail::kFakeBase + (static_cast<std::uint64_t>(k) + 1) * launch_detail::kFakeStride);
  }
};

/// One call of a launcher with one of its sizes in the lab's description ([[launches]]), named as
/// the GPU tier looks it up (grader_calls::name, e.g. "transpose_256x96"). The generated main()
/// hands it to labs/NN_name/judge/probe.cu's launch_<launcher>(call), which must record it exactly once:
///   call({bytes of buffer 0, ...}, [=](const probe::Fakes& f) { launcher(f.ptr<float>(0), ..., call.size(0)); })
/// The launcher runs in a child process with fake buffers of those sizes; the record says what
/// it launched, or that it crashed, hung or exited (at most 64 launches, 5 seconds).
class Call {
 public:
  Call(Writer& w, const char* launcher, const long long* sizes, int n) : w_(w), launcher_(launcher), sizes_(sizes), n_(n) {}
  /// Size k of this call (e.g. 0: width, 1: height), as the description gives it.
  int size(int k) const;
  /// Records the call: fake device buffers of `bytes` each, on which `launcher` calls the student's launcher.
  template <class F>
  void operator()(std::initializer_list<std::uint64_t> bytes, const F& launcher) const {
    record(bytes, [](const void* fn, const Fakes& fakes) { (*static_cast<const F*>(fn))(fakes); }, &launcher);
  }
  /// Runs the probe's function for this call; false (with the reason on stderr) when it did not
  /// record the call exactly once: a grader bug, never the student's.
  template <class F>
  bool run(F f) const {
    f(*this);
    return recorded_once();
  }

 private:
  void record(std::initializer_list<std::uint64_t> bytes, void (*invoke)(const void*, const Fakes&), const void* fn) const;
  bool recorded_once() const;
  Writer& w_;
  const char* launcher_;
  const long long* sizes_;
  int n_;
  mutable int recorded_ = 0;
};

}  // namespace probe
