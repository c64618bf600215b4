// Issue 32 item 7: why a conflict-free lab 06 kernel (launch bounds, #pragma unroll, a swizzle of
// shifts and masks) takes 1.12x the grader's reference. Times, interleaved and with a clean L2,
// the reference, the solution and the alternative (each built into this program from the case's
// kernel.cu: -DSOL_FILE, -DALT_FILE), each alone and capped to a number of resident blocks per SM
// with unused dynamic shared memory; prints registers and blocks per SM of each.
//   nvcc -std=c++17 -O3 -arch=sm_90 -Icommon/include -DSOL_FILE=... -DALT_FILE=... -DREF_FILE=... -DPAD_FILE=... bench/experiments/lab06_occupancy/lab06_occupancy.cu
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

#include "banklab/hardware.hpp"

namespace sol {
#include SOL_FILE
}
namespace alt {
#include ALT_FILE
}
namespace ref {
#include REF_FILE
}
namespace pad {  // the solution with a padded layout (bench/experiments/lab06_occupancy/lab06_occupancy.sh) whose every ldmatrix is conflicted
#include PAD_FILE
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

using Kern = void (*)(float*, const __half*, const __half*, int, int, int);

int blocks_per_sm(Kern k, std::size_t dyn) {
  int n = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, reinterpret_cast<const void*>(k), 128, dyn));
  return n;
}
// The least dynamic shared memory that brings k down to `target` blocks per SM (0 when already).
std::size_t pad_for(Kern k, int target) {
  for (std::size_t d = 0; d <= 200 * 1024; d += 256) {
    if (d > 48 * 1024) CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(k), cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(d)));
    if (blocks_per_sm(k, d) <= target) return d;
  }
  return 0;
}

int main() {
  const int m = 2048, n = 2048, k = 4096;
  std::vector<__half> ha(static_cast<std::size_t>(m) * k), hb(static_cast<std::size_t>(n) * k);
  unsigned s = 1;
  for (auto& v : ha) { s = s * 1664525u + 1013904223u; v = __float2half(static_cast<float>((s >> 16) % 17) - 8.0f); }
  for (auto& v : hb) { s = s * 1664525u + 1013904223u; v = __float2half(static_cast<float>((s >> 16) % 17) - 8.0f); }
  __half *a, *b; float *c, *cr; unsigned char* flush;
  const std::size_t flush_n = 256ull << 20;  // 256 MiB: more than the L2 of any Hopper
  CK(cudaMalloc(&a, ha.size() * 2)); CK(cudaMalloc(&b, hb.size() * 2));
  CK(cudaMalloc(&c, 4ull * m * n)); CK(cudaMalloc(&cr, 4ull * m * n)); CK(cudaMalloc(&flush, flush_n));
  CK(cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
  struct V { const char* name; Kern k; int cap; };
  const Kern kr = ref::reference_gemm<64>, ks = sol::lab06::gemm_ldmatrix, ka = alt::lab06::gemm_ldmatrix,
             kp = pad::lab06::gemm_ldmatrix;
  for (auto [nm, kk] : {std::pair<const char*, Kern>{"reference", kr}, {"solution", ks}, {"alternative", ka}, {"padded, conflicted", kp}}) {
    cudaFuncAttributes at{};
    CK(cudaFuncGetAttributes(&at, reinterpret_cast<const void*>(kk)));
    std::printf("%-12s %3d registers, %zu B static shared, %d blocks/SM\n", nm, at.numRegs, at.sharedSizeBytes, blocks_per_sm(kk, 0));
  }
  const int occ_ref = blocks_per_sm(kr, 0);
  std::vector<V> vs = {{"reference", kr, 0}, {"solution", ks, 0}, {"alternative", ka, 0},
                       {"alternative capped to ref's blocks/SM", ka, occ_ref},
                       {"reference capped to 5/SM", kr, 5}, {"alternative capped to 5/SM", ka, 5},
                       {"solution, padded (conflicted ldmatrix)", kp, 0}};
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const dim3 grid(n / 64, m / 64);
  std::vector<std::size_t> pads;
  for (auto& v : vs) pads.push_back(v.cap ? pad_for(v.k, v.cap) : 0);
  // the reference's product, for checking every variant once
  ref::reference_gemm<64><<<grid, 128>>>(cr, a, b, m, n, k); CK(cudaDeviceSynchronize());
  std::vector<float> want(static_cast<std::size_t>(m) * n), got(want.size());
  CK(cudaMemcpy(want.data(), cr, 4ull * m * n, cudaMemcpyDeviceToHost));
  std::vector<std::vector<double>> t(vs.size());
  for (int rep = -1; rep < 31; ++rep)
    for (std::size_t i = 0; i < vs.size(); ++i) {
      CK(cudaMemset(flush, rep & 0xff, flush_n));
      CK(cudaEventRecord(e0));
      vs[i].k<<<grid, 128, pads[i]>>>(c, a, b, m, n, k);
      CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
      float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1));
      if (rep < 0) {
        CK(cudaMemcpy(got.data(), c, 4ull * m * n, cudaMemcpyDeviceToHost));
        if (got != want) { std::printf("%s: WRONG product\n", vs[i].name); return 1; }
      } else t[i].push_back(ms);
    }
  for (std::size_t i = 0; i < vs.size(); ++i) {
    std::sort(t[i].begin(), t[i].end());
    std::sort(t[0].begin(), t[0].end());
    const double med = t[i][15], ref0 = t[0][15];
    std::printf("%-40s pad %6zu B, %d blocks/SM: median %.4f ms (min %.4f), %.3fx the reference\n", vs[i].name, pads[i],
                blocks_per_sm(vs[i].k, pads[i]), med, t[i][0], med / ref0);
  }
  return 0;
}
