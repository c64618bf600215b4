// The student's compiled kernels, as the judge launches them: the device code of kernel.cu was
// compiled on its own into a fatbin (banklab-judge build); the judge loads it with
// cudaLibraryLoadFromFile and launches its kernels with its own buffers and launch shapes. No
// host code of the student's runs in the judge's process.
#pragma once

#include <cxxabi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "banklab/cuda_check.cuh"
#include "grader/context.hpp"

namespace grader::gpu {

/// A kernel the lab's contract names: its mangled symbol and how a student would write it.
struct KernelName {
  const char* symbol;    ///< e.g. "_ZN5lab0518transpose_swizzledEPfPKfii"
  const char* readable;  ///< e.g. "lab05::transpose_swizzled(float*, const float*, int, int)"
};

class StudentLibrary {
 public:
  StudentLibrary() {
    // Loaded from memory after checking the bytes against the hash the build recorded: what
    // runs is what was compiled from the student's file, whatever changed on disk since.
    std::optional<std::string> image = grader::built_fatbin();
    if (!image) {
      error_ = "your compiled kernels (" + grader::context().fatbin() +
               ") are missing or are not the ones the build made: not judged";
      return;
    }
    image_ = std::move(*image);
    const cudaError_t e = cudaLibraryLoadData(&lib_, image_.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e != cudaSuccess) {
      error_ = "could not load your compiled kernels (" + grader::context().fatbin() + "): " + cudaGetErrorName(e) + " (" +
               cudaGetErrorString(e) + ")";
      cudaGetLastError();
      lib_ = nullptr;
    }
  }
  ~StudentLibrary() {
    if (lib_) cudaLibraryUnload(lib_);
  }
  StudentLibrary(const StudentLibrary&) = delete;
  StudentLibrary& operator=(const StudentLibrary&) = delete;

  /// The kernel, or a failure that says which kernels the file does define.
  ::testing::AssertionResult find(const KernelName& k, cudaKernel_t* out) const {
    if (!lib_) return ::testing::AssertionFailure() << error_;
    if (cudaLibraryGetKernel(out, lib_, k.symbol) == cudaSuccess) return ::testing::AssertionSuccess();
    cudaGetLastError();
    auto f = ::testing::AssertionFailure();
    f << "your file has no kernel " << k.readable
      << ": keep the kernel's name and parameters as the handout gives them (the grader launches it itself).";
    unsigned n = 0;
    if (cudaLibraryGetKernelCount(&n, lib_) == cudaSuccess && n > 0) {
      std::vector<cudaKernel_t> ks(n);
      if (cudaLibraryEnumerateKernels(ks.data(), n, lib_) == cudaSuccess) {
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
  cudaLibrary_t lib_ = nullptr;
  std::string image_;
  std::string error_;
};

/// Launches a kernel of the student's library with the judge's arguments.
template <class... A>
cudaError_t launch(cudaKernel_t k, dim3 grid, dim3 block, A... args) {
  void* argv[] = {static_cast<void*>(&args)...};
  return cudaLaunchKernel(reinterpret_cast<const void*>(k), grid, block, argv, 0, nullptr);
}

}  // namespace grader::gpu
