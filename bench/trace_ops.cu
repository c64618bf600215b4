// Kernels that reach shared memory through ldmatrix, stmatrix, cp.async and shared atomics, each
// with a known layout: what `banklab trace` must model, compared with Nsight Compute
// (bench/trace_model_device.sh). Each kernel runs 4 blocks of 64 threads, 3 times its instruction.
#include <cstdio>
#include <cuda_runtime.h>

namespace {

constexpr int kBlocks = 4, kThreads = 64, kReps = 3;

__device__ __forceinline__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// Lane i gives row i % 8 of matrix i / 8; rows of 128 bytes (half[.][64]); matrix m at chunk m.
__device__ __forceinline__ unsigned rowmajor(unsigned lane) { return (lane % 8) * 128u + (lane / 8) * 16u; }
// The same rows, chunks XOR-swizzled with the row (Swizzle<3,4,3>).
__device__ __forceinline__ unsigned swizzled(unsigned lane) { return (lane % 8) * 128u + (((lane / 8) ^ (lane % 8)) & 7u) * 16u; }

#define LDSM_KERNEL(NAME, SHAPE, OUTS, ADDR)                                                      \
  __global__ void NAME(unsigned* out) {                                                           \
    __shared__ __align__(128) unsigned char tile[4096];                                           \
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) tile[i] = static_cast<unsigned char>(i); \
    __syncthreads();                                                                              \
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;                              \
    const unsigned a = smem_addr(tile) + warp * 1024u + (ADDR);                                   \
    unsigned r0 = 0, r1 = 0, r2 = 0, r3 = 0, acc = 0;                                             \
    for (int k = 0; k < kReps; ++k) {                                                             \
      asm volatile("ldmatrix.sync.aligned.m8n8." SHAPE ".shared.b16 " OUTS ", [%4];"             \
                   : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");               \
      acc += r0 ^ r1 ^ r2 ^ r3;                                                                   \
    }                                                                                             \
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;                                             \
  }
LDSM_KERNEL(ldsm_x4_rowmajor, "x4", "{%0,%1,%2,%3}", rowmajor(lane))
LDSM_KERNEL(ldsm_x4_swizzled, "x4", "{%0,%1,%2,%3}", swizzled(lane))
LDSM_KERNEL(ldsm_x4_trans_rowmajor, "x4.trans", "{%0,%1,%2,%3}", rowmajor(lane))
LDSM_KERNEL(ldsm_x2_rowmajor, "x2", "{%0,%1}", rowmajor(lane))
LDSM_KERNEL(ldsm_x1_rowmajor, "x1", "{%0}", rowmajor(lane))
LDSM_KERNEL(ldsm_x4_packed, "x4", "{%0,%1,%2,%3}", lane * 16u)

#define STSM_KERNEL(NAME, SHAPE, INS, ADDR)                                                       \
  __global__ void NAME(unsigned* out) {                                                           \
    __shared__ __align__(128) unsigned char tile[4096];                                           \
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;                              \
    const unsigned a = smem_addr(tile) + warp * 1024u + (ADDR);                                   \
    for (int k = 0; k < kReps; ++k)                                                               \
      asm volatile("stmatrix.sync.aligned.m8n8." SHAPE ".shared.b16 [%0], " INS ";"              \
                   ::"r"(a), "r"(lane + k), "r"(lane), "r"(lane + 2u), "r"(lane + 3u) : "memory"); \
    __syncthreads();                                                                              \
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x * 7 % 4096];                    \
  }
STSM_KERNEL(stsm_x4_rowmajor, "x4", "{%1,%2,%3,%4}", rowmajor(lane))
STSM_KERNEL(stsm_x4_swizzled, "x4", "{%1,%2,%3,%4}", swizzled(lane))
STSM_KERNEL(stsm_x2_trans_rowmajor, "x2.trans", "{%1,%2}", rowmajor(lane))

#define CPASYNC_KERNEL(NAME, CACHE, BYTES, DST)                                                   \
  __global__ void NAME(const unsigned char* src, unsigned* out) {                                 \
    __shared__ __align__(128) unsigned char buf[16384];                                           \
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;                              \
    for (int k = 0; k < kReps; ++k) {                                                             \
      const unsigned d = smem_addr(buf) + warp * 4096u + (DST);                                   \
      asm volatile("cp.async." CACHE ".shared.global [%0], [%1], " #BYTES ";"                    \
                   ::"r"(d), "l"(src + threadIdx.x * 16 + k * 1024) : "memory");                \
      asm volatile("cp.async.commit_group;" ::: "memory");                                       \
    }                                                                                             \
    asm volatile("cp.async.wait_all;" ::: "memory");                                             \
    __syncthreads();                                                                              \
    out[blockIdx.x * blockDim.x + threadIdx.x] = buf[threadIdx.x * 5];                            \
  }
CPASYNC_KERNEL(cpasync16_cg_rows, "cg", 16, lane * 16u)
CPASYNC_KERNEL(cpasync16_ca_column, "ca", 16, lane * 128u)
CPASYNC_KERNEL(cpasync8_ca_stride2, "ca", 8, lane * 16u)
CPASYNC_KERNEL(cpasync4_ca_column, "ca", 4, lane * 128u)

__global__ void atom32_histogram(const unsigned* keys, unsigned* out) {
  __shared__ unsigned hist[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) hist[i] = 0;
  __syncthreads();
  for (int k = 0; k < kReps; ++k) atomicAdd(&hist[keys[threadIdx.x + 64 * k] % 256], 1u);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = hist[threadIdx.x];
}
__global__ void atom32_sameword_value(unsigned* out) {
  __shared__ unsigned total[4];
  if (threadIdx.x < 4) total[threadIdx.x] = 0;
  __syncthreads();
  unsigned old = 0;
  for (int k = 0; k < kReps; ++k) old += atomicAdd(&total[0], threadIdx.x + k);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = old + total[0];
}
__global__ void atom64_stride(unsigned* out) {
  __shared__ unsigned long long cell[64 * 4];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) cell[i] = 0;
  __syncthreads();
  for (int k = 0; k < kReps; ++k) atomicAdd(&cell[(threadIdx.x * 4 + k) % 256], 1ull + threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<unsigned>(cell[threadIdx.x]);
}
__global__ void atom32_cas_column(unsigned* out) {
  __shared__ unsigned grid[32 * 32];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) grid[i] = 0;
  __syncthreads();
  for (int k = 0; k < kReps; ++k) atomicCAS(&grid[(threadIdx.x % 32) * 32 + k], 0u, threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = grid[threadIdx.x];
}

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main() {
  unsigned* out = nullptr;
  unsigned char* src = nullptr;
  unsigned* keys = nullptr;
  if (!check(cudaMalloc(&out, kBlocks * kThreads * sizeof(unsigned)), "cudaMalloc") ||
      !check(cudaMalloc(&src, 1 << 16), "cudaMalloc") || !check(cudaMalloc(&keys, 1024 * sizeof(unsigned)), "cudaMalloc"))
    return 1;
  unsigned host_keys[1024];
  for (unsigned i = 0; i < 1024; ++i) host_keys[i] = (i * 2654435761u) >> 7;
  cudaMemcpy(keys, host_keys, sizeof host_keys, cudaMemcpyHostToDevice);
  cudaMemset(src, 1, 1 << 16);
  ldsm_x4_rowmajor<<<kBlocks, kThreads>>>(out);
  ldsm_x4_swizzled<<<kBlocks, kThreads>>>(out);
  ldsm_x4_trans_rowmajor<<<kBlocks, kThreads>>>(out);
  ldsm_x2_rowmajor<<<kBlocks, kThreads>>>(out);
  ldsm_x1_rowmajor<<<kBlocks, kThreads>>>(out);
  ldsm_x4_packed<<<kBlocks, kThreads>>>(out);
  stsm_x4_rowmajor<<<kBlocks, kThreads>>>(out);
  stsm_x4_swizzled<<<kBlocks, kThreads>>>(out);
  stsm_x2_trans_rowmajor<<<kBlocks, kThreads>>>(out);
  cpasync16_cg_rows<<<kBlocks, kThreads>>>(src, out);
  cpasync16_ca_column<<<kBlocks, kThreads>>>(src, out);
  cpasync8_ca_stride2<<<kBlocks, kThreads>>>(src, out);
  cpasync4_ca_column<<<kBlocks, kThreads>>>(src, out);
  atom32_histogram<<<kBlocks, kThreads>>>(keys, out);
  atom32_sameword_value<<<kBlocks, kThreads>>>(out);
  atom64_stride<<<kBlocks, kThreads>>>(out);
  atom32_cas_column<<<kBlocks, kThreads>>>(out);
  if (!check(cudaDeviceSynchronize(), "kernels")) return 1;
  std::printf("trace_ops: 17 kernels ran\n");
  return 0;
}
