// The shared-memory side of Hopper's wgmma: one warpgroup (128 threads, one block) runs
// wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 ITERS times (each followed by commit_group and
// wait_group 0) with A and B read from shared memory through descriptors ("ss"), or A from
// registers and only B from shared memory ("rs"), for each layout type of the descriptor
// (interleave = no swizzle, 32 B, 64 B, 128 B swizzle), K-major and MN-major, under Nsight Compute.
//   nvcc -arch=sm_90a -O2 -o wgmma_probe bench/experiments/hopper/wgmma_probe.cu
//   ncu --metrics <shared-memory metrics> --csv ./wgmma_probe     (bench/experiments/hopper/device.sh)
// The host lays out the operands' shared-memory image byte by byte (layout_offset() below: where
// element (row, k) of a 64 x 16 operand lives, row = m for A and n for B) and the kernel copies it
// into shared memory with STS.128 (counted in ncu's op_st, apart from the wgmma's reads). The result
// is checked against a CPU product of the operands *as the declared layout reads them from that
// image*: a case whose check fails is printed "FAIL" and says only that this program's idea of the
// layout is wrong, not what the hardware costs. Cases "swap" encode the descriptor's leading and
// stride byte offsets the other way round than layout_offset() uses them: of a case and its swap at
// most one can pass, which tells which field the hardware reads for which stride. Cases "img_X_as_Y"
// lay the image out as X and declare Y: the hardware reads by the descriptor whatever the data are.
// Each case runs with ITERS = 1 and ITERS = 4 (the difference / 3 is one wgmma's cost); kernel
// "fill_only" (the STS.128 copy alone) is the baseline. FILTER=a,b runs only the cases whose id
// contains a or b (fill_only always). Printed: "launch N: KERNEL ID ... OK|FAIL".
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "filter.hpp"

namespace {

constexpr int kThreads = 128;
constexpr int kRegion = 8192;            // bytes per operand in shared memory
constexpr int kImage = 2 * kRegion;      // A at 0, B at 8192
constexpr int kSmem = kImage + 1024;     // room to align the image to 1024 bytes

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

#define D32(x)                                                                                                   \
  "+f"(x[0]), "+f"(x[1]), "+f"(x[2]), "+f"(x[3]), "+f"(x[4]), "+f"(x[5]), "+f"(x[6]), "+f"(x[7]), "+f"(x[8]),     \
      "+f"(x[9]), "+f"(x[10]), "+f"(x[11]), "+f"(x[12]), "+f"(x[13]), "+f"(x[14]), "+f"(x[15]), "+f"(x[16]),      \
      "+f"(x[17]), "+f"(x[18]), "+f"(x[19]), "+f"(x[20]), "+f"(x[21]), "+f"(x[22]), "+f"(x[23]), "+f"(x[24]),     \
      "+f"(x[25]), "+f"(x[26]), "+f"(x[27]), "+f"(x[28]), "+f"(x[29]), "+f"(x[30]), "+f"(x[31])
#define R32 \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}"

template <int TA, int TB, int ITERS, bool RS>
__global__ void __launch_bounds__(kThreads) wgmma_kernel(const uint4* image, uint64_t desc_a, uint64_t desc_b,
                                                         const uint32_t* afrag, float* out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned a = smem_u32(smem);
  unsigned char* base = smem + (((a + 1023) & ~1023u) - a);
  uint4* s = reinterpret_cast<uint4*>(base);
  for (int i = threadIdx.x; i < kImage / 16; i += kThreads) s[i] = image[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  // The host's descriptors hold the start address relative to the operand's region (a k step
  // inside a swizzle atom); the region's own address is added here.
  const uint64_t da = desc_a + ((smem_u32(base) >> 4) & 0x3FFFu);
  const uint64_t db = desc_b + ((smem_u32(base + kRegion) >> 4) & 0x3FFFu);
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.f;
  uint32_t f0 = 0, f1 = 0, f2 = 0, f3 = 0;
  if (RS) {
    f0 = afrag[threadIdx.x * 4 + 0];
    f1 = afrag[threadIdx.x * 4 + 1];
    f2 = afrag[threadIdx.x * 4 + 2];
    f3 = afrag[threadIdx.x * 4 + 3];
  }
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll 1
  for (int it = 0; it < ITERS; ++it) {
    const int scale = it > 0;
    if (RS) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " R32 ", {%32,%33,%34,%35}, %36, p, 1, 1, %38;\n}\n"
          : D32(d)
          : "r"(f0), "r"(f1), "r"(f2), "r"(f3), "l"(db), "r"(scale), "n"(TB)
          : "memory");
    } else {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " R32 ", %32, %33, p, 1, 1, %35, %36;\n}\n"
          : D32(d)
          : "l"(da), "l"(db), "r"(scale), "n"(TA), "n"(TB)
          : "memory");
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i];
}

