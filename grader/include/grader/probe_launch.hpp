// The probe's launch capture: which kernels the student's launchers launch, and how.
//
// The probe runs without a GPU (CUDA_VISIBLE_DEVICES=""). It calls each launcher of kernel.cu
// with fake device pointers; every kernel launch the launcher makes is recorded here instead of
// reaching the CUDA runtime: the kernel (its device symbol, as nvcc registers it), grid, block,
// dynamic shared bytes, and each argument (a pointer as buffer + byte offset into the fake
// buffers, an integer as its value). The judge then launches the student's compiled kernel with
// exactly that shape and those arguments, mapped to its own buffers (docs/dev/GRADER.md).
//
// How: the probe is linked with `--wrap` for the runtime entry points that `<<<>>>` and
// cudaLaunchKernel lower to (nvcc 13: __cudaPushCallConfiguration / __cudaPopCallConfiguration,
// __cudaGetKernel, __cudaLaunchKernel; see crt/host_runtime.h), plus __cudaRegisterFunction for
// the host stub -> device name map. The list of wrapped symbols is kWrappedSymbols below; the
// judge's probe compile (grader/judge/build.cpp) passes `-Xlinker --wrap=NAME` for each.
//
// Each launcher call runs in a forked child with a time limit, so a launcher that crashes,
// dereferences a fake pointer or never returns gives a record saying so, not a broken probe.
#pragma once

#include <cuda_runtime.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace probe {

/// The runtime symbols the probe wraps (banklab-judge passes -Xlinker --wrap=NAME for each).
inline constexpr const char* kWrappedSymbols[] = {
    "__cudaRegisterFunction", "__cudaPushCallConfiguration", "__cudaPopCallConfiguration",
    "__cudaGetKernel",        "__cudaLaunchKernel",          "__cudaLaunchKernel_ptsz",
    "cudaLaunchKernel",       "cudaLaunchKernel_ptsz",       "cudaLaunchKernelExC",
    "cudaLaunchKernelExC_ptsz", "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel_ptsz"};

namespace launch_detail {

// Fake device pointers: non-canonical x86-64 addresses (nothing can be mapped there, so a
// launcher that dereferences one on the host crashes, and says so). Buffer k starts at
// kFakeBase + (k + 1) * kFakeStride; offsets within +- kFakeStride / 2 are attributed to it.
inline constexpr std::uint64_t kFakeBase = 0x4000000000000000ull;
inline constexpr std::uint64_t kFakeStride = 1ull << 40;
inline constexpr int kMaxBuffers = 8;

struct State {
  std::map<const void*, std::string> names;  // host stub -> device symbol (__cudaRegisterFunction)
  std::map<const void*, std::function<void(void**, std::string&)>> decoders;  // host stub -> argument printer
  std::vector<std::uint64_t> buffer_bytes;  // fake buffers of the call in progress
  bool capturing = false;
  std::string out;  // the records of the call in progress
  int launches = 0;
  struct Config {
    dim3 grid, block;
    std::size_t shared;
    void* stream;
  };
  std::vector<Config> configs;  // <<<>>> pushes, the host stub pops
};
inline State& state() {
  static State s;
  return s;
}

inline void pointer_arg(const void* p, std::string& out) {
  const std::uint64_t v = reinterpret_cast<std::uint64_t>(p);
  if (v == 0) {
    out += " z";
    return;
  }
  const auto& bufs = state().buffer_bytes;
  for (std::size_t k = 0; k < bufs.size(); ++k) {
    const std::uint64_t base = kFakeBase + (k + 1) * kFakeStride;
    const long long off = static_cast<long long>(v - base);
    if (off >= -static_cast<long long>(kFakeStride / 2) && off < static_cast<long long>(kFakeStride / 2)) {
      out += " p " + std::to_string(k) + " " + std::to_string(off);
      return;
    }
  }
  out += " q";  // a pointer to something that is not one of the call's buffers
}

template <class T>
void one_arg(void* slot, std::string& out) {
  if constexpr (std::is_pointer_v<T>) {
    pointer_arg(*static_cast<const void* const*>(slot), out);
  } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    T v;
    std::memcpy(&v, slot, sizeof(T));
    out += " i " + std::to_string(static_cast<long long>(v));
  } else {
    out += " ?";  // a type the judge cannot pass (structs, floats): the judge refuses the launch
  }
}

inline void record(const char* api, const void* host_fun, dim3 grid, dim3 block, std::size_t shared, void** args) {
  State& s = state();
  if (!s.capturing) return;
  if (s.launches >= 64) {  // at most 64 launches are kept
    ++s.launches;
    return;
  }
  auto name = s.names.find(host_fun);
  char head[512];
  std::snprintf(head, sizeof head, "L %s %s %u %u %u %u %u %u %llu", api,
                name == s.names.end() ? "?" : name->second.c_str(), grid.x, grid.y, grid.z, block.x, block.y,
                block.z, static_cast<unsigned long long>(shared));
  s.out += head;
  auto dec = s.decoders.find(host_fun);
  if (dec == s.decoders.end() || !args) {
    s.out += " -1";  // arguments unknown: not a kernel this lab's probe describes
  } else {
    std::string a;
    dec->second(args, a);
    s.out += a;
  }
  s.out += "\n";
  ++s.launches;
}

