// The emulator's CUDA runtime (emu/shim/): what the judge's harness relies on, in a program linked
// against the shim instead of NVIDIA's runtime. Each test runs in a process of its own (ctest), as
// the shim's state is the process's: a fault is sticky for the rest of it, as on a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "banklab_emu/shim.h"
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
  EXPECT_EQ(count, 4u);
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
