// Checks that the grader's replay harness is shared-memory bound on the GPU at hand: for a set
// of patterns, cycles per warp instruction (clock64, one block of 32 warps on one SM) and
// event-timed cost relative to the conflict-free reference, beside the model's wavefronts.
// One wavefront per clock per SM means cycles == wavefronts when the harness is sound.
//   harness_check            prints a table; exit 1 if a pattern is off by more than 5 %
#include <cstdio>
#include <cstdlib>

#include "grader/gpu/replay.cuh"

namespace {
struct Strided {
  banklab::Op op;
  int width;
  std::uint32_t mask;
  std::uint32_t stride;  // in elements of `width` bytes
  __host__ __device__ std::uint32_t offset(int lane) const {
    return static_cast<std::uint32_t>(lane) * stride * static_cast<std::uint32_t>(width);
  }
};
struct XorRow {  // lane writes word (lane ^ k) of row r: a permutation inside one 128-byte row
  banklab::Op op;
  int width;
  std::uint32_t mask;
  int r, k;
  __host__ __device__ std::uint32_t offset(int lane) const {
    return static_cast<std::uint32_t>(r * 32 + (lane ^ k)) * 4u;
  }
};

template <class P>
bool row(const char* name, const P& p) {
  const double cyc = grader::gpu::cycles_per_warp_instruction(p);
  const grader::gpu::TimingResult t = grader::gpu::time_pattern(p);
  const int wf = banklab::count_wavefronts(grader::gpu::to_access(p));
  const bool ok = std::abs(cyc / wf - 1.0) <= 0.05;
  std::printf("%-28s model %2d  cycles %7.3f  cycles/wf %5.3f  event: %.3f ms vs ref %.3f ms -> %6.2f wf  %s\n",
              name, wf, cyc, cyc / wf, t.pattern_ms, t.reference_ms, t.measured_wavefronts(),
              ok ? "ok" : "OFF");
  return ok;
}
}  // namespace

int main() {
  const char* why = banklab::no_gpu_reason();
  if (why[0]) {
    std::printf("skipped: %s\n", why);
    return 0;
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  using banklab::Op;
  bool ok = true;
  for (Op op : {Op::Load, Op::Store}) {
    const char* o = op == Op::Load ? "ld" : "st";
    char name[64];
    for (int width : {4, 8, 16})
      for (std::uint32_t s : {1u, 2u, 32u, 33u}) {
        std::snprintf(name, sizeof name, "%s w%d stride%u", o, width, s);
        ok &= row(name, Strided{op, width, 0xffffffffu, s});
      }
    std::snprintf(name, sizeof name, "%s w4 row5 lane^5", o);
    ok &= row(name, XorRow{op, 4, 0xffffffffu, 5, 5});
    std::snprintf(name, sizeof name, "%s w4 row0 lane^1", o);
    ok &= row(name, XorRow{op, 4, 0xffffffffu, 0, 1});
    std::snprintf(name, sizeof name, "%s w4 row0 lane^0", o);
    ok &= row(name, XorRow{op, 4, 0xffffffffu, 0, 0});
  }
  std::printf("%s\n", ok ? "harness is shared-memory bound: cycles = wavefronts within 5 %"
                         : "SOME PATTERNS ARE OFF: the harness is not shared-memory bound for them");
  return ok ? 0 : 1;
}
