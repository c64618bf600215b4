// The kernels of `banklab calibrate`: each runs ONE shared-memory instruction for one warp.
#include "worker.hpp"

#include <algorithm>
#include <cstdint>
#include <ostream>

#include "banklab/cuda_check.cuh"
#include "banklab/model.hpp"

namespace banklab::calibrate {
namespace {

// Lane `threadIdx.x` takes part when bit lane of `mask` is set; its address is the base of
// dynamic shared memory plus offsets[lane]. The instruction is inline PTX with .volatile, so the
// compiler neither removes nor merges it; the SASS check of calibrate verifies one LDS/STS.
#define BANKLAB_CAL_PROLOGUE                                                              \
  extern __shared__ __align__(16) unsigned char smem[];                                   \
  const unsigned lane = threadIdx.x;                                                      \
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem)) + offsets[lane]; \
  const bool active = (mask >> lane) & 1u;

__global__ void banklab_cal_ld_w1(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  unsigned x = 0;
  if (active) asm volatile("ld.volatile.shared.u8 %0, [%1];" : "=r"(x) : "r"(addr) : "memory");
  if (x == 0x9e3779b9u) sink[lane] = x;
}
__global__ void banklab_cal_ld_w2(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  unsigned x = 0;
  if (active) asm volatile("ld.volatile.shared.u16 %0, [%1];" : "=r"(x) : "r"(addr) : "memory");
  if (x == 0x9e3779b9u) sink[lane] = x;
}
__global__ void banklab_cal_ld_w4(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  unsigned x = 0;
  if (active) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(addr) : "memory");
  if (x == 0x9e3779b9u) sink[lane] = x;
}
__global__ void banklab_cal_ld_w8(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  unsigned x = 0, y = 0;
  if (active) asm volatile("ld.volatile.shared.v2.u32 {%0,%1}, [%2];" : "=r"(x), "=r"(y) : "r"(addr) : "memory");
  if ((x ^ y) == 0x9e3779b9u) sink[lane] = x;
}
__global__ void banklab_cal_ld_w16(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  unsigned x = 0, y = 0, z = 0, w = 0;
  if (active)
    asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(addr) : "memory");
  if ((x ^ y ^ z ^ w) == 0x9e3779b9u) sink[lane] = x;
}
__global__ void banklab_cal_st_w1(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  (void)sink;
  if (active) asm volatile("st.volatile.shared.u8 [%0], %1;" ::"r"(addr), "r"(lane) : "memory");
}
__global__ void banklab_cal_st_w2(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  (void)sink;
  if (active) asm volatile("st.volatile.shared.u16 [%0], %1;" ::"r"(addr), "r"(lane) : "memory");
}
__global__ void banklab_cal_st_w4(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  (void)sink;
  if (active) asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(addr), "r"(lane) : "memory");
}
__global__ void banklab_cal_st_w8(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  (void)sink;
  if (active) asm volatile("st.volatile.shared.v2.u32 [%0], {%1,%2};" ::"r"(addr), "r"(lane), "r"(lane + 1u) : "memory");
}
__global__ void banklab_cal_st_w16(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  (void)sink;
  if (active)
    asm volatile("st.volatile.shared.v4.u32 [%0], {%1,%2,%3,%4};" ::"r"(addr), "r"(lane), "r"(lane + 1u),
                 "r"(lane + 2u), "r"(lane + 3u) : "memory");
}

using Kernel = void (*)(const unsigned*, unsigned, unsigned*);

Kernel kernel_for(Op op, int width) {
  const bool ld = op == Op::Load;
  switch (width) {
    case 1: return ld ? banklab_cal_ld_w1 : banklab_cal_st_w1;
    case 2: return ld ? banklab_cal_ld_w2 : banklab_cal_st_w2;
    case 4: return ld ? banklab_cal_ld_w4 : banklab_cal_st_w4;
    case 8: return ld ? banklab_cal_ld_w8 : banklab_cal_st_w8;
    case 16: return ld ? banklab_cal_ld_w16 : banklab_cal_st_w16;
    default: return nullptr;
  }
}

