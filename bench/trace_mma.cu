// A CuTe/CUTLASS-style tensor-core GEMM tile for `banklab trace` against Nsight Compute:
// cp.async (16-byte, .cg and .ca) global -> shared, ldmatrix.x4 shared -> registers,
// mma.sync.m16n8k16 (f16 in, f32 accumulate). C[M][N] = A[M][K] * B[N][K]^T, 64x64 block tiles,
// 4 warps of 32x32, K tiles of 64 halves = 128-byte rows. Two layouts of the shared tiles:
// row-major (the 8 rows of each 8x8 matrix in one 16-byte bank group: 8-way conflicts) and
// Swizzle<3,4,3> (16-byte chunk c of row r at chunk c ^ (r % 8): conflict-free).
//   trace_mma [M] : runs both kernels on M x M x M, checks C against a CPU reference on 4 entries
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kTile = 64, kKTile = 64, kThreads = 128;

template <bool kSwizzle>
__device__ __forceinline__ unsigned chunk_offset(int row, int chunk) {
  return static_cast<unsigned>(row * 128 + ((kSwizzle ? (chunk ^ (row % 8)) : chunk) * 16));
}

template <bool kSwizzle, bool kBypassL1>
__global__ void __launch_bounds__(kThreads) gemm_mma(const half* A, const half* B, float* C, int M, int N, int K) {
  __shared__ __align__(128) unsigned char sa[kTile * 128], sb[kTile * 128];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int bm = blockIdx.y * kTile, bn = blockIdx.x * kTile;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  float acc[2][4][4] = {};
  const unsigned sa0 = static_cast<unsigned>(__cvta_generic_to_shared(sa));
  const unsigned sb0 = static_cast<unsigned>(__cvta_generic_to_shared(sb));
  for (int k0 = 0; k0 < K; k0 += kKTile) {
    // 64 rows x 8 chunks of 16 bytes per tile: 4 chunks per thread per tile.
    for (int c = threadIdx.x; c < kTile * 8; c += kThreads) {
      const int row = c / 8, chunk = c % 8;
      const half* ga = A + static_cast<size_t>(bm + row) * K + k0 + chunk * 8;
      const half* gb = B + static_cast<size_t>(bn + row) * K + k0 + chunk * 8;
      if (kBypassL1) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa0 + chunk_offset<kSwizzle>(row, chunk)), "l"(ga));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sb0 + chunk_offset<kSwizzle>(row, chunk)), "l"(gb));
      } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(sa0 + chunk_offset<kSwizzle>(row, chunk)), "l"(ga));
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(sb0 + chunk_offset<kSwizzle>(row, chunk)), "l"(gb));
      }
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_all;" ::: "memory");
    __syncthreads();
    for (int kk = 0; kk < kKTile / 16; ++kk) {
      unsigned a[2][4], b[4][2];
      for (int i = 0; i < 2; ++i) {  // A 16x16: lanes 0-15 rows at chunk 2kk, lanes 16-31 at 2kk+1
        const int row = wm + i * 16 + lane % 16, chunk = kk * 2 + lane / 16;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3])
                     : "r"(sa0 + chunk_offset<kSwizzle>(row, chunk)));
      }
      for (int j = 0; j < 4; j += 2) {  // B two n8 x k16: lanes 0-7/8-15 rows n..n+7 chunks 2kk/2kk+1, 16-31 the next 8 rows
        const int row = wn + j * 8 + (lane / 16) * 8 + lane % 8, chunk = kk * 2 + (lane / 8) % 2;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(b[j][0]), "=r"(b[j][1]), "=r"(b[j + 1][0]), "=r"(b[j + 1][1])
                     : "r"(sb0 + chunk_offset<kSwizzle>(row, chunk)));
      }
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                       : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
                       : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      const int r = bm + wm + i * 16 + lane / 4, c = bn + wn + j * 8 + (lane % 4) * 2;
      C[static_cast<size_t>(r) * N + c] = acc[i][j][0];
      C[static_cast<size_t>(r) * N + c + 1] = acc[i][j][1];
      C[static_cast<size_t>(r + 8) * N + c] = acc[i][j][2];
      C[static_cast<size_t>(r + 8) * N + c + 1] = acc[i][j][3];
    }
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  std::vector<half> ha(static_cast<size_t>(n) * n), hb(ha.size());
  for (size_t i = 0; i < ha.size(); ++i) {
    ha[i] = __float2half(static_cast<float>((i * 7) % 13) / 13.0f - 0.5f);
    hb[i] = __float2half(static_cast<float>((i * 5) % 11) / 11.0f - 0.5f);
  }
  half *A, *B;
  float* C;
  cudaMalloc(&A, ha.size() * sizeof(half));
  cudaMalloc(&B, hb.size() * sizeof(half));
  cudaMalloc(&C, ha.size() * sizeof(float));
  cudaMemcpy(A, ha.data(), ha.size() * sizeof(half), cudaMemcpyHostToDevice);
  cudaMemcpy(B, hb.data(), hb.size() * sizeof(half), cudaMemcpyHostToDevice);
  const dim3 grid(n / kTile, n / kTile);
  int bad = 0;
  auto check = [&](const char* name) {
    std::vector<float> hc(ha.size());
    cudaMemcpy(hc.data(), C, hc.size() * sizeof(float), cudaMemcpyDeviceToHost);
    for (int t = 0; t < 4; ++t) {
      const int r = (t * 97) % n, c = (t * 61 + 5) % n;
      double ref = 0;
      for (int k = 0; k < n; ++k)
        ref += static_cast<double>(__half2float(ha[static_cast<size_t>(r) * n + k])) * __half2float(hb[static_cast<size_t>(c) * n + k]);
      if (std::fabs(ref - hc[static_cast<size_t>(r) * n + c]) > 1e-2 * (1 + std::fabs(ref))) ++bad;
    }
    std::printf("%s: %s\n", name, bad ? "WRONG" : "ok");
  };
  gemm_mma<false, true><<<grid, kThreads>>>(A, B, C, n, n, n);
  check("rowmajor_cg");
  gemm_mma<true, true><<<grid, kThreads>>>(A, B, C, n, n, n);
  check("swizzled_cg");
  gemm_mma<false, false><<<grid, kThreads>>>(A, B, C, n, n, n);
  check("rowmajor_ca");
  gemm_mma<true, false><<<grid, kThreads>>>(A, B, C, n, n, n);
  check("swizzled_ca");
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("CUDA error %s\n", cudaGetErrorString(e)); return 1; }
  return bad ? 1 : 0;
}
