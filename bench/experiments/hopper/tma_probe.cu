// The shared-memory side of Hopper's TMA: one box per launch, loaded from global memory into
// shared memory (cp.async.bulk.tensor.2d ... mbarrier::complete_tx, SASS UTMALDG) or stored from
// shared memory to global memory (cp.async.bulk.tensor.2d.global.shared::cta, SASS UTMASTG), for
// each swizzle mode (none, 32 B, 64 B, 128 B) and a few box shapes, under Nsight Compute.
//   nvcc -arch=sm_90a -O2 -o tma_probe bench/experiments/hopper/tma_probe.cu -lcuda
//   ncu --metrics <shared-memory metrics> --csv ./tma_probe     (bench/experiments/hopper/device.sh)
// One block of 128 threads; thread 0 issues the TMA. Kernels, each launch printed in launch order
// ("launch N: KERNEL ID ..."):
//   mbar_only   the mbarrier handshake of a load without the copy (the baseline of tma_load)
//   tma_load    the box into shared memory, waited for on the mbarrier, nothing else
//   tma_dump    the box's footprint poisoned (STS.32 of 0xee bytes), tma_load, then every thread
//               copies shared memory to global (LDS.32) so the host can check the layout the TMA
//               wrote: with q = swz(p) = p ^ (((p >> 7) & m) << 4), m = 0, 1, 3, 7 for none, 32, 64,
//               128 B (the buffer is 1024-byte aligned), byte p holds the box's row q / pitch,
//               byte q % pitch, where pitch = the box's row bytes without swizzle, the swizzle span
//               with it; bytes past the row's width stay 0xee (the footprint is pitch x rows)
//   sts_only    every thread writes the footprint's image with STS.32 (the baseline of tma_store)
//   tma_store   sts_only, then the TMA stores the box to global memory; the host checks the box
//               arrived (the shared image was laid out by swz(), so this checks the store's layout)
// A case whose check fails is printed "FAIL" and is not a measurement of a working TMA.
// FILTER=a,b runs only the cases whose id contains a or b. With DUMP_DIR set, every tma_dump's shared image is written to DUMP_DIR/ID.bin.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "filter.hpp"

namespace {

constexpr int kThreads = 128;
constexpr int kMaxBox = 32 * 1024;
constexpr int kSmem = kMaxBox + 2048;  // 1024 bytes to align the box, the mbarrier in front of it

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// The box starts at the first 1024-byte boundary after 16 bytes of room for the mbarrier.
__device__ __forceinline__ unsigned char* box_base(unsigned char* smem) {
  const unsigned a = smem_u32(smem);
  const unsigned b = (a + 16 + 1023) & ~1023u;
  return smem + (b - a);
}

__device__ __forceinline__ void mbar_init(unsigned mbar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(mbar) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// Waits for phase 0 of the mbarrier, at most ~4M tries (a copy that never completes must not hang
// the measurement); false if it gave up.
__device__ __forceinline__ bool mbar_wait(unsigned mbar) {
  for (int i = 0; i < (1 << 22); ++i) {
    unsigned done;
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(mbar)
        : "memory");
    if (done) return true;
  }
  return false;
}

enum Kind { kMbarOnly = 0, kLoad = 1, kDump = 2 };

template <int K>
__global__ void __launch_bounds__(kThreads) tma_load_kernel(const __grid_constant__ CUtensorMap map, int x, int y,
                                                            unsigned bytes, unsigned foot, unsigned* dump,
                                                            unsigned* gave_up) {
  extern __shared__ __align__(16) unsigned char smem[];
  unsigned char* box = box_base(smem);
  const unsigned mbar = smem_u32(box - 16);
  if (K == kDump) {  // poison the box's footprint: bytes the TMA leaves alone keep 0xee
    unsigned* s = reinterpret_cast<unsigned*>(box);
    for (unsigned i = threadIdx.x; i < foot / 4; i += kThreads) s[i] = 0xeeeeeeeeu;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  if (threadIdx.x == 0) mbar_init(mbar);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (K == kMbarOnly) {
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(mbar) : "memory");
    } else {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mbar), "r"(bytes) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
              smem_u32(box)),
          "l"(&map), "r"(x), "r"(y), "r"(mbar)
          : "memory");
    }
  }
  if (!mbar_wait(mbar)) atomicExch(gave_up, 1u);
  if (K == kDump) {
    const unsigned* s = reinterpret_cast<const unsigned*>(box);
    for (unsigned i = threadIdx.x; i < foot / 4; i += kThreads) dump[i] = s[i];
  }
}

