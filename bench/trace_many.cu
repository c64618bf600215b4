// A program of 32 distinct kernels that do ordinary shared-memory work, for timing `banklab trace`
// against Nsight Compute on a program of the size the issue's held-out one had (32 kernels):
// transposes of 2-, 4-, 8- and 16-byte elements (naive, padded, XOR-swizzled tiles), block
// reductions (four addressing schemes), shared-memory histograms (32-bit and 64-bit atomics),
// 1-D stencils of 1, 2 and 4 floats per thread, a tiled SGEMM (two tile layouts), a block scan,
// and a half-precision tile pipeline: cp.async of 4, 8 or 16 bytes into a row-major or swizzled
// tile, ldmatrix.x4 out of it, stmatrix.x4 into a second tile, 16-byte loads back to global.
//   trace_many [REPEATS=1] [SCALE=1]
// launches each kernel REPEATS times on problems SCALE times the default size (about 10^4 to
// 10^5 shared-memory warp instructions per kernel at SCALE 1), checks every result against a CPU
// reference and prints one line per kernel. bench/trace_speed.sh times it (program "many").
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));  \
      std::exit(2);                                                                     \
    }                                                                                   \
  } while (0)

namespace {

// ---------------------------------------------------------------- transposes (12 kernels)
// Layout 0: tile[32][32] (column reads conflict), 1: tile[32][33] (padded), 2: tile[32][32]
// with column c of row r stored at c ^ r (XOR swizzle). 32 x 8 threads, 32 x 32 tile.
template <typename T, int Layout>
__global__ void transpose(const T* in, T* out, int n) {
  constexpr int kW = Layout == 1 ? 33 : 32;
  __shared__ T tile[32][kW];
  const int x = blockIdx.x * 32 + threadIdx.x, y0 = blockIdx.y * 32;
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int c = Layout == 2 ? (threadIdx.x ^ j) : threadIdx.x;
    tile[j][c] = in[(y0 + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * 32 + threadIdx.x, oy0 = blockIdx.x * 32;
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int r = threadIdx.x, c = Layout == 2 ? (j ^ r) : j;
    out[(oy0 + j) * n + ox] = tile[r][c];
  }
}

// ---------------------------------------------------------------- reductions (4 kernels)
// 0: interleaved, tid % (2s) (divergent), 1: interleaved, index 2 s tid (bank conflicts),
// 2: sequential addressing, 3: sequential down to a warp, then shuffles.
template <int Variant>
__global__ void reduce(const float* in, float* out, int n) {
  __shared__ float s[256];
  const unsigned t = threadIdx.x, i = blockIdx.x * 512 + t;
  s[t] = (i < static_cast<unsigned>(n) ? in[i] : 0.f) + (i + 256 < static_cast<unsigned>(n) ? in[i + 256] : 0.f);
  __syncthreads();
  if (Variant == 0) {
    for (unsigned k = 1; k < 256; k *= 2) {
      if (t % (2 * k) == 0) s[t] += s[t + k];
      __syncthreads();
    }
  } else if (Variant == 1) {
    for (unsigned k = 1; k < 256; k *= 2) {
      const unsigned idx = 2 * k * t;
      if (idx < 256) s[idx] += s[idx + k];
      __syncthreads();
    }
  } else {
    const unsigned stop = Variant == 2 ? 0 : 32;
    for (unsigned k = 128; k > stop; k /= 2) {
      if (t < k) s[t] += s[t + k];
      __syncthreads();
    }
    if (Variant == 3 && t < 32) {
      float v = s[t] + s[t + 32];
      for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
      if (t == 0) s[0] = v;
    }
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// ---------------------------------------------------------------- histograms (4 kernels)
template <typename C, int Bins>
__global__ void histogram(const unsigned* keys, C* hist, int n) {
  __shared__ C h[Bins];
  for (int b = threadIdx.x; b < Bins; b += blockDim.x) h[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&h[keys[i] % Bins], static_cast<C>(keys[i] & 3u));
  __syncthreads();
  for (int b = threadIdx.x; b < Bins; b += blockDim.x) atomicAdd(&hist[b], h[b]);
}

// ---------------------------------------------------------------- stencils (3 kernels)
// out[i] = in[i-1] + 2 in[i] + in[i+1] (zero outside), V floats per thread through shared memory.
template <typename V>
__global__ void stencil(const float* in, float* out, int n) {
  constexpr int kVec = sizeof(V) / sizeof(float), kPer = 256 * kVec;
  // The block's floats start at s + kVec (aligned for V-wide stores); s[kVec - 1] and
  // s[kVec + kPer] are the halo.
  __shared__ __align__(16) float s[kPer + 2 * kVec];
  const int base = blockIdx.x * kPer;
  reinterpret_cast<V*>(s + kVec)[threadIdx.x] = reinterpret_cast<const V*>(in + base)[threadIdx.x];
  if (threadIdx.x == 0) {
    s[kVec - 1] = base > 0 ? in[base - 1] : 0.f;
    s[kVec + kPer] = base + kPer < n ? in[base + kPer] : 0.f;
  }
  __syncthreads();
  for (int k = 0; k < kVec; ++k) {
    const int j = kVec + threadIdx.x * kVec + k;
    out[base + j - kVec] = s[j - 1] + 2.f * s[j] + s[j + 1];
  }
}

// ---------------------------------------------------------------- SGEMM (2 kernels)
// C = A B, n x n, 16 x 16 tiles. Layout 0: As[ty][k] (broadcast) and Bs[k][tx]; Layout 1 keeps A's
// tile transposed, AsT[k][ty], written with a 16-way conflict.
template <int Layout>
__global__ void sgemm(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.f;
  for (int t = 0; t < n; t += 16) {
    if (Layout == 0) As[ty][tx] = A[row * n + t + tx];
    else As[tx][ty] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += (Layout == 0 ? As[ty][k] : As[k][ty]) * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// ---------------------------------------------------------------- block scan (1 kernel)
__global__ void scan(const float* in, float* out) {
  __shared__ float s[2][512];
  const int t = threadIdx.x, base = blockIdx.x * 512;
  int cur = 0;
  s[0][t] = in[base + t];
  __syncthreads();
  for (int k = 1; k < 512; k *= 2) {
    s[cur ^ 1][t] = s[cur][t] + (t >= k ? s[cur][t - k] : 0.f);
    cur ^= 1;
    __syncthreads();
  }
  out[base + t] = s[cur][t];
}

// ---------------------------------------------------------------- tile pipeline (6 kernels)
// One 64 x 64 tile of half per block (8 KiB, rows of 128 bytes): cp.async of Bytes per lane from
// global into shared, row-major or with 16-byte chunk c of row r at c ^ (r % 8); 4 warps each
// ldmatrix.x4 a 16 x 64 slab (4 instructions), stmatrix.x4 the fragments to the same places of a
// second tile of the same layout, which is written back to global with 16-byte loads.
__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ unsigned tile_byte(unsigned r, unsigned byte, bool swz) {
  const unsigned chunk = byte / 16, rest = byte % 16;
  return r * 128u + ((swz ? chunk ^ (r % 8) : chunk) * 16u) + rest;
}
template <int Bytes, bool Swz>
__global__ void tile_pipeline(const __half* in, __half* out) {
  __shared__ __align__(128) unsigned char a[8192], b[8192];
  const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
  const unsigned char* src = reinterpret_cast<const unsigned char*>(in + blockIdx.x * 4096);
  for (unsigned e = t * Bytes; e < 8192; e += 128 * Bytes) {
    const unsigned r = e / 128, byte = e % 128;
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(smem(a) + tile_byte(r, byte, Swz)), "l"(src + e),
                 "n"(Bytes) : "memory");
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  for (unsigned m = 0; m < 4; ++m) {           // 16 rows of this warp, 16 columns (32 bytes) at 32 m
    const unsigned r = warp * 16 + (lane % 16), byte = m * 32 + (lane / 16) * 16;
    unsigned x0, x1, x2, x3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3) : "r"(smem(a) + tile_byte(r, byte, Swz)) : "memory");
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"
                 ::"r"(smem(b) + tile_byte(r, byte, Swz)), "r"(x0), "r"(x1), "r"(x2), "r"(x3) : "memory");
  }
  __syncthreads();
  for (unsigned e = t * 16; e < 8192; e += 128 * 16) {
    const unsigned r = e / 128, byte = e % 128;
    *reinterpret_cast<uint4*>(reinterpret_cast<unsigned char*>(out + blockIdx.x * 4096) + e) =
        *reinterpret_cast<const uint4*>(b + tile_byte(r, byte, Swz));
  }
}

// ---------------------------------------------------------------- the driver
struct Run {
  std::string name;
  double err;   // largest difference from the CPU reference
};

template <typename T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T>
std::vector<T> download(const T* d, size_t count) {
  std::vector<T> h(count);
  CHECK(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template <typename T, int Layout>
Run run_transpose(const char* name, int n, int reps) {
  std::vector<T> h(static_cast<size_t>(n) * n);
  for (size_t i = 0; i < h.size(); ++i) std::memset(&h[i], static_cast<int>(i * 7 + 1), sizeof(T));
  for (size_t i = 0; i < h.size(); ++i) reinterpret_cast<unsigned char*>(&h[i])[0] = static_cast<unsigned char>(i);
  T* in = upload(h);
  T* out = nullptr;
  CHECK(cudaMalloc(&out, h.size() * sizeof(T)));
  for (int r = 0; r < reps; ++r) transpose<T, Layout><<<dim3(n / 32, n / 32), dim3(32, 8)>>>(in, out, n);
  CHECK(cudaGetLastError());
  const auto g = download(out, h.size());
  double bad = 0;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) bad += std::memcmp(&g[static_cast<size_t>(x) * n + y], &h[static_cast<size_t>(y) * n + x], sizeof(T)) != 0;
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return {name, bad};
}

template <int Variant>
Run run_reduce(const char* name, int n, int reps) {
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 13);
  float* in = upload(h);
  float* out = nullptr;
  const int blocks = (n + 511) / 512;
  CHECK(cudaMalloc(&out, blocks * sizeof(float)));
  for (int r = 0; r < reps; ++r) reduce<Variant><<<blocks, 256>>>(in, out, n);
  CHECK(cudaGetLastError());
  const auto g = download(out, blocks);
  double err = 0;
  for (int b = 0; b < blocks; ++b) {
    double want = 0;
    for (int i = b * 512; i < std::min(n, b * 512 + 512); ++i) want += h[i];
    err = std::max(err, std::fabs(want - g[b]));
  }
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return {name, err};
}

template <typename C, int Bins>
Run run_histogram(const char* name, int n, int reps) {
  std::vector<unsigned> keys(n);
  unsigned x = 12345;
  for (auto& k : keys) k = (x = x * 1664525u + 1013904223u) >> 8;
  unsigned* dk = upload(keys);
  C* dh = nullptr;
  CHECK(cudaMalloc(&dh, Bins * sizeof(C)));
  std::vector<double> want(Bins, 0);
  for (unsigned k : keys) want[k % Bins] += k & 3u;
  double err = 0;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaMemset(dh, 0, Bins * sizeof(C)));
    histogram<C, Bins><<<64, 256>>>(dk, dh, n);
  }
  CHECK(cudaGetLastError());
  const auto g = download(dh, Bins);
  for (int b = 0; b < Bins; ++b) err = std::max(err, std::fabs(want[b] - static_cast<double>(g[b])));
  CHECK(cudaFree(dk));
  CHECK(cudaFree(dh));
  return {name, err};
}

template <typename V>
Run run_stencil(const char* name, int n, int reps) {
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>((i * 37) % 101);
  float* in = upload(h);
  float* out = nullptr;
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  const int per = 256 * static_cast<int>(sizeof(V) / sizeof(float));
  for (int r = 0; r < reps; ++r) stencil<V><<<n / per, 256>>>(in, out, n);
  CHECK(cudaGetLastError());
  const auto g = download(out, n);
  double err = 0;
  for (int i = 0; i < n; ++i) {
    const double want = (i > 0 ? h[i - 1] : 0.f) + 2.0 * h[i] + (i + 1 < n ? h[i + 1] : 0.f);
    err = std::max(err, std::fabs(want - g[i]));
  }
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return {name, err};
}

template <int Layout>
Run run_sgemm(const char* name, int n, int reps) {
  std::vector<float> a(static_cast<size_t>(n) * n), b(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i % 7) - 3.f;
    b[i] = static_cast<float>(i % 5) - 2.f;
  }
  float *da = upload(a), *db = upload(b), *dc = nullptr;
  CHECK(cudaMalloc(&dc, a.size() * sizeof(float)));
  for (int r = 0; r < reps; ++r) sgemm<Layout><<<dim3(n / 16, n / 16), dim3(16, 16)>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  const auto g = download(dc, a.size());
  double err = 0;
  for (int i = 0; i < n; i += 7)     // every 7th row: the products are small integers, exact in float
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int k = 0; k < n; ++k) want += static_cast<double>(a[static_cast<size_t>(i) * n + k]) * b[static_cast<size_t>(k) * n + j];
      err = std::max(err, std::fabs(want - g[static_cast<size_t>(i) * n + j]));
    }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return {name, err};
}

