/// @file cuda_check.cuh
/// @brief The one always-on error check for CUDA runtime calls.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <sys/stat.h>

#include <cuda_runtime.h>

/// Check a CUDA runtime call; on failure print the file, line, call and CUDA's message, then
/// exit(1). Always on, also in release builds: a GPU error that goes unnoticed makes every
/// later number meaningless.
#define CUDA_CHECK(call)                                                               \
  do {                                                                                 \
    const cudaError_t banklab_err_ = (call);                                           \
    if (banklab_err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: CUDA error %d (%s) in %s: %s\n", __FILE__, __LINE__, \
                   static_cast<int>(banklab_err_), cudaGetErrorName(banklab_err_), #call, \
                   cudaGetErrorString(banklab_err_));                                  \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

namespace banklab {

/// Whether this machine shows an NVIDIA GPU to its kernel at all: the driver's device files
/// (/dev/nvidia0, /dev/nvidiactl) or its /proc entry. Without any of them, CUDA's "driver version
/// is insufficient" means "no GPU here", and is said so.
inline bool nvidia_device_present() {
  struct stat st {};
  for (const char* p : {"/dev/nvidia0", "/dev/nvidiactl", "/proc/driver/nvidia/gpus"})
    if (::stat(p, &st) == 0) return true;
  return false;
}

/// Why no GPU can be used, or an empty string when one can, in plain words: "no GPU on this
/// machine" where none is there (without a driver, cudaGetDeviceCount() returns
/// cudaErrorInsufficientDriver (35), not "0 devices"), else what CUDA said of the GPU that is
/// there. Either leads to a skipped test, never a failed one (graded mode: not graded, a fault).
inline const char* no_gpu_reason() {
  static char reason[320] = {0};
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (!nvidia_device_present() && (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice))
      std::snprintf(reason, sizeof reason, "no GPU on this machine (no NVIDIA device or driver; CUDA: %s)",
                    cudaGetErrorName(e));
    else
      std::snprintf(reason, sizeof reason, "no usable GPU on this machine (CUDA: cudaGetDeviceCount returned %d, %s: %s)",
                    static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e));
    cudaGetLastError();  // clear the sticky error
    return reason;
  }
  if (n == 0) return "no GPU on this machine (CUDA found 0 devices)";
  return "";
}

}  // namespace banklab
