// A tiny driver that launches every lab kernel through its own launcher, for `banklab trace`
// and Nsight Compute to look at the same launches (bench/trace_vs_ncu.sh). Built against
// labs/ (the stubs) or solutions/ by the include path:
//   nvcc -lineinfo -arch=sm_90 -I common/include -I labs      lab_driver.cu -o lab_driver_stubs
//   nvcc -lineinfo -arch=sm_90 -I common/include -I solutions lab_driver.cu -o lab_driver_solutions
// Usage: lab_driver [LAB|all] [SCALE] [REPEAT]   (LAB: 00 ... 06; SCALE multiplies the sizes)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "00_bank_mapping/kernel.cu"
#include "01_32way_conflict/kernel.cu"
#include "02_broadcast/kernel.cu"
#include "03_vector_lds/kernel.cu"
#include "04_padding/kernel.cu"
#include "05_swizzle/kernel.cu"
#include "06_ldmatrix/kernel.cu"

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } \
  } while (0)

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "all";
  const int scale = argc > 2 ? std::atoi(argv[2]) : 1;
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 1;
  const std::size_t bytes = std::size_t(64) << 20;  // every buffer: far more than any launch reads
  void *a = nullptr, *b = nullptr, *c = nullptr;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&c, bytes));
  CHECK(cudaMemset(a, 0, bytes));
  auto f = [](void* p) { return static_cast<float*>(p); };
  auto want = [&](const char* lab) { return which == "all" || which == lab; };
  const int n = 256 * scale;  // a size every launcher accepts (a multiple of 32, 128, 256, tiles)
  for (int r = 0; r < repeat; ++r) {
    if (want("00")) {
      lab00::multiply_by_i_tiles(f(a), f(b), 8 * scale);
      lab00::report_banks<<<1, 32>>>(static_cast<int*>(c));
    }
    if (want("01")) lab01::row_sums_launch(f(a), f(b), n);
    if (want("02")) lab02::eval_channels_launch(f(a), f(b), f(c), 16 * n);
    if (want("03")) lab03::split_pairs(static_cast<float4*>(b), static_cast<float4*>(c), static_cast<const float4*>(a), n);
    if (want("04")) lab04::transpose(f(b), f(a), n, n);
    if (want("05")) {
      lab05::transpose(f(b), f(a), n, n);
      lab05::transpose4(static_cast<float4*>(b), static_cast<const float4*>(a), n / 4, n / 4);
    }
    if (want("06"))  // c (n x n floats) = a * b^T, a and b n x n halves (the same zeroed buffer)
      lab06::gemm(f(c), static_cast<const __half*>(a), static_cast<const __half*>(a), n, n, n);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  return 0;
}
