// The student's compiled kernels, as the judge launches them: the device code of kernel.cu was
// compiled on its own into a fatbin (banklab-judge build); the judge loads it with
// cudaLibraryLoadFromFile and launches its kernels with its own buffers and launch shapes. No
// host code of the student's runs in the judge's process.
#pragma once

#include <cxxabi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "banklab/cuda_check.cuh"
#include "grader/answers.hpp"
#include "grader/context.hpp"
#include "grader/gpu/device_code.hpp"
#include "grader/launch_calls.hpp"

namespace grader::gpu {

/// A kernel the lab's contract names: its mangled symbol and how a student would write it.
struct KernelName {
  const char* symbol;    ///< e.g. "_ZN5lab0518transpose_swizzledEPfPKfii"
  const char* readable;  ///< e.g. "lab05::transpose_swizzled(float*, const float*, int, int)"
};

namespace detail {

/// The student's compiled kernels as this test holds them: the image read once a test (checked
/// against the hash the build recorded) and the module loaded from it. Every judged call of the
/// student's launcher runs on a module that no launch has used yet (fresh_student_module()), so
/// a `__device__` variable starts from the file's initial value in every judged launch: a kernel
/// that counts its launches, or keeps anything else in its own globals, sees the same state in
/// the traced, the timed and the checked launch.
struct StudentModule {
  bool read = false;
  std::string image, error;
  cudaLibrary_t lib = nullptr;
  bool used = false;  ///< a launch ran on `lib`
  std::map<std::string, cudaKernel_t> kernels;  ///< found in `lib` (no lookup inside a timed run)

  // The image, read and checked once a test ("" and `error` set when it cannot be).
  bool have_image() {
    if (read) return error.empty();
    read = true;
    std::optional<std::string> bytes = grader::built_fatbin();
    if (!bytes) {
      error = "your compiled kernels (" + grader::context().fatbin() +
              ") are missing or are not the ones the build made: not judged";
      return false;
    }
    image = std::move(*bytes);
    // Nothing a judged launch leaves in the context reaches the next (docs/dev/GRADER.md): the
    // device heap would, so code that calls it is not loaded (device_code.hpp says why).
    const DeviceCodeScan scan = scan_device_code(image);
    if (!scan.readable) {
      error = "your compiled kernels (" + grader::context().fatbin() + ") could not be read before loading (" +
              scan.why + "): rebuild the lab (banklab-judge build) and try again";
      return false;
    }
    if (!scan.heap_calls.empty()) {
      std::string calls;
      for (const std::string& c : scan.heap_calls) calls += (calls.empty() ? "" : ", ") + c + "()";
      error = "your device code calls the device heap (" + calls +
              ", or new/delete, in a kernel or a __device__ function): the heap belongs to the GPU's context, "
              "not to one launch, so a block one judged launch leaves there would reach the next, and the judge "
              "does not load such code. Try: keep a kernel's scratch data in registers, local arrays or "
              "__shared__ memory, sized at compile time";
      return false;
    }
    return true;
  }

  // Unloads the module in hand and loads the image again. Under lazy loading (CUDA's default) a
  // module reaches the GPU only when one of its kernels is first used: asking every kernel's
  // attributes loads it now, so that no timed run pays for it.
  cudaError_t reload() {
    if (!have_image()) return cudaErrorInvalidValue;
    if (lib) cudaLibraryUnload(lib);
    lib = nullptr;
    used = false;
    kernels.clear();
    const cudaError_t e = cudaLibraryLoadData(&lib, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e != cudaSuccess) {
      error = "could not load your compiled kernels (" + grader::context().fatbin() + "): " + cudaGetErrorName(e) +
              " (" + cudaGetErrorString(e) + ")";
      cudaGetLastError();
      lib = nullptr;
      return e;
    }
    unsigned n = 0;
    if (cudaLibraryGetKernelCount(&n, lib) == cudaSuccess && n > 0) {
      std::vector<cudaKernel_t> ks(n);
      if (cudaLibraryEnumerateKernels(ks.data(), n, lib) == cudaSuccess)
        for (cudaKernel_t k : ks) {
          cudaFuncAttributes attr{};
          cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(k));
        }
    }
    cudaGetLastError();
    return cudaSuccess;
  }
};

inline StudentModule& student_module() {
  static StudentModule m;  // one test's: forget_student_module() ends it before the next test of the process
  return m;
}

}  // namespace detail

