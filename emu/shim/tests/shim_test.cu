// The emulator's CUDA runtime (emu/shim/): what the judge's harness relies on, in a program linked
// against the shim instead of NVIDIA's runtime. Each test runs in a process of its own (ctest), as
// the shim's state is the process's: a fault is sticky for the rest of it, as on a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#include "banklab_emu/shim.h"
#include "banklab_emu/tensor_map.hpp"
#include "banklab_trace/session.hpp"

namespace {

std::string read(const char* path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Library {
  cudaLibrary_t lib = nullptr;
  std::string image;
  explicit Library(const char* path) : image(read(path)) {}
  cudaError_t load() { return cudaLibraryLoadData(&lib, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0); }
  cudaKernel_t kernel(const char* name) {
    cudaKernel_t k{};
    EXPECT_EQ(cudaLibraryGetKernel(&k, lib, name), cudaSuccess) << name;
    return k;
  }
};

// The judge's own kernel, launched with <<<>>> (nvcc's registration code, the call configuration).
__global__ void add_one(int* p, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) p[i] += 1;
}

}  // namespace

TEST(Shim, IsTheEmulatedDevice) {
  ASSERT_NE(&banklab_emu_device, nullptr);
  int n = 0;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, 1);
  cudaDeviceProp p{};
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  EXPECT_EQ(p.major, 9);
  EXPECT_NE(std::string(p.name).find("emulator"), std::string::npos);
}

TEST(Shim, DeviceAddressesAreNeverHostOnes) {
  std::vector<int> host(64, 7);
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 256), cudaSuccess);
  ASSERT_NE(d, nullptr);
  // A host address as the device side of a copy is refused; a device one as the host side too.
  EXPECT_EQ(cudaMemcpy(host.data() + 32, host.data(), 128, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // not sticky
  EXPECT_EQ(cudaMemcpy(d, d, 128, cudaMemcpyHostToHost), cudaErrorInvalidValue);
  ASSERT_EQ(cudaMemcpy(d, host.data(), 256, cudaMemcpyHostToDevice), cudaSuccess);
  std::vector<int> back(64, 0);
  ASSERT_EQ(cudaMemcpy(back.data(), d, 256, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(back, host);
  EXPECT_EQ(cudaMemcpy(back.data(), d, 512, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);  // past its end
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST(Shim, DeviceBytesAreCappedByTheEnvironment) {
  setenv("BANKLAB_EMU_MAX_DEVICE_BYTES", "1048576", 1);  // read when the shim starts: this process's first call
  void *a = nullptr, *b = nullptr;
  EXPECT_EQ(cudaMalloc(&a, 2u << 20), cudaErrorMemoryAllocation);
  ASSERT_EQ(cudaMalloc(&a, 512u << 10), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&b, 600u << 10), cudaErrorMemoryAllocation);
  ASSERT_EQ(cudaFree(a), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&b, 600u << 10), cudaSuccess);  // the bytes in use, not the bytes ever allocated
}

TEST(Shim, RegisteredKernelsRunWithTheirLaunchShape) {
  const int n = 1000;
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i) host[static_cast<std::size_t>(i)] = i;
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, n * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d, host.data(), n * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  add_one<<<(n + 127) / 128, 128>>>(d, n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(host.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < n; ++i) ASSERT_EQ(host[static_cast<std::size_t>(i)], i + 1) << i;
  EXPECT_GT(banklab_emu_warp_instructions(), 0u);
}

TEST(Shim, ALibrarysKernelsRunAndAreTraced) {
  Library l(BANKLAB_SHIM_TEST_FATBIN);
  ASSERT_EQ(l.load(), cudaSuccess);
  unsigned count = 0;
  ASSERT_EQ(cudaLibraryGetKernelCount(&count, l.lib), cudaSuccess);
  EXPECT_EQ(count, 5u);
  cudaKernel_t k = l.kernel("reverse_through_shared");
  const char* name = nullptr;
  ASSERT_EQ(cudaFuncGetName(&name, reinterpret_cast<const void*>(k)), cudaSuccess);
  EXPECT_STREQ(name, "reverse_through_shared");
  float *in = nullptr, *out = nullptr;
  ASSERT_EQ(cudaMalloc(&in, 128), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, 128), cudaSuccess);
  std::vector<float> host(32);
  for (int i = 0; i < 32; ++i) host[static_cast<std::size_t>(i)] = static_cast<float>(i);
  ASSERT_EQ(cudaMemcpy(in, host.data(), 128, cudaMemcpyHostToDevice), cudaSuccess);
  banklab::trace::Session session;
  void* args[] = {&in, &out};
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(k), dim3(1), dim3(32), args, 0, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(host.data(), out, 128, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(host[static_cast<std::size_t>(i)], 31.0f - static_cast<float>(i));
  const std::vector<banklab::trace::Instruction> ins = session.take_instructions();
  ASSERT_EQ(ins.size(), 2u);  // one shared store, one shared load, one warp each
  for (const auto& i : ins) {
    EXPECT_EQ(i.kernel, "reverse_through_shared");
    EXPECT_EQ(i.count, 1u);
    EXPECT_EQ(i.access.mask, 0xffffffffu);
    EXPECT_GT(i.line, 0);
  }
  EXPECT_EQ(session.dropped(), 0u);
  EXPECT_EQ(cudaLibraryUnload(l.lib), cudaSuccess);
}

TEST(Shim, AFaultIsStickyWithTheEmulatorsWords) {
  Library l(BANKLAB_SHIM_TEST_FATBIN);
  ASSERT_EQ(l.load(), cudaSuccess);
  std::vector<float> host(32);
  float* p = host.data();  // a host pointer handed to a kernel: outside every allocation
  void* args[] = {&p};
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(l.kernel("store_through")), dim3(1), dim3(32), args, 0,
                             nullptr),
            cudaSuccess);  // as on a GPU: the launch started
  const cudaError_t e = cudaDeviceSynchronize();
  EXPECT_EQ(e, cudaErrorIllegalAddress);
  EXPECT_NE(std::string(cudaGetErrorString(e)).find("emulator: block (0,0,0), thread 0: wrote 4 bytes"), std::string::npos)
      << cudaGetErrorString(e);
  void* more = nullptr;
  EXPECT_EQ(cudaMalloc(&more, 16), cudaErrorIllegalAddress);  // the context stays unusable
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(host[0], 0.0f);
}

TEST(Shim, ALaunchPastTheLimitRanTooLong) {
  setenv("BANKLAB_EMU_MAX_WARP_INSTRUCTIONS", "5000", 1);  // read when the shim starts: this process's first call
  Library l(BANKLAB_SHIM_TEST_FATBIN);
  ASSERT_EQ(l.load(), cudaSuccess);
  int* flag = nullptr;
  ASSERT_EQ(cudaMalloc(&flag, 4), cudaSuccess);
  void* args[] = {&flag};
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(l.kernel("spin")), dim3(1), dim3(32), args, 0, nullptr),
            cudaSuccess);
  const cudaError_t e = cudaDeviceSynchronize();
  EXPECT_EQ(e, cudaErrorLaunchTimeout);
  EXPECT_NE(std::string(cudaGetErrorString(e)).find("ran more than 5000 warp instructions"), std::string::npos)
      << cudaGetErrorString(e);
}