// A descriptor's layout type (bits 62-63) and its swizzle span.
enum Mode { kNone = 0, kSw128 = 1, kSw64 = 2, kSw32 = 3 };
int span(int mode) { return mode == kSw128 ? 128 : mode == kSw64 ? 64 : mode == kSw32 ? 32 : 16; }
int swz_bits(int mode) { return mode == kSw128 ? 3 : mode == kSw64 ? 2 : mode == kSw32 ? 1 : 0; }
const char* mode_name(int mode) {
  return mode == kSw128 ? "sw128" : mode == kSw64 ? "sw64" : mode == kSw32 ? "sw32" : "none";
}

struct Layout {
  int mode;
  bool mn;      // MN-major (rows contiguous) or K-major (k contiguous)
  int lbo, sbo; // bytes, as layout_offset() uses them
  bool xor_off; // lay the image out without the XOR (a swizzle mode's geometry, unswizzled)
  int k0 = 0;   // K-major swizzled: the operand starts k0 elements into each row of the atom (the
                // descriptor's start address k0 * 2 bytes after the region's), as a GEMM's k steps
};

// Byte offset of element (row, k), row < 64, k < 16, 2-byte elements, in a 1024-aligned region.
//  K-major, none:  core matrices of 8 rows x 16 bytes (128 contiguous bytes); row groups of 8 at SBO,
//                  the two 8-element k halves at LBO.
//  K-major, S-byte swizzle: rows S bytes apart (8-row atoms), row groups of 8 at SBO, k contiguous;
//                  then the XOR: bits 4.. of the offset ^= bits 7.. (1, 2, 3 bits for 32, 64, 128 B).
//  MN-major, none: core matrices of 8 k x 16 bytes (8 rows contiguous); row groups of 8 at SBO,
//                  k groups of 8 at LBO.
//  MN-major, S-byte swizzle: k rows S bytes apart holding S/2 contiguous rows of the operand; the
//                  next S/2 rows at LBO, k groups of 8 at SBO; then the same XOR.
unsigned layout_offset(const Layout& l, int row, int k) {
  unsigned p;
  if (!l.mn) {
    if (l.mode == kNone) p = (row % 8) * 16 + (row / 8) * l.sbo + (k / 8) * l.lbo + (k % 8) * 2;
    else p = (row % 8) * span(l.mode) + (row / 8) * l.sbo + (k + l.k0) * 2;
  } else {
    if (l.mode == kNone) p = (row % 8) * 2 + (row / 8) * l.sbo + (k % 8) * 16 + (k / 8) * l.lbo;
    else {
      const int e = span(l.mode) / 2;
      p = (row % e) * 2 + (row / e) * l.lbo + (k % 8) * span(l.mode) + (k / 8) * l.sbo;
    }
  }
  if (!l.xor_off) p ^= ((p >> 7) & ((1u << swz_bits(l.mode)) - 1u)) << 4;
  return p;
}

uint64_t descriptor(const Layout& l, bool swap) {
  const uint64_t lbo = static_cast<uint64_t>(swap ? l.sbo : l.lbo) >> 4;
  const uint64_t sbo = static_cast<uint64_t>(swap ? l.lbo : l.sbo) >> 4;
  return ((lbo & 0x3FFF) << 16) | ((sbo & 0x3FFF) << 32) | (static_cast<uint64_t>(l.mode) << 62) |
         static_cast<uint64_t>(l.k0 * 2 / 16);
}

using Kernel = void (*)(const uint4*, uint64_t, uint64_t, const uint32_t*, float*);
template <int ITERS, bool RS>
Kernel pick(bool mn_a, bool mn_b) {
  if (!mn_a && !mn_b) return wgmma_kernel<0, 0, ITERS, RS>;
  if (mn_a && mn_b) return wgmma_kernel<1, 1, ITERS, RS>;
  if (mn_a) return wgmma_kernel<1, 0, ITERS, RS>;
  return wgmma_kernel<0, 1, ITERS, RS>;
}

