// Kernels whose shared-memory work is the shared atomics beyond atomicAdd (the family atomop of
// `banklab calibrate`): what `banklab trace` must model, compared with Nsight Compute
// (bench/experiments/shared_atomics/atomics_device.sh). Each kernel runs 4 blocks of 64 threads, 3 times its atomic.
#include <cstdio>
#include <cuda_runtime.h>

namespace {

constexpr int kBlocks = 4, kThreads = 64, kReps = 3;

#define ZERO(ARR, N)                                                   \
  for (int i = threadIdx.x; i < (N); i += blockDim.x) ARR[i] = 0;      \
  __syncthreads();

__global__ void a32_exch_column(unsigned* out) {
  __shared__ unsigned grid[32 * 33];
  ZERO(grid, 32 * 33)
  unsigned old = 0;
  for (int k = 0; k < kReps; ++k) old += atomicExch(&grid[(threadIdx.x % 32) * 32 + k], threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = old + grid[threadIdx.x];
}
__global__ void a32_min_sameword(unsigned* out) {
  __shared__ unsigned cell[4];
  if (threadIdx.x < 4) cell[threadIdx.x] = ~0u;
  __syncthreads();
  unsigned old = 0;
  for (int k = 0; k < kReps; ++k) old += atomicMin(&cell[0], threadIdx.x + 7u * k);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = old + cell[0];
}
__global__ void a32_max_share2(int* out) {
  __shared__ int cell[64];
  ZERO(cell, 64)
  int old = 0;
  for (int k = 0; k < kReps; ++k) old += atomicMax(&cell[(threadIdx.x % 32) / 2 + 16 * k], static_cast<int>(threadIdx.x) - 9);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = old + cell[threadIdx.x];
}
__global__ void a32_or_unused_histogram(const unsigned* keys, unsigned* out) {
  __shared__ unsigned bits[256];
  ZERO(bits, 256)
  for (int k = 0; k < kReps; ++k) atomicOr(&bits[keys[threadIdx.x + 64 * k] % 256], 1u << (threadIdx.x % 32));
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = bits[threadIdx.x];
}
__global__ void a32_inc_histogram(const unsigned* keys, unsigned* out) {
  __shared__ unsigned hist[64];
  ZERO(hist, 64)
  unsigned old = 0;
  for (int k = 0; k < kReps; ++k) old += atomicInc(&hist[keys[threadIdx.x + 64 * k] % 64], 1000u);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = old + hist[threadIdx.x];
}
__global__ void a32_add_unused_value(const unsigned* keys, unsigned* out) {
  __shared__ unsigned hist[256];
  ZERO(hist, 256)
  for (int k = 0; k < kReps; ++k) atomicAdd(&hist[keys[threadIdx.x + 64 * k] % 256], keys[threadIdx.x] & 7u);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = hist[threadIdx.x];
}
// A float histogram, as PyTorch's histc keeps one in shared memory: atomicAdd on a float.
__global__ void f32_add_histogram(const unsigned* keys, float* out) {
  __shared__ float hist[256];
  ZERO(hist, 256)
  for (int k = 0; k < kReps; ++k) atomicAdd(&hist[keys[threadIdx.x + 64 * k] % 256], 1.0f);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = hist[threadIdx.x];
}
__global__ void f32_add_sameword_value(float* out) {
  __shared__ float total[4];
  if (threadIdx.x < 4) total[threadIdx.x] = 0.f;
  __syncthreads();
  float old = 0.f;
  for (int k = 0; k < kReps; ++k) old += atomicAdd(&total[0], 0.5f * threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = old + total[0];
}
__global__ void a64_exch_stride(unsigned* out) {
  __shared__ unsigned long long cell[64 * 4];
  ZERO(cell, 256)
  unsigned long long old = 0;
  for (int k = 0; k < kReps; ++k) old += atomicExch(&cell[(threadIdx.x * 4 + k) % 256], 1ull + threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<unsigned>(old + cell[threadIdx.x]);
}
__global__ void a64_cas_column(unsigned* out) {
  __shared__ unsigned long long grid[16 * 16];
  ZERO(grid, 256)
  unsigned long long old = 0;
  for (int k = 0; k < kReps; ++k) old += atomicCAS(&grid[(threadIdx.x % 16) * 16 + k], 0ull, 1ull + threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<unsigned>(old + grid[threadIdx.x]);
}
__global__ void a64_min_share4(unsigned* out) {
  __shared__ unsigned long long cell[64];
  for (int i = threadIdx.x; i < 64; i += blockDim.x) cell[i] = ~0ull;
  __syncthreads();
  unsigned long long old = 0;
  for (int k = 0; k < kReps; ++k) old += atomicMin(&cell[(threadIdx.x % 32) / 4 + 8 * k], 1ull + threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<unsigned>(old + cell[threadIdx.x]);
}
__global__ void f64_add_stride(double* out) {
  __shared__ double cell[64 * 4];
  ZERO(cell, 256)
  for (int k = 0; k < kReps; ++k) atomicAdd(&cell[(threadIdx.x * 2 + k) % 256], 1.0 + threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = cell[threadIdx.x];
}

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main() {
  unsigned* out = nullptr;
  unsigned* keys = nullptr;
  if (!check(cudaMalloc(&out, kBlocks * kThreads * sizeof(double)), "cudaMalloc") ||
      !check(cudaMalloc(&keys, 1024 * sizeof(unsigned)), "cudaMalloc"))
    return 1;
  unsigned host_keys[1024];
  for (unsigned i = 0; i < 1024; ++i) host_keys[i] = (i * 2654435761u) >> 7;
  cudaMemcpy(keys, host_keys, sizeof host_keys, cudaMemcpyHostToDevice);
  a32_exch_column<<<kBlocks, kThreads>>>(out);
  a32_min_sameword<<<kBlocks, kThreads>>>(out);
  a32_max_share2<<<kBlocks, kThreads>>>(reinterpret_cast<int*>(out));
  a32_or_unused_histogram<<<kBlocks, kThreads>>>(keys, out);
  a32_inc_histogram<<<kBlocks, kThreads>>>(keys, out);
  a32_add_unused_value<<<kBlocks, kThreads>>>(keys, out);
  f32_add_histogram<<<kBlocks, kThreads>>>(keys, reinterpret_cast<float*>(out));
  f32_add_sameword_value<<<kBlocks, kThreads>>>(reinterpret_cast<float*>(out));
  a64_exch_stride<<<kBlocks, kThreads>>>(out);
  a64_cas_column<<<kBlocks, kThreads>>>(out);
  a64_min_share4<<<kBlocks, kThreads>>>(out);
  f64_add_stride<<<kBlocks, kThreads>>>(reinterpret_cast<double*>(out));
  if (!check(cudaDeviceSynchronize(), "kernels")) return 1;
  std::printf("trace_atomics: 12 kernels ran\n");
  return 0;
}
