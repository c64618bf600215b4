// The probe's runtime: what every lab's probe links besides the student's file and the lab's
// generated main() (grader/include/grader/probe.hpp is its interface). Compiled once, with the
// judge (grader/CMakeLists.txt: banklab_probe_runtime); banklab-judge hands the archive to each
// probe's link in its sandbox (grader/judge/build.cpp), so no student's build parses this file.
//
// The answers: probe::Writer writes the records banklab-judge reads (grader/judge/answers.cpp).
//
// The launch capture: which kernels the student's launchers launch, and how. The probe runs
// without a GPU (CUDA_VISIBLE_DEVICES=""). It calls each launcher of kernel.cu with fake device
// pointers; every kernel launch the launcher makes is recorded here instead of reaching the CUDA
// runtime: the kernel (its device symbol, as nvcc registers it), grid, block, dynamic shared
// bytes, and each argument (a pointer as buffer + byte offset into the fake buffers, an integer
// as its value). The judge then launches the student's compiled kernel with exactly that shape
// and those arguments, mapped to its own buffers (docs/dev/GRADER.md).
//
// How: the probe is linked with `--wrap` for the runtime entry points that `<<<>>>` and
// cudaLaunchKernel lower to (grader/include/grader/probe_wraps.hpp lists them; the judge's probe
// link passes `-Xlinker --wrap=NAME` for each), plus __cudaRegisterFunction for the host stub ->
// device name map.
//
// Each launcher call runs in a forked child with a time limit, so a launcher that crashes,
// dereferences a fake pointer or never returns gives a record saying so, not a broken probe.
#include "grader/probe.hpp"

#include <cuda_runtime.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "grader/launch_calls.hpp"
#include "grader/probe_wraps.hpp"