/// Unloads the student's module and forgets the image read: the next test of this process
/// (banklab-judge test judges several in one, grader/judge/run_in_process.cpp) reads, checks and loads
/// its own, as a process of its own would.
inline void forget_student_module() {
  detail::StudentModule& m = detail::student_module();
  if (m.lib) cudaLibraryUnload(m.lib);
  cudaGetLastError();
  m = detail::StudentModule{};
}

/// Makes sure the next judged launch runs on a module no launch has used: loads the student's
/// kernels anew if a launch ran on the module in hand. The timing harness calls it before every
/// timed run, outside the timed region; RecordedCall calls it before every call it replays.
inline cudaError_t fresh_student_module() {
  detail::StudentModule& m = detail::student_module();
  if (m.lib && !m.used) return cudaSuccess;
  return m.reload();
}

/// The student's kernel `symbol` in the module in hand, which the caller is about to launch.
inline cudaError_t student_kernel_for_launch(const char* symbol, cudaKernel_t* out) {
  if (const cudaError_t e = fresh_student_module(); e != cudaSuccess) return e;
  detail::StudentModule& m = detail::student_module();
  auto it = m.kernels.find(symbol);
  if (it == m.kernels.end()) {
    cudaKernel_t k{};
    if (const cudaError_t e = cudaLibraryGetKernel(&k, m.lib, symbol); e != cudaSuccess) {
      cudaGetLastError();
      return e;
    }
    it = m.kernels.emplace(symbol, k).first;
  }
  *out = it->second;
  m.used = true;
  return cudaSuccess;
}

/// The student's library: finds the lab's kernels in it (the process holds one module at a
/// time, see detail::StudentModule).
class StudentLibrary {
 public:
  StudentLibrary() {
    if (fresh_student_module() != cudaSuccess) error_ = detail::student_module().error;
  }
  StudentLibrary(const StudentLibrary&) = delete;
  StudentLibrary& operator=(const StudentLibrary&) = delete;

  /// The kernel, or a failure that says which kernels the file does define. `out` is valid until
  /// the next judged call reloads the module: RecordedCall finds the kernel again by its symbol.
  ::testing::AssertionResult find(const KernelName& k, cudaKernel_t* out) const {
    cudaLibrary_t lib = detail::student_module().lib;
    if (!error_.empty() || !lib) return ::testing::AssertionFailure() << (error_.empty() ? "not loaded" : error_);
    if (cudaLibraryGetKernel(out, lib, k.symbol) == cudaSuccess) return ::testing::AssertionSuccess();
    cudaGetLastError();
    auto f = ::testing::AssertionFailure();
    f << "your file has no kernel " << k.readable
      << ": keep the kernel's name and parameters as the handout gives them (the grader launches it itself).";
    unsigned n = 0;
    if (cudaLibraryGetKernelCount(&n, lib) == cudaSuccess && n > 0) {
      std::vector<cudaKernel_t> ks(n);
      if (cudaLibraryEnumerateKernels(ks.data(), n, lib) == cudaSuccess) {
        f << " It defines:";
        for (cudaKernel_t kk : ks) {
          const char* name = nullptr;
          if (cudaFuncGetName(&name, reinterpret_cast<const void*>(kk)) != cudaSuccess || !name) continue;
          int status = 0;
          char* dem = abi::__cxa_demangle(name, nullptr, nullptr, &status);
          f << " " << (status == 0 && dem ? dem : name) << ";";
          std::free(dem);
        }
      }
    }
    cudaGetLastError();
    return f;
  }

