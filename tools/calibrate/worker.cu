// The kernels of `banklab calibrate`: each runs ONE shared-memory instruction for one warp.
#include "worker.hpp"

#include <algorithm>
#include <cstdint>
#include <ostream>

#include "banklab/cuda_check.cuh"
#include "banklab/model.hpp"
#include "results.hpp"

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

// ldmatrix / stmatrix: every lane runs it (.sync.aligned); lanes beyond 8 x N give addresses the
// hardware does not use (their offsets come from the pattern as written).
#define BANKLAB_CAL_LDSM(NAME, SHAPE, OUTS)                                                  \
  __global__ void NAME(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) { \
    BANKLAB_CAL_PROLOGUE                                                                      \
    (void)active;                                                                             \
    unsigned r0 = 0, r1 = 0, r2 = 0, r3 = 0;                                                  \
    asm volatile("ldmatrix.sync.aligned.m8n8." SHAPE ".shared.b16 " OUTS ", [%4];"           \
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr) : "memory");          \
    if ((r0 ^ r1 ^ r2 ^ r3) == 0x9e3779b9u) sink[lane] = r0;                                  \
  }
BANKLAB_CAL_LDSM(banklab_cal_ldsm_x1, "x1", "{%0}")
BANKLAB_CAL_LDSM(banklab_cal_ldsm_x2, "x2", "{%0,%1}")
BANKLAB_CAL_LDSM(banklab_cal_ldsm_x4, "x4", "{%0,%1,%2,%3}")
BANKLAB_CAL_LDSM(banklab_cal_ldsm_x1_trans, "x1.trans", "{%0}")
BANKLAB_CAL_LDSM(banklab_cal_ldsm_x2_trans, "x2.trans", "{%0,%1}")
BANKLAB_CAL_LDSM(banklab_cal_ldsm_x4_trans, "x4.trans", "{%0,%1,%2,%3}")

#define BANKLAB_CAL_STSM(NAME, SHAPE, INS)                                                   \
  __global__ void NAME(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) { \
    BANKLAB_CAL_PROLOGUE                                                                      \
    (void)active;                                                                             \
    (void)sink;                                                                               \
    asm volatile("stmatrix.sync.aligned.m8n8." SHAPE ".shared.b16 [%0], " INS ";"           \
                 ::"r"(addr), "r"(lane), "r"(lane + 1u), "r"(lane + 2u), "r"(lane + 3u) : "memory"); \
  }
BANKLAB_CAL_STSM(banklab_cal_stsm_x1, "x1", "{%1}")
BANKLAB_CAL_STSM(banklab_cal_stsm_x2, "x2", "{%1,%2}")
BANKLAB_CAL_STSM(banklab_cal_stsm_x4, "x4", "{%1,%2,%3,%4}")
BANKLAB_CAL_STSM(banklab_cal_stsm_x1_trans, "x1.trans", "{%1}")
BANKLAB_CAL_STSM(banklab_cal_stsm_x2_trans, "x2.trans", "{%1,%2}")
BANKLAB_CAL_STSM(banklab_cal_stsm_x4_trans, "x4.trans", "{%1,%2,%3,%4}")