inline std::string safe_name(const std::string& n) {
  std::string o;
  for (char c : n) o += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return o.empty() ? "_" : o;
}

}  // namespace launch_detail

/// Tells the capture the parameter types of a lab kernel (so its arguments can be recorded).
template <class... P>
void kernel(void (*f)(P...)) {
  launch_detail::state().decoders[reinterpret_cast<const void*>(f)] = [](void** args, std::string& out) {
    out += " " + std::to_string(sizeof...(P));
    int i = 0;
    (launch_detail::one_arg<P>(args[i++], out), ...);
  };
}

/// The fake device buffers of one launcher call: `ptr<T>(k)` is buffer k.
class Fakes {
 public:
  template <class T>
  T* ptr(int k) const {
    return reinterpret_cast<T*>(launch_detail::kFakeBase + (static_cast<std::uint64_t>(k) + 1) * launch_detail::kFakeStride);
  }
};

/// Calls `launcher(fakes)` in a child process with fake buffers of `bytes` each and returns the
/// record: "call NAME STATUS NBUF BYTES... NLAUNCH\nL ...\n" (STATUS: ok, crashed, hung,
/// exited). Limited to 64 launches and 5 seconds.
inline std::string capture_call(const std::string& call, std::initializer_list<std::uint64_t> bytes,
                                const std::function<void(const Fakes&)>& launcher) {
  using namespace launch_detail;
  State& s = state();
  s.buffer_bytes.assign(bytes.begin(), bytes.end());
  std::string head = "call " + safe_name(call);
  std::string tail = " " + std::to_string(s.buffer_bytes.size());
  for (std::uint64_t b : s.buffer_bytes) tail += " " + std::to_string(b);
  std::fflush(nullptr);
  int fds[2];
  if (pipe(fds) != 0) return head + " crashed" + tail + " 0\n";
  const pid_t pid = fork();
  if (pid < 0) {  // no second process allowed here: the call runs in the probe itself, unprotected
    close(fds[0]);
    close(fds[1]);
    s.capturing = true;
    s.out.clear();
    s.launches = 0;
    launcher(Fakes{});
    s.capturing = false;
    return head + " ok" + tail + " " + std::to_string(s.launches > 64 ? 64 : s.launches) + "\n" + s.out;  // record() kept 64
  }
  if (pid == 0) {  // the child: run the launcher, write the launches, end without any exit handler
    close(fds[0]);
    s.capturing = true;
    s.out.clear();
    s.launches = 0;
    launcher(Fakes{});
    s.capturing = false;
    std::string msg = std::to_string(s.launches) + "\n" + s.out;
    const char* p = msg.data();
    std::size_t left = msg.size();
    while (left > 0) {
      const ssize_t w = write(fds[1], p, left);
      if (w <= 0) break;
      p += w;
      left -= static_cast<std::size_t>(w);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string got;
  const auto t0 = std::chrono::steady_clock::now();
  bool hung = false;
  for (;;) {
    const double left_ms = 5000.0 - std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (left_ms <= 0) {
      hung = true;
      break;
    }
    pollfd pf{fds[0], POLLIN, 0};
    if (poll(&pf, 1, static_cast<int>(left_ms) + 1) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    if (got.size() < (1u << 20)) got.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  if (hung) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (hung) return head + " hung" + tail + " 0\n";
  if (WIFSIGNALED(status)) return head + " crashed" + tail + " 0\n";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got.empty()) return head + " exited" + tail + " 0\n";
  // got = "N\nL ...\n" ; at most 64 launches are kept
  const std::size_t nl = got.find('\n');
  int n = std::atoi(got.substr(0, nl).c_str());
  std::string lines = nl == std::string::npos ? "" : got.substr(nl + 1);
  if (n > 64) {
    std::size_t pos = 0;
    for (int i = 0; i < 64 && pos != std::string::npos; ++i) pos = lines.find('\n', pos) + 1;
    lines = lines.substr(0, pos);
    n = 64;
  }
  return head + " ok" + tail + " " + std::to_string(n) + "\n" + lines;
}

/// Records launcher call `call` into the answers (see capture_call).
inline void call(Writer& w, const std::string& call, std::initializer_list<std::uint64_t> bytes,
                 const std::function<void(const Fakes&)>& launcher) {
  w.launch_record(capture_call(call, bytes, launcher));
}

/// One call of a launcher with one of its sizes in the lab's description ([[launches]]), named as
/// the GPU tier looks it up (grader_calls::name, e.g. "transpose_256x96"). The generated main()
/// hands it to labs/NN_name/probe.cu's launch_<launcher>(call), which must record it exactly once:
///   call({bytes of buffer 0, ...}, [=](const probe::Fakes& f) { launcher(f.ptr<float>(0), ..., call.size(0)); })
class Call {
 public:
  Call(Writer& w, const char* launcher, const std::vector<long long>& sizes)
      : w_(w), sizes_(sizes), name_(grader_calls::name(launcher, sizes)) {}
  /// Size k of this call (e.g. 0: width, 1: height), as the description gives it.
  int size(int k) const { return static_cast<int>(sizes_.at(static_cast<std::size_t>(k))); }
  /// Records the call: fake device buffers of `bytes` each, on which `launcher` calls the student's launcher.
  void operator()(std::initializer_list<std::uint64_t> bytes, const std::function<void(const Fakes&)>& launcher) const {
    call(w_, name_, bytes, launcher);
    ++recorded_;
  }
  /// Runs the probe's function for this call; false (with the reason on stderr) when it did not
  /// record the call exactly once: a grader bug, never the student's.
  template <class F>
  bool run(F f) const {
    f(*this);
    if (recorded_ == 1) return true;
    std::fprintf(stderr, "probe: the launcher call %s was recorded %d times, not once (labs/NN_name/probe.cu)\n",
                 name_.c_str(), recorded_);
    return false;
  }

 private:
  Writer& w_;
  std::vector<long long> sizes_;
  std::string name_;
  mutable int recorded_ = 0;
};

}  // namespace probe

// ---- the wrapped runtime entry points (linked with -Xlinker --wrap=NAME) ----------------------

extern "C" {
void __real___cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun, const char* device_name,
                                   int thread_limit, uint3* tid, uint3* bid, dim3* bdim, dim3* gdim, int* wsize);

__attribute__((used)) void __wrap___cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun,
                                          const char* device_name, int thread_limit, uint3* tid, uint3* bid,
                                          dim3* bdim, dim3* gdim, int* wsize) {
  if (host_fun && device_name) probe::launch_detail::state().names[host_fun] = device_name;
  __real___cudaRegisterFunction(handle, host_fun, device_fun, device_name, thread_limit, tid, bid, bdim, gdim, wsize);
}

__attribute__((used)) unsigned __wrap___cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st* stream) {
  probe::launch_detail::state().configs.push_back({grid, block, shared, stream});
  return 0;
}