struct Case {
  std::string id;
  Layout image, declared;  // how the image is laid out, what the descriptor says
  bool swap;
  bool rs;
};

}  // namespace

int main() {
  // Logical operands: A[m][k], B[n][k] (so D[m][n] = sum_k A[m][k] * B[n][k]), small integers.
  float A[64][16], B[64][16];
  for (int r = 0; r < 64; ++r)
    for (int k = 0; k < 16; ++k) {
      A[r][k] = static_cast<float>((r * 7 + k * 3) % 7 - 3);
      B[r][k] = static_cast<float>((r * 5 + k * 11 + 1) % 5 - 2);
    }
  // A's register fragment for the rs cases (as mma.m16n8k16's A, warp w holding rows 16w..16w+15).
  std::vector<uint32_t> afrag(kThreads * 4);
  auto pack = [&](int r, int k) {
    const __half lo = __float2half(A[r][k]), hi = __float2half(A[r][k + 1]);
    return static_cast<uint32_t>(__half_as_ushort(lo)) | (static_cast<uint32_t>(__half_as_ushort(hi)) << 16);
  };
  for (int t = 0; t < kThreads; ++t) {
    const int w = t / 32, l = t % 32, g = 16 * w + l / 4, q = (l % 4) * 2;
    afrag[t * 4 + 0] = pack(g, q);
    afrag[t * 4 + 1] = pack(g + 8, q);
    afrag[t * 4 + 2] = pack(g, q + 8);
    afrag[t * 4 + 3] = pack(g + 8, q + 8);
  }

  const Layout kn{kNone, false, 128, 256, false}, k32{kSw32, false, 16, 256, false},
      k64{kSw64, false, 16, 512, false}, k128{kSw128, false, 16, 1024, false};
  const Layout mnn{kNone, true, 1024, 128, false}, mn32{kSw32, true, 256, 1024, false},
      mn64{kSw64, true, 512, 1024, false}, mn128{kSw128, true, 2048, 1024, false};
  Layout k128_plain = k128;
  k128_plain.xor_off = true;
  Layout k128_s1 = k128, k128_s2 = k128, k128_s3 = k128, k64_s1 = k64;
  k128_s1.k0 = 16;
  k128_s2.k0 = 32;
  k128_s3.k0 = 48;
  k64_s1.k0 = 16;
  std::vector<Case> cases;
  for (bool rs : {false, true}) {
    const char* v = rs ? "rs" : "ss";
    for (const Layout& l : {kn, k32, k64, k128, mnn, mn32, mn64, mn128}) {
      const std::string id = std::string("wgmma_") + v + "_" + mode_name(l.mode) + (l.mn ? "_mn" : "_k");
      cases.push_back({id, l, l, false, rs});
      if (l.mode == kNone || l.mn) cases.push_back({id + "_swap", l, l, true, rs});
    }
  }
  // The image laid out one way, the descriptor declaring another (A and B alike).
  cases.push_back({"wgmma_ss_img_sw128_as_none_k", k128, kn, false, false});
  cases.push_back({"wgmma_ss_img_none_as_sw128_k", kn, k128, false, false});
  cases.push_back({"wgmma_ss_img_sw128_as_sw64_k", k128, k64, false, false});
  cases.push_back({"wgmma_ss_img_plain128_as_sw128_k", k128_plain, k128, false, false});
  cases.push_back({"wgmma_ss_img_sw128_as_sw32_mn", mn128, mn32, false, false});
  // K steps inside a swizzle atom: the descriptor starts 32, 64, 96 bytes into the 128-byte rows.
  cases.push_back({"wgmma_ss_sw128_k_kstep1", k128_s1, k128_s1, false, false});
  cases.push_back({"wgmma_ss_sw128_k_kstep2", k128_s2, k128_s2, false, false});
  cases.push_back({"wgmma_ss_sw128_k_kstep3", k128_s3, k128_s3, false, false});
  cases.push_back({"wgmma_ss_sw64_k_kstep1", k64_s1, k64_s1, false, false});
  cases.push_back({"wgmma_rs_sw128_k_kstep1", k128_s1, k128_s1, false, true});

  uint4* d_image;
  uint32_t* d_afrag;
  float* d_out;
  cudaMalloc(&d_image, kImage);
  cudaMalloc(&d_afrag, afrag.size() * 4);
  cudaMalloc(&d_out, kThreads * 32 * 4);
  cudaMemcpy(d_afrag, afrag.data(), afrag.size() * 4, cudaMemcpyHostToDevice);
  for (auto k : {pick<0, false>(false, false), pick<1, false>(false, false), pick<4, false>(false, false),
                 pick<1, false>(true, true), pick<4, false>(true, true), pick<1, true>(false, false),
                 pick<4, true>(false, false), pick<1, true>(false, true), pick<4, true>(false, true)})
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);

  int launch = 0, failures = 0;
  {
    std::vector<unsigned char> zero(kImage, 0);
    cudaMemcpy(d_image, zero.data(), kImage, cudaMemcpyHostToDevice);
    pick<0, false>(false, false)<<<1, kThreads, kSmem>>>(d_image, 0, 0, d_afrag, d_out);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("launch %d: fill_only wgmma_fill_only iters=0 %s\n", launch++, e == cudaSuccess ? "ran" : "FAIL");
  }
  for (const Case& c : cases) {
    if (!selected(c.id)) continue;
    // The image: A's and B's elements where the image layout puts them.
    std::vector<unsigned short> img(kImage / 2, 0);
    for (int r = 0; r < 64; ++r)
      for (int k = 0; k < 16; ++k) {
        img[layout_offset(c.image, r, k) / 2] = __half_as_ushort(__float2half(A[r][k]));
        img[(kRegion + layout_offset(c.image, r, k)) / 2] = __half_as_ushort(__float2half(B[r][k]));
      }
    // What the declared layout reads from it.
    float a_read[64][16], b_read[64][16];
    for (int r = 0; r < 64; ++r)
      for (int k = 0; k < 16; ++k) {
        a_read[r][k] = c.rs ? A[r][k] : __half2float(__ushort_as_half(img[layout_offset(c.declared, r, k) / 2]));
        b_read[r][k] = __half2float(__ushort_as_half(img[(kRegion + layout_offset(c.declared, r, k)) / 2]));
      }
    cudaMemcpy(d_image, img.data(), kImage, cudaMemcpyHostToDevice);
    const uint64_t da = descriptor(c.declared, c.swap), db = descriptor(c.declared, c.swap);
    const bool mn = c.declared.mn;
    for (int iters : {1, 4}) {
      const Kernel k = c.rs ? (iters == 1 ? pick<1, true>(false, mn) : pick<4, true>(false, mn))
                            : (iters == 1 ? pick<1, false>(mn, mn) : pick<4, false>(mn, mn));
      cudaMemset(d_out, 0, kThreads * 32 * 4);
      k<<<1, kThreads, kSmem>>>(d_image, da, db, d_afrag, d_out);
      const cudaError_t e = cudaDeviceSynchronize();
      std::vector<float> out(kThreads * 32);
      cudaMemcpy(out.data(), d_out, out.size() * 4, cudaMemcpyDeviceToHost);
      int bad = 0;
      for (int t = 0; t < kThreads; ++t)
        for (int i = 0; i < 32; ++i) {
          const int w = t / 32, l = t % 32;
          const int m = 16 * w + l / 4 + 8 * ((i / 2) % 2), n = 8 * (i / 4) + 2 * (l % 4) + (i % 2);
          float want = 0.f;
          for (int kk = 0; kk < 16; ++kk) want += a_read[m][kk] * b_read[n][kk];
          bad += out[t * 32 + i] != iters * want;
        }
      const bool ok = e == cudaSuccess && bad == 0;
      failures += !ok;
      std::printf("launch %d: %s %s image=%s%s%s declared=%s%s lbo=%d sbo=%d swap=%d iters=%d %s (%d of 4096 differ)%s%s\n",
                  launch++, c.rs ? "wgmma_rs" : "wgmma_ss", c.id.c_str(), mode_name(c.image.mode),
                  c.image.mn ? "_mn" : "_k", c.image.xor_off ? "_noxor" : "", mode_name(c.declared.mode),
                  mn ? "_mn" : "_k", c.swap ? c.declared.sbo : c.declared.lbo,
                  c.swap ? c.declared.lbo : c.declared.sbo, c.swap ? 1 : 0, iters, ok ? "OK" : "FAIL", bad,
                  e == cudaSuccess ? "" : " CUDA error: ", e == cudaSuccess ? "" : cudaGetErrorString(e));
      if (e != cudaSuccess) return 2;
    }
  }
  std::printf("%d launches, %d checks failed\n", launch, failures);
  return 0;
}