template <bool Store>
__global__ void __launch_bounds__(kThreads) tma_store_kernel(const __grid_constant__ CUtensorMap map, int x, int y,
                                                             unsigned foot, const unsigned* image) {
  extern __shared__ __align__(16) unsigned char smem[];
  unsigned char* box = box_base(smem);
  unsigned* s = reinterpret_cast<unsigned*>(box);
  for (unsigned i = threadIdx.x; i < foot / 4; i += kThreads) s[i] = image[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (Store && threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&map), "r"(x),
                 "r"(y), "r"(smem_u32(box))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

struct Case {
  const char* swz_name;
  CUtensorMapSwizzle swz;
  int swz_bits;  // m = (1 << bits) - 1 in swz()
  int esize;     // bytes per element
  int inner;     // box bytes per row
  int rows;
  int x, y;  // box coordinate (elements, rows)
};

constexpr int kW = 256;  // global tensor: kW elements x kH rows
constexpr int kH = 512;

unsigned swz(unsigned p, int bits) { return p ^ (((p >> 7) & ((1u << bits) - 1u)) << 4); }

bool check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorString(r, &s);
    std::printf("%s failed: %s\n", what, s ? s : "?");
    return false;
  }
  return true;
}

}  // namespace

int main() {
  const char* dump_dir = std::getenv("DUMP_DIR");
  cudaFree(nullptr);
  // Global tensors: 16-bit elements (value row * 256 + col) and 32-bit (row * 65536 + col).
  std::vector<uint16_t> g16(kW * kH);
  std::vector<uint32_t> g32(kW * kH);
  for (int r = 0; r < kH; ++r)
    for (int c = 0; c < kW; ++c) {
      g16[r * kW + c] = static_cast<uint16_t>(r * 256 + c);
      g32[r * kW + c] = static_cast<uint32_t>(r * 65536 + c);
    }
  void *d16, *d32, *o16, *o32;
  unsigned *d_dump, *d_image, *d_gave_up;
  cudaMalloc(&d16, g16.size() * 2);
  cudaMalloc(&d32, g32.size() * 4);
  cudaMalloc(&o16, g16.size() * 2);
  cudaMalloc(&o32, g32.size() * 4);
  cudaMalloc(&d_dump, kMaxBox);
  cudaMalloc(&d_image, kMaxBox);
  cudaMalloc(&d_gave_up, 4);
  cudaMemset(d_gave_up, 0, 4);
  cudaMemcpy(d16, g16.data(), g16.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(d32, g32.data(), g32.size() * 4, cudaMemcpyHostToDevice);
  cudaFuncSetAttribute(tma_load_kernel<kMbarOnly>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(tma_load_kernel<kLoad>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(tma_load_kernel<kDump>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(tma_store_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(tma_store_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);

  const CUtensorMapSwizzle N = CU_TENSOR_MAP_SWIZZLE_NONE, S32 = CU_TENSOR_MAP_SWIZZLE_32B,
                           S64 = CU_TENSOR_MAP_SWIZZLE_64B, S128 = CU_TENSOR_MAP_SWIZZLE_128B;
  const Case cases[] = {
      {"none", N, 0, 2, 16, 64, 0, 0},    {"none", N, 0, 2, 32, 64, 0, 0},    {"none", N, 0, 2, 64, 64, 0, 0},
      {"none", N, 0, 2, 128, 8, 0, 0},    {"none", N, 0, 2, 128, 64, 0, 0},   {"none", N, 0, 2, 256, 64, 0, 0},
      {"none", N, 0, 2, 128, 256, 0, 0},  {"sw32", S32, 1, 2, 32, 8, 0, 0},   {"sw32", S32, 1, 2, 32, 64, 0, 0},
      {"sw32", S32, 1, 2, 16, 64, 0, 0},  {"sw64", S64, 2, 2, 64, 8, 0, 0},   {"sw64", S64, 2, 2, 64, 64, 0, 0},
      {"sw64", S64, 2, 2, 32, 64, 0, 0},  {"sw128", S128, 3, 2, 128, 8, 0, 0}, {"sw128", S128, 3, 2, 128, 64, 0, 0},
      {"sw128", S128, 3, 2, 128, 256, 0, 0}, {"sw128", S128, 3, 2, 64, 64, 0, 0}, {"sw128", S128, 3, 2, 128, 64, 8, 3},
      {"sw128", S128, 3, 4, 128, 64, 0, 0}, {"none", N, 0, 4, 128, 64, 0, 0},
  };
  int launch = 0, failures = 0;
  for (const Case& c : cases) {
    const int elems = c.inner / c.esize;
    const unsigned bytes = static_cast<unsigned>(c.inner * c.rows);
    // In shared memory a swizzled box's rows are the swizzle span apart, however narrow the box
    // (measured: the H200's dumps of boxes 16, 32, 64 bytes wide in the 32, 64, 128 B modes).
    const int pitch = c.swz_bits ? (16 << c.swz_bits) : c.inner;
    const unsigned foot = static_cast<unsigned>(pitch * c.rows);
    char id[96];
    std::snprintf(id, sizeof id, "tma_%s_e%d_i%d_r%d_x%d_y%d", c.swz_name, c.esize, c.inner, c.rows, c.x, c.y);
    if (!selected(id)) continue;
    void* gsrc = c.esize == 2 ? d16 : d32;
    void* gdst = c.esize == 2 ? o16 : o32;
    CUtensorMap map_in, map_out;
    const cuuint64_t dims[2] = {kW, kH};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(kW) * c.esize};
    const cuuint32_t box[2] = {static_cast<cuuint32_t>(elems), static_cast<cuuint32_t>(c.rows)};
    const cuuint32_t estr[2] = {1, 1};
    const CUtensorMapDataType dt = c.esize == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16 : CU_TENSOR_MAP_DATA_TYPE_UINT32;
    if (!check(cuTensorMapEncodeTiled(&map_in, dt, 2, gsrc, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      c.swz, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
               id) ||
        !check(cuTensorMapEncodeTiled(&map_out, dt, 2, gdst, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      c.swz, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
               id)) {
      ++failures;
      continue;
    }
    // The box stored densely, row after row, as bytes.
    std::vector<unsigned char> dense(bytes);
    const unsigned char* src = static_cast<const unsigned char*>(c.esize == 2 ? static_cast<const void*>(g16.data())
                                                                              : static_cast<const void*>(g32.data()));
    for (int r = 0; r < c.rows; ++r)
      std::memcpy(&dense[static_cast<size_t>(r) * c.inner], src + (static_cast<size_t>(c.y + r) * kW + c.x) * c.esize,
                  c.inner);
    // What shared memory should hold: byte p holds the box's byte at row q / pitch, column q % pitch,
    // q = swz(p); columns past the box's width are not written (-1).
    std::vector<int> image(foot);
    for (unsigned p = 0; p < foot; ++p) {
      const unsigned q = swz(p, c.swz_bits), r = q / pitch, col = q % pitch;
      image[p] = static_cast<int>(col) < c.inner ? dense[r * c.inner + col] : -1;
    }

    auto done = [&](const char* kernel, const char* verdict) {
      std::printf("launch %d: %s %s swizzle=%s esize=%d inner=%d rows=%d x=%d y=%d bytes=%u footprint=%u %s\n", launch++,
                  kernel, id, c.swz_name, c.esize, c.inner, c.rows, c.x, c.y, bytes, foot, verdict);
    };
    auto sync = [&]() {
      const cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) std::printf("CUDA error %s\n", cudaGetErrorString(e));
      unsigned gave_up = 0;
      cudaMemcpy(&gave_up, d_gave_up, 4, cudaMemcpyDeviceToHost);
      cudaMemset(d_gave_up, 0, 4);
      if (gave_up) std::printf("the mbarrier wait gave up\n");
      return e == cudaSuccess && !gave_up;
    };
    tma_load_kernel<kMbarOnly><<<1, kThreads, kSmem>>>(map_in, c.x, c.y, bytes, foot, d_dump, d_gave_up);
    done("mbar_only", sync() ? "ran" : "FAIL");
    tma_load_kernel<kLoad><<<1, kThreads, kSmem>>>(map_in, c.x, c.y, bytes, foot, d_dump, d_gave_up);
    done("tma_load", sync() ? "ran" : "FAIL");
    cudaMemset(d_dump, 0xee, kMaxBox);
    tma_load_kernel<kDump><<<1, kThreads, kSmem>>>(map_in, c.x, c.y, bytes, foot, d_dump, d_gave_up);
    bool ok = sync();
    std::vector<unsigned char> got(foot);
    cudaMemcpy(got.data(), d_dump, foot, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (unsigned p = 0; p < foot; ++p) bad += got[p] != (image[p] < 0 ? 0xee : image[p]);
    if (dump_dir) {
      const std::string f = std::string(dump_dir) + "/" + id + ".bin";
      if (FILE* o = std::fopen(f.c_str(), "wb")) {
        std::fwrite(got.data(), 1, foot, o);
        std::fclose(o);
      }
    }
    char verdict[64];
    std::snprintf(verdict, sizeof verdict, "%s (%d bytes differ from the layout)", ok && bad == 0 ? "OK" : "FAIL", bad);
    failures += !(ok && bad == 0);
    done("tma_dump", verdict);

    std::vector<unsigned char> image_bytes(foot);
    for (unsigned p = 0; p < foot; ++p) image_bytes[p] = static_cast<unsigned char>(image[p] < 0 ? 0 : image[p]);
    cudaMemcpy(d_image, image_bytes.data(), foot, cudaMemcpyHostToDevice);
    tma_store_kernel<false><<<1, kThreads, kSmem>>>(map_out, c.x, c.y, foot, d_image);
    done("sts_only", sync() ? "ran" : "FAIL");
    cudaMemset(gdst, 0, static_cast<size_t>(kW) * kH * c.esize);
    tma_store_kernel<true><<<1, kThreads, kSmem>>>(map_out, c.x, c.y, foot, d_image);
    ok = sync();
    std::vector<unsigned char> out(static_cast<size_t>(kW) * kH * c.esize);
    cudaMemcpy(out.data(), gdst, out.size(), cudaMemcpyDeviceToHost);
    bad = 0;
    for (int r = 0; r < kH; ++r)
      for (int b = 0; b < kW * c.esize; ++b) {
        const bool inside = r >= c.y && r < c.y + c.rows && b >= c.x * c.esize && b < c.x * c.esize + c.inner;
        const unsigned char want = inside ? dense[static_cast<size_t>(r - c.y) * c.inner + (b - c.x * c.esize)] : 0;
        bad += out[static_cast<size_t>(r) * kW * c.esize + b] != want;
      }
    std::snprintf(verdict, sizeof verdict, "%s (%d bytes differ)", ok && bad == 0 ? "OK" : "FAIL", bad);
    failures += !(ok && bad == 0);
    done("tma_store", verdict);
  }
  std::printf("%d launches, %d checks failed\n", launch, failures);
  return failures ? 1 : 0;
}
