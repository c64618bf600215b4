// A small program for `banklab trace` to look at: a naive and a padded tiled transpose.
//   banklab trace -- trace_demo [N]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

template <int kPad>
__global__ void transpose_tile(float* out, const float* in, int n) {
  __shared__ float tile[32][32 + kPad];
  const int x = blockIdx.x * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) tile[j][threadIdx.x] = in[(blockIdx.y * 32 + j) * n + x];
  __syncthreads();
  const int ox = blockIdx.y * 32 + threadIdx.x;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) out[(blockIdx.x * 32 + j) * n + ox] = tile[threadIdx.x][j];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, sizeof(float) * n * n) != cudaSuccess || cudaMalloc(&out, sizeof(float) * n * n) != cudaSuccess) {
    std::fprintf(stderr, "trace_demo: cudaMalloc failed\n");
    return 1;
  }
  const dim3 grid(n / 32, n / 32), block(32, 8);
  transpose_tile<0><<<grid, block>>>(out, in, n);
  transpose_tile<1><<<grid, block>>>(out, in, n);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("trace_demo: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
