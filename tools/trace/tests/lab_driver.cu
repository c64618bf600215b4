// A tiny driver that launches every lab kernel through its own launcher, for `banklab trace`
// and Nsight Compute to look at the same launches (bench/trace_vs_ncu.sh). Built against
// labs/ (the stubs) or solutions/ by the include path:
//   nvcc -lineinfo -arch=sm_90 -I common/include -I labs      lab_driver.cu -o lab_driver_stubs
//   nvcc -lineinfo -arch=sm_90 -I common/include -I solutions lab_driver.cu -o lab_driver_solutions
// Usage: lab_driver [LAB|all] [SCALE] [REPEAT]   (LAB: a lab's number; SCALE multiplies every
// dimension of the sizes). The labs and their launches: lab_driver_labs.inc, generated from the
// labs' descriptions (python3 python/banklab/lab/gen.py --driver).
#include <cuda.h>  // CUtensorMap: a launcher fed by tensor maps (lab 07) gets maps the driver encodes
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <tuple>
#include <type_traits>

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } \
  } while (0)

// The tensor maps a launcher of `name` takes for an m x n x k GEMM (c = a * b^T: a m x k halves, b
// n x k, row-major), in the mode and box its lab's kernel.cu declares, as the judge encodes them
// (labs/07_tma_swizzle/judge/test.cu, encode_map); false for a launcher the driver has no maps for.
// Defined after the labs' kernels are included.
bool gemm_tensor_maps(const char* name, long long m, long long n, long long k, void* a, void* b, CUtensorMap* maps);

// Calls a launcher with the driver's buffers for its pointer parameters (in order: a, b, c; every
// buffer far larger than any launch reads), the size's numbers times `scale` for its numbers, and
// the default stream. A launcher that takes tensor maps (c, map_a, map_b, m, n, k) gets c in the
// first buffer and the maps at the start of the other two, made over a and b 1 MiB into them.
struct Driver {
  std::string which;
  long long scale = 1;
  void* buf[3] = {};

  bool want(const char* lab) const { return which == "all" || which == lab; }

  template <class R, class... A>
  void run(const char* name, R (*launcher)(A...), std::initializer_list<long long> size) const {
    // A tensor map is made for one matrix and one swizzle mode, which the driver does not know:
    // such a launcher is left out (its kernel is traced by the judge, which encodes the maps).
    if constexpr ((std::is_same_v<std::remove_cv_t<std::remove_pointer_t<A>>, CUtensorMap> || ...)) {
      const long long* d = size.begin();
      CUtensorMap maps[2];
      char* a = static_cast<char*>(buf[1]) + (1 << 20);
      char* b = static_cast<char*>(buf[2]) + (1 << 20);
      if (size.size() != 3 || !gemm_tensor_maps(name, d[0] * scale, d[1] * scale, d[2] * scale, a, b, maps)) {
        std::fprintf(stderr, "%s: takes tensor maps, which the driver cannot make for it: not driven\n", name);
        return;
      }
      CHECK(cudaMemcpy(buf[1], &maps[0], sizeof(CUtensorMap), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(buf[2], &maps[1], sizeof(CUtensorMap), cudaMemcpyHostToDevice));
      run_driven(name, launcher, size);
    } else {
      run_driven(name, launcher, size);
    }
  }

  template <class R, class... A>
  void run_driven(const char* name, R (*launcher)(A...), std::initializer_list<long long> size) const {
    int b = 0, s = 0;
    const long long* dims = size.begin();
    bool ok = true;
    auto arg = [&](auto type) {
      using T = typename decltype(type)::type;
      if constexpr (std::is_same_v<T, cudaStream_t>) {
        return T{};
      } else if constexpr (std::is_pointer_v<T>) {
        if (b >= 3) ok = false;
        return static_cast<T>(b < 3 ? buf[b++] : nullptr);
      } else {
        if (s >= static_cast<int>(size.size())) ok = false;
        return static_cast<T>(s < static_cast<int>(size.size()) ? dims[s++] * scale : 0);
      }
    };
    std::tuple<A...> args{arg(std::common_type<A>{})...};  // braced: the parameters in order
    if (!ok || s != static_cast<int>(size.size())) {
      std::fprintf(stderr, "%s: its parameters do not take 3 buffers and the %zu numbers of its size\n", name,
                   size.size());
      std::exit(1);
    }
    std::apply(launcher, args);
  }
};

#include "lab_driver_labs.inc"

bool gemm_tensor_maps(const char* name, long long m, long long n, long long k, void* a, void* b, CUtensorMap* maps) {
  if (std::strcmp(name, "lab07::gemm") != 0) return false;
  using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                                   const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                   CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess || fn == nullptr)
    return false;
  const int sw = lab07::kSwizzleBytes;
  const CUtensorMapSwizzle mode = sw == 32 ? CU_TENSOR_MAP_SWIZZLE_32B : sw == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                  : sw == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE;
  for (int t = 0; t < 2; ++t) {
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(t == 0 ? m : n)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(k) * 2};
    const cuuint32_t box[2] = {static_cast<cuuint32_t>(lab07::kBoxBytes / 2), 64}, step[2] = {1, 1};
    if (reinterpret_cast<EncodeTiled>(fn)(&maps[t], CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, t == 0 ? a : b, dims, strides, box, step,
                                          CU_TENSOR_MAP_INTERLEAVE_NONE, mode, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
      return false;
  }
  return true;
}

int main(int argc, char** argv) {
  Driver d;
  d.which = argc > 1 ? argv[1] : "all";
  d.scale = argc > 2 ? std::atoi(argv[2]) : 1;
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 1;
  const std::size_t bytes = std::size_t(64) << 20;  // every buffer: far more than any launch reads
  for (void*& p : d.buf) {
    CHECK(cudaMalloc(&p, bytes));
    CHECK(cudaMemset(p, 0, bytes));
  }
  for (int r = 0; r < repeat; ++r) {
    drive_labs(d);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  for (void* p : d.buf) CHECK(cudaFree(p));
  return 0;
}