// cp.async global -> shared: the global source is the sink buffer (16 bytes per lane).
#define BANKLAB_CAL_CPASYNC(NAME, CACHE, BYTES)                                              \
  __global__ void NAME(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) { \
    BANKLAB_CAL_PROLOGUE                                                                      \
    const unsigned char* src = reinterpret_cast<const unsigned char*>(sink) + 16u * lane;     \
    if (active)                                                                               \
      asm volatile("cp.async." CACHE ".shared.global [%0], [%1], " #BYTES ";" ::"r"(addr), "l"(src) : "memory"); \
    asm volatile("cp.async.wait_all;" ::: "memory");                                         \
  }
BANKLAB_CAL_CPASYNC(banklab_cal_cpasync_w4, "ca", 4)
BANKLAB_CAL_CPASYNC(banklab_cal_cpasync_w8, "ca", 8)
BANKLAB_CAL_CPASYNC(banklab_cal_cpasync_w16, "ca", 16)
BANKLAB_CAL_CPASYNC(banklab_cal_cpasync_w16_cg, "cg", 16)

__global__ void banklab_cal_atom_w4(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  unsigned x = 0;
  if (active) asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(x) : "r"(addr), "r"(lane + 1u) : "memory");
  if (x == 0x9e3779b9u) sink[lane] = x;
}
__global__ void banklab_cal_atom_w8(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  unsigned long long x = 0;
  if (active)
    asm volatile("atom.shared.add.u64 %0, [%1], %2;" : "=l"(x) : "r"(addr), "l"(lane + 1ull) : "memory");
  if (x == 0x9e3779b97f4a7c15ull) sink[lane] = static_cast<unsigned>(x);
}
__global__ void banklab_cal_atom_w4_red(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  (void)sink;
  if (active) asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(addr) : "memory");
}
__global__ void banklab_cal_atom_w8_red(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  (void)sink;
  if (active) asm volatile("red.shared.add.u64 [%0], %1;" ::"r"(addr), "l"(1ull) : "memory");
}