__attribute__((used)) cudaError_t __wrap___cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  auto& c = probe::launch_detail::state().configs;
  if (c.empty()) return cudaErrorMissingConfiguration;
  *grid = c.back().grid;
  *block = c.back().block;
  *shared = c.back().shared;
  *static_cast<void**>(stream) = c.back().stream;
  c.pop_back();
  return cudaSuccess;
}

// The probe's kernel handle is the host stub itself.
__attribute__((used)) cudaError_t __wrap___cudaGetKernel(cudaKernel_t* kernel, const void* host_fun) {
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(host_fun));
  return cudaSuccess;
}

__attribute__((used)) cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t k, dim3 grid, dim3 block, void** args, size_t shared,
                                             cudaStream_t) {
  probe::launch_detail::record("launch", reinterpret_cast<const void*>(k), grid, block, shared, args);
  return cudaSuccess;
}
__attribute__((used)) cudaError_t __wrap___cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 grid, dim3 block, void** args, size_t shared,
                                                  cudaStream_t) {
  probe::launch_detail::record("launch", reinterpret_cast<const void*>(k), grid, block, shared, args);
  return cudaSuccess;
}
__attribute__((used)) cudaError_t __wrap_cudaLaunchKernel(const void* f, dim3 grid, dim3 block, void** args, size_t shared,
                                           cudaStream_t) {
  probe::launch_detail::record("launch", f, grid, block, shared, args);
  return cudaSuccess;
}
__attribute__((used)) cudaError_t __wrap_cudaLaunchKernel_ptsz(const void* f, dim3 grid, dim3 block, void** args, size_t shared,
                                                cudaStream_t) {
  probe::launch_detail::record("launch", f, grid, block, shared, args);
  return cudaSuccess;
}
// Launch APIs the judge does not replay: recorded as such, so the verdict can say so.
__attribute__((used)) cudaError_t __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t* c, const void* f, void** args) {
  if (c) probe::launch_detail::record("ex", f, c->gridDim, c->blockDim, c->dynamicSmemBytes, args);
  return cudaSuccess;
}
__attribute__((used)) cudaError_t __wrap_cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* c, const void* f, void** args) {
  if (c) probe::launch_detail::record("ex", f, c->gridDim, c->blockDim, c->dynamicSmemBytes, args);
  return cudaSuccess;
}
__attribute__((used)) cudaError_t __wrap_cudaLaunchCooperativeKernel(const void* f, dim3 grid, dim3 block, void** args, size_t shared,
                                                      cudaStream_t) {
  probe::launch_detail::record("cooperative", f, grid, block, shared, args);
  return cudaSuccess;
}
__attribute__((used)) cudaError_t __wrap_cudaLaunchCooperativeKernel_ptsz(const void* f, dim3 grid, dim3 block, void** args,
                                                           size_t shared, cudaStream_t) {
  probe::launch_detail::record("cooperative", f, grid, block, shared, args);
  return cudaSuccess;
}
}