 private:
  std::string error_;
};

/// One of the judge's device buffers, standing for a fake buffer the probe gave a launcher.
struct CallBuffer {
  const void* base;
  std::size_t bytes;
};

/// A launcher call of the student's file, replayed: the launches the student's launcher made when
/// the probe called it (grader/probe/probe_runtime.cpp), run on the judge's own buffers. `ready` says
/// whether it can run, and if not, why (in words for the student).
class RecordedCall {
 public:
  RecordedCall(cudaKernel_t k, const KernelName& name, const std::string& call, const std::string& as_called)
      : symbol_(name.symbol), as_called_(as_called) {
    (void)k;  // found by the caller in the module then in hand; each call finds it again (fresh module)
    c_ = grader::answers().call(call);
    if (!c_) {
      ready = ::testing::AssertionFailure() << "the probe recorded no call " << call << " of your launcher ("
                                            << as_called << "): rebuild the lab (banklab-judge build) and try again";
      return;
    }
    const std::string who = "your launcher, called as " + as_called + " (with fake device pointers, no GPU),";
    if (c_->status == "crashed") {
      ready = ::testing::AssertionFailure()
              << who << " crashed: a launcher only computes the launch shape and launches; it must not read or "
              << "write the device buffers on the host.";
      return;
    }
    if (c_->status == "hung") {
      ready = ::testing::AssertionFailure() << who << " did not return within 5 seconds.";
      return;
    }
    if (c_->status == "exited") {
      ready = ::testing::AssertionFailure() << who << " ended the program instead of returning (an error check that "
                                            << "exits? With no GPU, runtime calls other than the launch fail).";
      return;
    }
    if (c_->launches.empty()) {
      ready = ::testing::AssertionFailure() << who << " launched no kernel: it must launch " << name.readable << ".";
      return;
    }
    for (const grader::Launch& l : c_->launches) {
      if (auto why = l.invalid()) {
        ready = ::testing::AssertionFailure() << who << " launched " << l.describe() << ": " << *why << ".";
        return;
      }
      if (l.kernel != name.symbol) {
        ready = ::testing::AssertionFailure() << who << " launched " << l.describe() << ", not the lab's kernel "
                                              << name.readable << ": the grader judges that kernel.";
        return;
      }
    }
    ready = ::testing::AssertionSuccess();
  }

  ::testing::AssertionResult ready = ::testing::AssertionFailure() << "not recorded";

  /// The block shape of the launch that does the call's work, for the timing reference: the
  /// block of the one launch the call makes. A call of several launches (a decoy launch before
  /// the real one, say) gets `handout`, the judge's own: no launch of the student's chooses the
  /// reference's configuration then. `chosen_by`, when given, says which it was, for messages.
  dim3 work_block(dim3 handout, std::string* chosen_by = nullptr) const {
    if (!c_ || c_->launches.size() != 1) {
      if (chosen_by)
        *chosen_by = "the handout's block (your launcher makes " + std::to_string(c_ ? c_->launches.size() : 0) +
                     " launches, so none of them chooses it)";
      return handout;
    }
    const auto& b = c_->launches.front().block;
    if (chosen_by) *chosen_by = "your block";
    return dim3(static_cast<unsigned>(b[0]), static_cast<unsigned>(b[1]), static_cast<unsigned>(b[2]));
  }
  /// Blocks launched in all.
  long long blocks() const {
    long long n = 0;
    for (const grader::Launch& l : c_->launches) n += static_cast<long long>(l.grid[0] * l.grid[1] * l.grid[2]);
    return n;
  }
  /// "transpose(out, in, 1024, 1024) launched K<<<...>>>" for messages.
  std::string describe() const {
    std::string s = "your launcher " + as_called_ + " launched";
    if (!c_) return s + " nothing the probe recorded";
    for (std::size_t i = 0; i < c_->launches.size(); ++i) s += (i ? ", " : " ") + c_->launches[i].describe();
    return s;
  }