// The other shared atomics (family atomop, variant = the id's last part): each PTX operation as
// ptxas 13.0 compiles it for sm_90 (common/data/README.md lists the SASS the H200 ran). 32-bit
// exch/min/max/and/or/xor/inc/dec/cas are one ATOMS each; `red` of a register (result unused) is
// one ATOMS with RZ as destination; float add is a compare-and-swap loop (LDS, then
// ATOMS.CAST.SPIN) as are the 64-bit operations other than exch and cas. The 64-bit min first
// writes all-ones to its word (lanes at one word write the same value), so every lane's minimum
// changes the word and the loop's early exit depends on the addresses alone.
#define BANKLAB_CAL_ATOM32(NAME, PTX)                                                               \
  __global__ void NAME(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {        \
    BANKLAB_CAL_PROLOGUE                                                                            \
    unsigned x = 0;                                                                                 \
    if (active) asm volatile(PTX : "=r"(x) : "r"(addr), "r"(lane + 1u) : "memory");                 \
    if (x == 0x9e3779b9u) sink[lane] = x;                                                           \
  }
#define BANKLAB_CAL_RED32(NAME, PTX)                                                                \
  __global__ void NAME(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {        \
    BANKLAB_CAL_PROLOGUE                                                                            \
    (void)sink;                                                                                     \
    if (active) asm volatile(PTX ::"r"(addr), "r"(lane + 1u) : "memory");                            \
  }
#define BANKLAB_CAL_ATOM64(NAME, PTX)                                                               \
  __global__ void NAME(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {        \
    BANKLAB_CAL_PROLOGUE                                                                            \
    unsigned long long x = 0;                                                                       \
    if (active) asm volatile(PTX : "=l"(x) : "r"(addr), "l"(lane + 1ull) : "memory");               \
    if (x == 0x9e3779b97f4a7c15ull) sink[lane] = static_cast<unsigned>(x);                          \
  }
BANKLAB_CAL_ATOM32(banklab_cal_atom_w4_exch, "atom.shared.exch.b32 %0, [%1], %2;")
BANKLAB_CAL_ATOM32(banklab_cal_atom_w4_min, "atom.shared.min.u32 %0, [%1], %2;")
BANKLAB_CAL_ATOM32(banklab_cal_atom_w4_maxs, "atom.shared.max.s32 %0, [%1], %2;")
BANKLAB_CAL_ATOM32(banklab_cal_atom_w4_and, "atom.shared.and.b32 %0, [%1], %2;")
BANKLAB_CAL_ATOM32(banklab_cal_atom_w4_or, "atom.shared.or.b32 %0, [%1], %2;")
BANKLAB_CAL_ATOM32(banklab_cal_atom_w4_xor, "atom.shared.xor.b32 %0, [%1], %2;")
BANKLAB_CAL_ATOM32(banklab_cal_atom_w4_inc, "atom.shared.inc.u32 %0, [%1], %2;")
BANKLAB_CAL_ATOM32(banklab_cal_atom_w4_dec, "atom.shared.dec.u32 %0, [%1], %2;")
BANKLAB_CAL_ATOM32(banklab_cal_atom_w4_addf, "atom.shared.add.f32 %0, [%1], %2;")
BANKLAB_CAL_RED32(banklab_cal_atom_w4_redadd, "red.shared.add.u32 [%0], %1;")
BANKLAB_CAL_RED32(banklab_cal_atom_w4_redmin, "red.shared.min.u32 [%0], %1;")
BANKLAB_CAL_RED32(banklab_cal_atom_w4_redor, "red.shared.or.b32 [%0], %1;")
__global__ void banklab_cal_atom_w4_cas(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  unsigned x = 0;
  if (active) asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;" : "=r"(x) : "r"(addr), "r"(lane), "r"(lane + 1u) : "memory");
  if (x == 0x9e3779b9u) sink[lane] = x;
}
BANKLAB_CAL_ATOM64(banklab_cal_atom_w8_exch, "atom.shared.exch.b64 %0, [%1], %2;")
BANKLAB_CAL_ATOM64(banklab_cal_atom_w8_or, "atom.shared.or.b64 %0, [%1], %2;")
BANKLAB_CAL_ATOM64(banklab_cal_atom_w8_addf, "atom.shared.add.f64 %0, [%1], %2;")
__global__ void banklab_cal_atom_w8_min(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  unsigned long long x = 0;
  if (active) asm volatile("st.volatile.shared.u64 [%0], %1;" ::"r"(addr), "l"(~0ull) : "memory");
  __syncwarp();
  if (active) asm volatile("atom.shared.min.u64 %0, [%1], %2;" : "=l"(x) : "r"(addr), "l"(lane + 1ull) : "memory");
  if (x == 0x9e3779b97f4a7c15ull) sink[lane] = static_cast<unsigned>(x);
}
__global__ void banklab_cal_atom_w8_cas(const unsigned* __restrict__ offsets, unsigned mask, unsigned* sink) {
  BANKLAB_CAL_PROLOGUE
  unsigned long long x = 0;
  if (active)
    asm volatile("atom.shared.cas.b64 %0, [%1], %2, %3;" : "=l"(x) : "r"(addr), "l"(static_cast<unsigned long long>(lane)), "l"(lane + 1ull) : "memory");
  if (x == 0x9e3779b97f4a7c15ull) sink[lane] = static_cast<unsigned>(x);
}

using Kernel = void (*)(const unsigned*, unsigned, unsigned*);

struct NamedKernel {
  const char* name;
  Kernel kernel;
};

#define BANKLAB_K(n) {#n, n}
const NamedKernel kKernels[] = {
    BANKLAB_K(banklab_cal_ld_w1), BANKLAB_K(banklab_cal_ld_w2), BANKLAB_K(banklab_cal_ld_w4),
    BANKLAB_K(banklab_cal_ld_w8), BANKLAB_K(banklab_cal_ld_w16), BANKLAB_K(banklab_cal_st_w1),
    BANKLAB_K(banklab_cal_st_w2), BANKLAB_K(banklab_cal_st_w4), BANKLAB_K(banklab_cal_st_w8),
    BANKLAB_K(banklab_cal_st_w16), BANKLAB_K(banklab_cal_ldsm_x1), BANKLAB_K(banklab_cal_ldsm_x2),
    BANKLAB_K(banklab_cal_ldsm_x4), BANKLAB_K(banklab_cal_ldsm_x1_trans), BANKLAB_K(banklab_cal_ldsm_x2_trans),
    BANKLAB_K(banklab_cal_ldsm_x4_trans), BANKLAB_K(banklab_cal_stsm_x1), BANKLAB_K(banklab_cal_stsm_x2),
    BANKLAB_K(banklab_cal_stsm_x4), BANKLAB_K(banklab_cal_stsm_x1_trans), BANKLAB_K(banklab_cal_stsm_x2_trans),
    BANKLAB_K(banklab_cal_stsm_x4_trans), BANKLAB_K(banklab_cal_cpasync_w4), BANKLAB_K(banklab_cal_cpasync_w8),
    BANKLAB_K(banklab_cal_cpasync_w16), BANKLAB_K(banklab_cal_cpasync_w16_cg), BANKLAB_K(banklab_cal_atom_w4),
    BANKLAB_K(banklab_cal_atom_w8), BANKLAB_K(banklab_cal_atom_w4_red), BANKLAB_K(banklab_cal_atom_w8_red),
    BANKLAB_K(banklab_cal_atom_w4_exch), BANKLAB_K(banklab_cal_atom_w4_min), BANKLAB_K(banklab_cal_atom_w4_maxs),
    BANKLAB_K(banklab_cal_atom_w4_and), BANKLAB_K(banklab_cal_atom_w4_or), BANKLAB_K(banklab_cal_atom_w4_xor),
    BANKLAB_K(banklab_cal_atom_w4_inc), BANKLAB_K(banklab_cal_atom_w4_dec), BANKLAB_K(banklab_cal_atom_w4_cas),
    BANKLAB_K(banklab_cal_atom_w4_addf), BANKLAB_K(banklab_cal_atom_w4_redadd), BANKLAB_K(banklab_cal_atom_w4_redmin),
    BANKLAB_K(banklab_cal_atom_w4_redor), BANKLAB_K(banklab_cal_atom_w8_exch), BANKLAB_K(banklab_cal_atom_w8_cas),
    BANKLAB_K(banklab_cal_atom_w8_min), BANKLAB_K(banklab_cal_atom_w8_or), BANKLAB_K(banklab_cal_atom_w8_addf),
};
#undef BANKLAB_K

Kernel kernel_for(const Pattern& p) {
  const std::string name = kernel_name(p);
  for (const NamedKernel& k : kKernels)
    if (name == k.name) return k.kernel;
  return nullptr;
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
  for (const NamedKernel& k : kKernels)
    if (!ok(cudaFuncSetAttribute(k.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin),
            "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)", err))
      return 1;

  std::vector<unsigned> offsets;
  std::vector<unsigned> smem_bytes;
  offsets.reserve(patterns.size() * kWarpSize);
  for (const Pattern& p : patterns) {
    std::uint32_t top = 16;
    // ldmatrix/stmatrix: every lane's address as written (the hardware uses only 8 x N of them).
    const bool all_lanes = p.access.op == Op::LoadMatrix || p.access.op == Op::StoreMatrix;
    for (int i = 0; i < kWarpSize; ++i) {
      // Inactive lanes still compute an address (never used): keep it at 0.
      const bool active = all_lanes || ((p.access.mask >> i) & 1u);
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
    if (!kernel_for(p)) {
      err << "banklab calibrate: pattern " << p.id << ": no kernel " << kernel_name(p) << "\n";
      return 1;
    }
    smem_bytes.push_back(top);
  }
  unsigned* d_offsets = nullptr;
  unsigned* d_sink = nullptr;
  if (!ok(cudaMalloc(&d_offsets, std::max<std::size_t>(offsets.size(), 1) * sizeof(unsigned)), "cudaMalloc", err) ||
      !ok(cudaMalloc(&d_sink, 4096), "cudaMalloc", err) || !ok(cudaMemset(d_sink, 0, 4096), "cudaMemset", err))
    return 1;
  if (!ok(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(unsigned), cudaMemcpyHostToDevice),
          "cudaMemcpy", err))
    return 1;
  int rc = 0;
  for (std::size_t k = 0; k < patterns.size(); ++k) {
    const Pattern& p = patterns[k];
    kernel_for(p)<<<1, kWarpSize, smem_bytes[k]>>>(d_offsets + k * kWarpSize, p.access.mask, d_sink);
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