Run run_scan(const char* name, int n, int reps) {
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 3);
  float* in = upload(h);
  float* out = nullptr;
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  for (int r = 0; r < reps; ++r) scan<<<n / 512, 512>>>(in, out);
  CHECK(cudaGetLastError());
  const auto g = download(out, n);
  double err = 0, sum = 0;
  for (int i = 0; i < n; ++i) {
    sum = i % 512 == 0 ? h[i] : sum + h[i];
    err = std::max(err, std::fabs(sum - g[i]));
  }
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return {name, err};
}

// The pipeline's reference: element (r, c) of a 16 x 16 block of a warp's slab lands at its own
// place when the x4 ldmatrix and stmatrix use the same addresses (the fragments go back where they
// came from), so out == in, tile by tile.
template <int Bytes, bool Swz>
Run run_pipeline(const char* name, int tiles, int reps) {
  std::vector<__half> h(static_cast<size_t>(tiles) * 4096);
  for (size_t i = 0; i < h.size(); ++i) h[i] = __float2half(static_cast<float>(i % 2039));
  __half* in = upload(h);
  __half* out = nullptr;
  CHECK(cudaMalloc(&out, h.size() * sizeof(__half)));
  for (int r = 0; r < reps; ++r) tile_pipeline<Bytes, Swz><<<tiles, 128>>>(in, out);
  CHECK(cudaGetLastError());
  const auto g = download(out, h.size());
  double bad = 0;
  for (size_t i = 0; i < h.size(); ++i) bad += __half2float(g[i]) != __half2float(h[i]);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return {name, bad};
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 1;
  const int scale = argc > 2 ? std::atoi(argv[2]) : 1;
  if (reps < 1 || scale < 1) {
    std::fprintf(stderr, "usage: trace_many [REPEATS>=1] [SCALE>=1]\n");
    return 2;
  }
  const int side = 256 * scale, len = 1 << 18, tiles = 64 * scale;   // transposes: side x side
  std::vector<Run> runs;
  runs.push_back(run_transpose<unsigned short, 0>("transpose_u16_naive", side, reps));
  runs.push_back(run_transpose<unsigned short, 1>("transpose_u16_padded", side, reps));
  runs.push_back(run_transpose<unsigned short, 2>("transpose_u16_swizzled", side, reps));
  runs.push_back(run_transpose<float, 0>("transpose_f32_naive", side, reps));
  runs.push_back(run_transpose<float, 1>("transpose_f32_padded", side, reps));
  runs.push_back(run_transpose<float, 2>("transpose_f32_swizzled", side, reps));
  runs.push_back(run_transpose<double, 0>("transpose_f64_naive", side, reps));
  runs.push_back(run_transpose<double, 1>("transpose_f64_padded", side, reps));
  runs.push_back(run_transpose<double, 2>("transpose_f64_swizzled", side, reps));
  runs.push_back(run_transpose<float4, 0>("transpose_f128_naive", side, reps));
  runs.push_back(run_transpose<float4, 1>("transpose_f128_padded", side, reps));
  runs.push_back(run_transpose<float4, 2>("transpose_f128_swizzled", side, reps));
  runs.push_back(run_reduce<0>("reduce_divergent", len * scale, reps));
  runs.push_back(run_reduce<1>("reduce_interleaved", len * scale, reps));
  runs.push_back(run_reduce<2>("reduce_sequential", len * scale, reps));
  runs.push_back(run_reduce<3>("reduce_sequential_shuffle", len * scale, reps));
  runs.push_back(run_histogram<unsigned, 32>("histogram_u32_32", len * scale, reps));
  runs.push_back(run_histogram<unsigned, 256>("histogram_u32_256", len * scale, reps));
  runs.push_back(run_histogram<unsigned, 1024>("histogram_u32_1024", len * scale, reps));
  runs.push_back(run_histogram<unsigned long long, 256>("histogram_u64_256", len * scale, reps));
  runs.push_back(run_stencil<float>("stencil_f32", len * scale, reps));
  runs.push_back(run_stencil<float2>("stencil_f32x2", len * scale, reps));
  runs.push_back(run_stencil<float4>("stencil_f32x4", len * scale, reps));
  runs.push_back(run_sgemm<0>("sgemm_tile", 128 * scale, reps));
  runs.push_back(run_sgemm<1>("sgemm_tile_transposed_a", 128 * scale, reps));
  runs.push_back(run_scan("scan_hillis_steele", len * scale, reps));
  runs.push_back(run_pipeline<4, false>("pipeline_cp4_rowmajor", tiles, reps));
  runs.push_back(run_pipeline<8, false>("pipeline_cp8_rowmajor", tiles, reps));
  runs.push_back(run_pipeline<16, false>("pipeline_cp16_rowmajor", tiles, reps));
  runs.push_back(run_pipeline<4, true>("pipeline_cp4_swizzled", tiles, reps));
  runs.push_back(run_pipeline<8, true>("pipeline_cp8_swizzled", tiles, reps));
  runs.push_back(run_pipeline<16, true>("pipeline_cp16_swizzled", tiles, reps));
  int failed = 0;
  for (const auto& r : runs) {
    std::printf("%-28s %s (error %g)\n", r.name.c_str(), r.err == 0 ? "ok" : "WRONG", r.err);
    failed += r.err != 0;
  }
  std::printf("%zu kernels, %d launches each: %d wrong\n", runs.size(), reps, failed);
  return failed == 0 ? 0 : 1;
}