  /// Runs every recorded launch with the judge's buffers in place of the probe's fake ones, on a
  /// module of the student's kernels that no launch has used yet (fresh_student_module()). A
  /// pointer outside its buffer (the judge's own bounds check) is refused before any launch.
  cudaError_t operator()(const std::vector<CallBuffer>& bufs, std::string* why = nullptr) const {
    if (!ready) return cudaErrorInvalidValue;
    for (const grader::Launch& l : c_->launches)
      for (std::size_t i = 0; i < l.args.size(); ++i) {
        const grader::LaunchArg& a = l.args[i];
        if (a.kind == grader::LaunchArg::Kind::Pointer &&
            (a.buffer < 0 || static_cast<std::size_t>(a.buffer) >= bufs.size() || a.value < 0 ||
             static_cast<unsigned long long>(a.value) >= bufs[static_cast<std::size_t>(a.buffer)].bytes)) {
          if (why)
            *why = describe() + ": argument " + std::to_string(i + 1) + " points " + std::to_string(a.value) +
                   " bytes into buffer " + std::to_string(a.buffer + 1) + " of the call, outside it";
          return cudaErrorInvalidValue;
        }
      }
    cudaKernel_t k{};
    if (const cudaError_t e = student_kernel_for_launch(symbol_, &k); e != cudaSuccess) {
      if (why) *why = describe() + ": your compiled kernels could not be loaded: " + cudaGetErrorString(e);
      return e;
    }
    for (const grader::Launch& l : c_->launches) {
      std::vector<unsigned long long> storage(l.args.size());
      std::vector<void*> argv(l.args.size());
      for (std::size_t i = 0; i < l.args.size(); ++i) {
        const grader::LaunchArg& a = l.args[i];
        if (a.kind == grader::LaunchArg::Kind::Pointer) {  // inside its buffer: checked above
          const char* p = static_cast<const char*>(bufs[static_cast<std::size_t>(a.buffer)].base) + a.value;
          std::memcpy(&storage[i], &p, sizeof p);
        } else if (a.kind == grader::LaunchArg::Kind::Integer) {
          storage[i] = static_cast<unsigned long long>(a.value);  // little-endian: an int reads the low bytes
        } else {
          storage[i] = 0;  // a null pointer
        }
        argv[i] = &storage[i];
      }
      const dim3 grid(static_cast<unsigned>(l.grid[0]), static_cast<unsigned>(l.grid[1]), static_cast<unsigned>(l.grid[2]));
      const dim3 block(static_cast<unsigned>(l.block[0]), static_cast<unsigned>(l.block[1]), static_cast<unsigned>(l.block[2]));
      if (l.shared > 48u * 1024u)
        cudaFuncSetAttribute(reinterpret_cast<const void*>(k), cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(l.shared));
      const cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(k), grid, block, argv.data(),
                                             static_cast<std::size_t>(l.shared), nullptr);
      if (e != cudaSuccess) {
        if (why) *why = describe() + ": the launch failed: " + cudaGetErrorString(e);
        return e;
      }
    }
    return cudaSuccess;
  }

 private:
  const char* symbol_ = nullptr;
  const grader::LauncherCall* c_ = nullptr;
  std::string as_called_;
};

/// Launches a kernel of the student's library with the judge's arguments (kernels that have no
/// launcher in kernel.cu, e.g. lab 00's report_banks).
template <class... A>
cudaError_t launch(cudaKernel_t k, dim3 grid, dim3 block, A... args) {
  void* argv[] = {static_cast<void*>(&args)...};
  return cudaLaunchKernel(reinterpret_cast<const void*>(k), grid, block, argv, 0, nullptr);
}

}  // namespace grader::gpu