bool ok(cudaError_t e, const char* what, std::ostream& err) {
  if (e == cudaSuccess) return true;
  err << "banklab calibrate: CUDA error in " << what << ": " << cudaGetErrorName(e) << " ("
      << cudaGetErrorString(e) << ")\n";
  return false;
}

}  // namespace

std::string gpu_unavailable_reason() { return no_gpu_reason(); }

std::string gpu_name(int device, std::string& error) {
  cudaDeviceProp prop{};
  const cudaError_t e = cudaGetDeviceProperties(&prop, device);
  if (e != cudaSuccess) {
    error = std::string("cudaGetDeviceProperties(") + std::to_string(device) + ") failed: " + cudaGetErrorName(e);
    cudaGetLastError();
    return "";
  }
  return prop.name;
}

int run_patterns_on_gpu(const std::vector<Pattern>& patterns, int device, std::ostream& err) {
  if (!ok(cudaSetDevice(device), "cudaSetDevice", err)) return 1;
  int optin = 0;
  if (!ok(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
          "cudaDeviceGetAttribute(MaxSharedMemoryPerBlockOptin)", err))
    return 1;
  for (Op op : {Op::Load, Op::Store})
    for (int w : {1, 2, 4, 8, 16})
      if (!ok(cudaFuncSetAttribute(kernel_for(op, w), cudaFuncAttributeMaxDynamicSharedMemorySize, optin),
              "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)", err))
        return 1;

  std::vector<unsigned> offsets;
  std::vector<unsigned> smem_bytes;
  offsets.reserve(patterns.size() * kWarpSize);
  for (const Pattern& p : patterns) {
    std::uint32_t top = 16;
    for (int i = 0; i < kWarpSize; ++i) {
      // Inactive lanes still compute an address (never used): keep it at 0.
      const bool active = (p.access.mask >> i) & 1u;
      const std::uint32_t off = active ? p.access.offset[static_cast<std::size_t>(i)] : 0u;
      offsets.push_back(off);
      if (active) top = std::max(top, off + static_cast<std::uint32_t>(p.access.width));
    }
    top = (top + 15u) & ~15u;
    if (top > static_cast<std::uint32_t>(optin)) {
      err << "banklab calibrate: pattern " << p.id << " needs " << top << " bytes of shared memory; this GPU "
          << "lets a block use " << optin << "\n";
      return 1;
    }
    if (!kernel_for(p.access.op, p.access.width)) {
      err << "banklab calibrate: pattern " << p.id << " has width " << p.access.width << "\n";
      return 1;
    }
    smem_bytes.push_back(top);
  }
  unsigned* d_offsets = nullptr;
  unsigned* d_sink = nullptr;
  if (!ok(cudaMalloc(&d_offsets, std::max<std::size_t>(offsets.size(), 1) * sizeof(unsigned)), "cudaMalloc", err) ||
      !ok(cudaMalloc(&d_sink, kWarpSize * sizeof(unsigned)), "cudaMalloc", err))
    return 1;
  if (!ok(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(unsigned), cudaMemcpyHostToDevice),
          "cudaMemcpy", err))
    return 1;
  int rc = 0;
  for (std::size_t k = 0; k < patterns.size(); ++k) {
    const Pattern& p = patterns[k];
    kernel_for(p.access.op, p.access.width)<<<1, kWarpSize, smem_bytes[k]>>>(d_offsets + k * kWarpSize, p.access.mask, d_sink);
    if (!ok(cudaGetLastError(), ("launch of pattern " + p.id).c_str(), err)) {
      rc = 1;
      break;
    }
  }
  if (rc == 0 && !ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize", err)) rc = 1;
  cudaFree(d_offsets);
  cudaFree(d_sink);
  return rc;
}

}  // namespace banklab::calibrate
