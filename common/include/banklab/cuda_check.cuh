/// @file cuda_check.cuh
/// @brief The one always-on error check for CUDA runtime calls.
#pragma once

#include <cstdio>
#include <cstdlib>

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

/// Why no GPU can be used, or an empty string when one can. Without a driver,
/// cudaGetDeviceCount() returns cudaErrorInsufficientDriver (35), not "0 devices"; both mean
/// "no GPU here" and must lead to a skipped test, never a failed one.
inline const char* no_gpu_reason() {
  static char reason[256] = {0};
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    std::snprintf(reason, sizeof reason, "no usable CUDA device: cudaGetDeviceCount returned %d (%s: %s)",
                  static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e));
    cudaGetLastError();  // clear the sticky error
    return reason;
  }
  if (n == 0) return "no CUDA device found (cudaGetDeviceCount returned 0 devices)";
  return "";
}

}  // namespace banklab