TEST(Shim, AnInstructionItDoesNotKnowIsNotJudged) {
  Library l(BANKLAB_SHIM_TEST_FATBIN);
  ASSERT_EQ(l.load(), cudaSuccess);
  EXPECT_STREQ(banklab_emu_take_not_judged(), "");
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 128), cudaSuccess);
  void* args[] = {&out};
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(l.kernel("unknown_instruction")), dim3(1), dim3(32), args, 0,
                             nullptr),
            cudaErrorNotSupported);
  const std::string why = banklab_emu_take_not_judged();
  EXPECT_EQ(why.rfind("not judged (emulator: ", 0), 0u) << why;
  EXPECT_NE(why.find("pmevent"), std::string::npos) << why;
  EXPECT_STREQ(banklab_emu_take_not_judged(), "");  // taken
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // not sticky: the context is fine
}

TEST(Shim, ACompressedImageIsNotJudged) {
  Library l(BANKLAB_SHIM_TEST_FATBIN_COMPRESSED);
  EXPECT_EQ(l.load(), cudaErrorNotSupported);
  const std::string why = banklab_emu_take_not_judged();
  EXPECT_NE(why.find("compressed"), std::string::npos) << why;
  std::string truncated = l.image.substr(0, 40);
  EXPECT_EQ(cudaLibraryLoadData(&l.lib, truncated.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
            cudaErrorNotSupported);
}

// The driver's entry points through the runtime (emu/shim/src/cudart_driver.cpp): the runtime's
// documented answers for a symbol found, found but too new for the version asked, not found, and a
// version above the driver's (13.0).
TEST(Shim, DriverEntryPointsAnswerAsTheRuntimeDocumentsThem) {
  int driver = 0;
  ASSERT_EQ(cudaDriverGetVersion(&driver), cudaSuccess);
  EXPECT_EQ(driver, 13000);
  void* fn = &driver;
  cudaDriverEntryPointQueryResult found{};
  ASSERT_EQ(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found), cudaSuccess);
  EXPECT_EQ(found, cudaDriverEntryPointSuccess);
  EXPECT_NE(fn, nullptr);
  fn = &driver;
  ASSERT_EQ(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 11080, cudaEnableDefault, &found), cudaSuccess);
  EXPECT_EQ(found, cudaDriverEntryPointVersionNotSufficent);  // CUDA 12.0 introduced it
  EXPECT_EQ(fn, nullptr);
  fn = &driver;
  ASSERT_EQ(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &fn, 12000, cudaEnableDefault, &found), cudaSuccess);
  EXPECT_EQ(found, cudaDriverEntryPointSymbolNotFound);
  EXPECT_EQ(fn, nullptr);
  EXPECT_EQ(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 13010, cudaEnableDefault, &found),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // not sticky
}