namespace probe {

namespace launch_detail {
namespace {

struct State {
  std::map<const void*, std::string> names;  // host stub -> device symbol (__cudaRegisterFunction)
  std::map<const void*, Decoder> decoders;  // host stub -> argument printer (probe::kernel)
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
State& state() {
  static State s;
  return s;
}

void pointer_arg(const void* p, std::string& out) {
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

}  // namespace

struct Args {
  std::string text;
};
void arg_count(Args& a, int n) { a.text += " " + std::to_string(n); }
void arg_pointer(Args& a, const void* p) { pointer_arg(p, a.text); }
void arg_integer(Args& a, long long v) { a.text += " i " + std::to_string(v); }
void arg_unknown(Args& a) { a.text += " ?"; }
void register_kernel(const void* host_stub, Decoder decode) { state().decoders[host_stub] = decode; }

namespace {

void record(const char* api, const void* host_fun, dim3 grid, dim3 block, std::size_t shared, void** args) {
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
    Args a;
    dec->second(args, a);
    s.out += a.text;
  }
  s.out += "\n";
  ++s.launches;
}

std::string safe_name(const std::string& n) {
  std::string o;
  for (char c : n) o += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return o.empty() ? "_" : o;
}

/// Calls `launcher(fakes)` in a child process with fake buffers of `bytes` each and returns the
/// record: "call NAME STATUS NBUF BYTES... NLAUNCH\nL ...\n" (STATUS: ok, crashed, hung,
/// exited). Limited to 64 launches and 5 seconds.
std::string capture_call(const std::string& call, std::initializer_list<std::uint64_t> bytes,
                         void (*invoke)(const void*, const Fakes&), const void* fn) {
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
    invoke(fn, Fakes{});
    s.capturing = false;
    return head + " ok" + tail + " " + std::to_string(s.launches > 64 ? 64 : s.launches) + "\n" + s.out;  // record() kept 64
  }
  if (pid == 0) {  // the child: run the launcher, write the launches, end without any exit handler
    close(fds[0]);
    s.capturing = true;
    s.out.clear();
    s.launches = 0;
    invoke(fn, Fakes{});
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

}  // namespace
}  // namespace launch_detail

// ---- probe::Writer ----------------------------------------------------------------------------

namespace {
std::FILE* file_of(void* f) { return static_cast<std::FILE*>(f); }

// Every index of the box [0, dims) in row-major order.
template <class G>
void for_each(std::initializer_list<int> box, G g) {
  const std::vector<int> dims(box);
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

// "begin" first, flushed: if evaluating the function crashes or never ends, the judge can say
// which function it was.
void begin(std::FILE* f, const char* kind, const char* name, std::initializer_list<int> dims, const char* op, int width) {
  std::fprintf(f, "begin %s\n", name);
  std::fflush(f);
  std::fprintf(f, "%s %s", kind, name);
  if (op) std::fprintf(f, " %s %d", op, width);
  std::fprintf(f, " %d", static_cast<int>(dims.size()));
  for (int d : dims) std::fprintf(f, " %d", d);
  std::fprintf(f, "\n");
}
}  // namespace

Writer::Writer(int argc, char** argv, const char* lab) {
  if (argc < 2) std::exit(2);
  const char* a = argv[1];
  f_ = a[0] == 'f' && a[1] == 'd' && a[2] == ':' ? fdopen(std::atoi(a + 3), "w") : std::fopen(a, "w");
  if (!f_) std::exit(3);
  std::fprintf(file_of(f_), "banklab-answers %d lab %s\n", kFormatVersion, lab);
}

Writer::~Writer() {
  std::fprintf(file_of(f_), "end %d\n", records_);
  std::fclose(file_of(f_));
}

void Writer::value(const char* name, long long v) {
  std::fprintf(file_of(f_), "value %s %lld\n", name, v);
  std::fflush(file_of(f_));  // a later crash or hang still leaves what was written, and where it stopped
  ++records_;
}

void Writer::predict_integer(const char* name, long long v) {
  std::fprintf(file_of(f_), "predict %s %lld\n", name, v);
  std::fflush(file_of(f_));
  ++records_;
}

void Writer::predict_not_integer(const char* name) {
  std::fprintf(file_of(f_), "predict %s not-integer\n", name);
  std::fflush(file_of(f_));
  ++records_;
}

void Writer::table(const char* name, std::initializer_list<int> dims, long long (*f)(const int*)) {
  std::FILE* out = file_of(f_);
  begin(out, "table", name, dims, nullptr, 0);
  for_each(dims, [&](const int* idx) { std::fprintf(out, " %lld", f(idx)); });
  std::fprintf(out, "\n");
  std::fflush(out);
  ++records_;
}

void Writer::access(const char* name, const char* op, int width, std::initializer_list<int> dims,
                    long long (*f)(const int*, int)) {
  std::FILE* out = file_of(f_);
  begin(out, "access", name, dims, op, width);
  for_each(dims, [&](const int* idx) {
    for (int lane = 0; lane < 32; ++lane) std::fprintf(out, " %lld", f(idx, lane));
  });
  std::fprintf(out, "\n");
  std::fflush(out);
  ++records_;
}

void Writer::launch_record(const char* rec, std::size_t size) {
  std::fwrite(rec, 1, size, file_of(f_));
  std::fflush(file_of(f_));
  ++records_;
}

// ---- probe::Call ------------------------------------------------------------------------------

int Call::size(int k) const {
  if (k < 0 || k >= n_) {
    std::fprintf(stderr, "probe: size %d of launcher %s asked for; the description gives %d (labs/NN_name/judge/probe.cu)\n", k,
                 launcher_, n_);
    std::abort();
  }
  return static_cast<int>(sizes_[k]);
}

namespace {
// The call's name as the launch records and the GPU tier know it ("launcher(w, h)").
std::string call_name(const char* launcher, const long long* sizes, int n) {
  return grader_calls::name(launcher, std::vector<long long>(sizes, sizes + n));
}
}  // namespace

void Call::record(std::initializer_list<std::uint64_t> bytes, void (*invoke)(const void*, const Fakes&), const void* fn) const {
  const std::string rec = launch_detail::capture_call(call_name(launcher_, sizes_, n_), bytes, invoke, fn);
  w_.launch_record(rec.data(), rec.size());
  ++recorded_;
}

bool Call::recorded_once() const {
  if (recorded_ == 1) return true;
  std::fprintf(stderr, "probe: the launcher call %s was recorded %d times, not once (labs/NN_name/judge/probe.cu)\n",
               call_name(launcher_, sizes_, n_).c_str(), recorded_);
  return false;
}

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
