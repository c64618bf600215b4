// Does the shared side of a 4/8-byte cp.async depend on where the lanes read global memory?
// The calibration worker reads lane i's bytes at global offset 16 * i (tools/calibrate/worker.cu),
// so in the committed rows "lane i % 8" and "the lane's 16-byte slot of its 128-byte global
// line" are the same thing. This probe runs the same shared-memory patterns with global sources
// 16 * i (as the worker), width * i (contiguous: one 128-byte line for 32 x 4 bytes) and
// 16 * (i ^ 8), one warp and one cp.async per launch, under ncu. Launches 42 on copy 16 bytes a
// lane (there width * i is 16 * i) with sources 16 * i, 32 * i, 128 * i (every lane's source
// starts in bank 0) and 16 * (i ^ 8): does the source bank matter for 16-byte copies too?
//   nvcc -arch=sm_90 -O2 -o probe bench/experiments/cpasync_source/cpasync_source_probe.cu
//   ncu --metrics <shared wavefront metrics> --csv ./probe      (bench/experiments/cpasync_source/cpasync_source_probe.sh)
// It prints one line per launch, in launch order: "launch N: cpasync W MASK OFFSETS... src=S".
// `probe N` makes launch N alone (bench/experiments/cpasync_source/cpasync_source_trace.sh traces each launch apart).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

template <int W>
__global__ void probe(const unsigned* offsets, unsigned mask, const unsigned* src_off, const unsigned char* src) {
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned lane = threadIdx.x;
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem + offsets[lane]));
  const unsigned char* g = src + src_off[lane];
  if ((mask >> lane) & 1u) {
    if (W == 4) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(addr), "l"(g) : "memory");
    else if (W == 8) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(addr), "l"(g) : "memory");
    else asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(addr), "l"(g) : "memory");
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
}

int main(int argc, char** argv) {
  const int only = argc > 1 ? std::atoi(argv[1]) : -1;
  unsigned *d_off, *d_src_off;
  unsigned char* d_src;
  cudaMalloc(&d_off, 32 * 4);
  cudaMalloc(&d_src_off, 32 * 4);
  cudaMalloc(&d_src, 4096);
  cudaMemset(d_src, 1, 4096);
  cudaFuncSetAttribute(probe<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024);
  cudaFuncSetAttribute(probe<8>, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024);
  cudaFuncSetAttribute(probe<16>, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024);
  struct Pattern { const char* name; unsigned mask; unsigned (*word)(unsigned lane); };
  const Pattern patterns[] = {
      {"stride1", 0xffffffffu, [](unsigned i) { return i; }},
      {"share2", 0xffffffffu, [](unsigned i) { return i / 2; }},
      {"share4", 0xffffffffu, [](unsigned i) { return i / 4; }},
      {"lanes0and31", 0x80000001u, [](unsigned i) { return i; }},
      {"even", 0x55555555u, [](unsigned i) { return i; }},
      {"stride8", 0xffffffffu, [](unsigned i) { return 8 * i; }},
      {"stride1_half0", 0x0000ffffu, [](unsigned i) { return i; }},
  };
  // Source modes: "16i", "wi" (contiguous), "16(i^8)", "32i", "128i": lane i's global offset.
  auto source = [](const char* mode, unsigned i, unsigned w) {
    const std::string m = mode;
    return m == "wi" ? i * w : m == "16(i^8)" ? 16u * (i ^ 8u) : m == "32i" ? 32u * i : m == "128i" ? 128u * i : 16u * i;
  };
  struct Width { int w; std::vector<const char*> modes; };
  const Width widths[] = {{4, {"16i", "wi", "16(i^8)"}}, {8, {"16i", "wi", "16(i^8)"}}, {16, {"16i", "32i", "128i", "16(i^8)"}}};
  int launch = 0;
  for (const Width& wm : widths) {
    const int w = wm.w;
    for (const char* src_mode : wm.modes) {
      for (const Pattern& p : patterns) {
        if (only >= 0 && launch != only) { ++launch; continue; }
        unsigned off[32], so[32];
        for (unsigned i = 0; i < 32; ++i) {
          off[i] = p.word(i) * static_cast<unsigned>(w);  // element index times width
          so[i] = source(src_mode, i, static_cast<unsigned>(w));
        }
        cudaMemcpy(d_off, off, sizeof off, cudaMemcpyHostToDevice);
        cudaMemcpy(d_src_off, so, sizeof so, cudaMemcpyHostToDevice);
        if (w == 4) probe<4><<<1, 32, 48 * 1024>>>(d_off, p.mask, d_src_off, d_src);
        else if (w == 8) probe<8><<<1, 32, 48 * 1024>>>(d_off, p.mask, d_src_off, d_src);
        else probe<16><<<1, 32, 48 * 1024>>>(d_off, p.mask, d_src_off, d_src);
        if (cudaDeviceSynchronize() != cudaSuccess) { std::printf("launch %d failed\n", launch); return 1; }
        std::printf("launch %d: %s src=%s | cpasync %d %08x", launch, p.name, src_mode, w, p.mask);
        for (unsigned i = 0; i < 32; ++i) std::printf(" %u", off[i]);
        std::printf("\n");
        ++launch;
      }
    }
  }
  return 0;
}
