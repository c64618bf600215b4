// The cuBLAS program of issue 24's table: HGEMM, SGEMM and cublasGemmEx (bf16 in, fp32 out, fp32
// compute), each once at 1024 x 1024 x 1024 and once at m x n x k = 512 x 768 x 256, in that order,
// on zero-filled matrices (the data do not change what shared memory the kernels touch).
//   nvcc -O2 -arch=sm_90 -o cublas_gemms bench/cublas_gemms.cu -lcublas
// Traced by `banklab trace` and profiled by Nsight Compute in the same device call
// (bench/experiments/hopper/trace_cublas.sh); docs/perf/trace_cublas_hopper.md compares them.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x)                                                                      \
  do {                                                                                     \
    const cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } \
  } while (0)
#define CHECK_BLAS(x)                                                                      \
  do {                                                                                     \
    const cublasStatus_t s_ = (x);                                                         \
    if (s_ != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "%s: status %d\n", #x, static_cast<int>(s_)); std::exit(1); } \
  } while (0)

int main() {
  const int shapes[2][3] = {{1024, 1024, 1024}, {512, 768, 256}};
  const size_t most = size_t{1024} * 1024 * 4;  // bytes of the largest matrix (fp32 1024 x 1024)
  void *a, *b, *c;
  CHECK_CUDA(cudaMalloc(&a, most));
  CHECK_CUDA(cudaMalloc(&b, most));
  CHECK_CUDA(cudaMalloc(&c, most));
  CHECK_CUDA(cudaMemset(a, 0, most));
  CHECK_CUDA(cudaMemset(b, 0, most));
  CHECK_CUDA(cudaMemset(c, 0, most));
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  for (const auto& s : shapes) {
    const int m = s[0], n = s[1], k = s[2];
    const __half ha = __float2half(1.0f), hb = __float2half(0.0f);
    const float fa = 1.0f, fb = 0.0f;
    CHECK_BLAS(cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &ha, static_cast<const __half*>(a), m,
                           static_cast<const __half*>(b), k, &hb, static_cast<__half*>(c), m));
    CHECK_CUDA(cudaDeviceSynchronize());
    std::printf("hgemm %d x %d x %d done\n", m, n, k);
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, static_cast<const float*>(a), m,
                           static_cast<const float*>(b), k, &fb, static_cast<float*>(c), m));
    CHECK_CUDA(cudaDeviceSynchronize());
    std::printf("sgemm %d x %d x %d done\n", m, n, k);
    CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, a, CUDA_R_16BF, m, b, CUDA_R_16BF, k, &fb, c,
                            CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CHECK_CUDA(cudaDeviceSynchronize());
    std::printf("gemmex bf16->f32 %d x %d x %d done\n", m, n, k);
  }
  CHECK_BLAS(cublasDestroy(h));
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  CHECK_CUDA(cudaFree(c));
  return 0;
}