// cuTensorMapEncodeTiled, got as lab 07's harness gets it: the emulator's map of a 16 x 8 tensor of
// halves in device memory, field for field as worked out from the arguments; an argument outside
// cuda.h's documented range is CUDA_ERROR_INVALID_VALUE with the map left as it was.
TEST(Shim, TheDriversTensorMapEncoderWritesTheEmulatorsMap) {
  using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  ASSERT_EQ(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found), cudaSuccess);
  ASSERT_NE(fn, nullptr);
  const auto encode = reinterpret_cast<EncodeTiled>(fn);
  void* tensor = nullptr;
  ASSERT_EQ(cudaMalloc(&tensor, 16 * 8 * 2), cudaSuccess);
  const cuuint64_t dims[2] = {16, 8}, strides[1] = {32};
  const cuuint32_t box[2] = {16, 2}, step[2] = {1, 1};
  CUtensorMap map{};
  ASSERT_EQ(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, tensor, dims, strides, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                   CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            CUDA_SUCCESS);
  banklab::emu::TensorMap m;
  std::string why;
  ASSERT_TRUE(banklab::emu::decode_tensor_map(&map, m, &why)) << why;
  EXPECT_EQ(m.rank, 2);
  EXPECT_EQ(m.element_bytes, 2);
  EXPECT_EQ(m.data_type, 6);  // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
  EXPECT_EQ(m.swizzle, 1);    // CU_TENSOR_MAP_SWIZZLE_32B
  EXPECT_EQ(m.global_address, reinterpret_cast<std::uint64_t>(tensor));
  EXPECT_EQ(m.global_dim[0], 16u);
  EXPECT_EQ(m.global_dim[1], 8u);
  EXPECT_EQ(m.global_stride[0], 32u);
  EXPECT_EQ(m.box_dim[0], 16u);
  EXPECT_EQ(m.box_dim[1], 2u);
  EXPECT_EQ(m.element_stride[0], 1u);
  EXPECT_EQ(m.element_stride[1], 1u);
  // A box of 512 elements (at most 256) and a stride not a multiple of 16 are refused, nothing written.
  const CUtensorMap before = map;
  const cuuint32_t too_wide[2] = {512, 2};
  EXPECT_EQ(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, tensor, dims, strides, too_wide, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                   CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            CUDA_ERROR_INVALID_VALUE);
  const cuuint64_t odd_stride[1] = {40};
  EXPECT_EQ(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, tensor, dims, odd_stride, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                   CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(std::memcmp(&before, &map, sizeof map), 0);
  EXPECT_EQ(encode(nullptr, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, tensor, dims, strides, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                   CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cudaFree(tensor), cudaSuccess);
}

// A library's module variables are its load's own, as on a GPU, where every cudaLibraryLoadData
// makes a module of its own: two loads of one image count their launches apart, and a load after
// an unload starts from the initial value (the judge loads the student's code afresh for every
// judged call: a kernel that counts its module's launches must see 0 at each).
TEST(Shim, EveryLoadOfALibraryHasModuleVariablesOfItsOwn) {
  Library first(BANKLAB_SHIM_TEST_FATBIN), second(BANKLAB_SHIM_TEST_FATBIN), third(BANKLAB_SHIM_TEST_FATBIN);
  ASSERT_EQ(first.load(), cudaSuccess);
  ASSERT_EQ(second.load(), cudaSuccess);
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 4), cudaSuccess);
  void* args[] = {&out};
  auto count = [&](Library& l) {
    int n = -1;
    EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(l.kernel("count_launches")), dim3(1), dim3(32), args, 0, nullptr),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(&n, out, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    return n;
  };
  EXPECT_EQ(count(first), 0);
  EXPECT_EQ(count(first), 1);
  EXPECT_EQ(count(second), 0);  // the same image loaded again: its own variable
  EXPECT_EQ(count(first), 2);
  EXPECT_EQ(cudaLibraryUnload(first.lib), cudaSuccess);
  ASSERT_EQ(third.load(), cudaSuccess);  // the heap may hand it the first's address: it starts afresh
  EXPECT_EQ(count(third), 0);
  EXPECT_EQ(count(second), 1);
}
