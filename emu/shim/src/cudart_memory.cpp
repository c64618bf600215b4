// The CUDA runtime's calls for errors, the device, memory, streams and events, answered by the
// emulator (emu/shim/, docs/dev/EMULATOR.md). Launches and modules: cudart_launch.cpp; the
// driver's entry points: cudart_driver.cpp.
//
// One device (0), synchronous: every launch has finished when its call returns, so a stream or an
// event is always complete. A fault of a launch (an access outside memory) is sticky, as a GPU's
// context makes it: every later call returns it, and cudaGetErrorString() adds the emulator's words
// (block, thread, PTX line, source line) to CUDA's.
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "state.hpp"

using banklab::emu::shim::State;
using banklab::emu::shim::state;

namespace {

using Guard = std::lock_guard<std::recursive_mutex>;

struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};

// CUDA's own names and words for the errors the shim returns.
constexpr ErrorText kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const ErrorText* error_text(cudaError_t e) {
  for (const ErrorText& t : kErrors)
    if (t.code == e) return &t;
  return nullptr;
}

cudaError_t fail(State& s, cudaError_t e) {
  s.last = e;
  return e;
}

// A call's start: a fault of an earlier launch answers every call, as on a GPU.
#define SHIM_ENTER()             \
  State& s = state();            \
  Guard guard_(s.lock);          \
  if (s.sticky != cudaSuccess) return s.sticky

}  // namespace

extern "C" {

// ---- errors -----------------------------------------------------------------------------------

cudaError_t cudaGetLastError(void) {
  State& s = state();
  Guard g(s.lock);
  if (s.sticky != cudaSuccess) return s.sticky;
  const cudaError_t e = s.last;
  s.last = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) {
  State& s = state();
  Guard g(s.lock);
  return s.sticky != cudaSuccess ? s.sticky : s.last;
}

const char* cudaGetErrorName(cudaError_t e) {
  const ErrorText* t = error_text(e);
  return t ? t->name : "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t e) {
  const ErrorText* t = error_text(e);
  State& s = state();
  Guard g(s.lock);
  if (e != cudaSuccess && e == s.sticky && !s.sticky_message.empty()) {
    thread_local std::string out;
    out = std::string(t ? t->text : "unknown error") + " (" + s.sticky_message + ")";
    return out.c_str();
  }
  return t ? t->text : "unknown error";
}

// ---- the device -------------------------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return cudaErrorInvalidValue;
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (!device) return cudaErrorInvalidValue;
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (!value || device != 0) return cudaErrorInvalidValue;
  switch (attr) {  // an H200's (sm_90), the machine the emulator is compared with
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    case cudaDevAttrMultiProcessorCount: *value = 132; break;
    case cudaDevAttrL2CacheSize: *value = 60 << 20; break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = 48 << 10; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = 227 << 10; break;
    default: *value = 0; break;
  }
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (!prop || device != 0) return cudaErrorInvalidValue;
  std::memset(prop, 0, sizeof *prop);
  std::strncpy(prop->name, "banklab emulator (sm_90 PTX on the CPU)", sizeof prop->name - 1);
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 132;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->sharedMemPerBlock = 48 << 10;
  prop->sharedMemPerBlockOptin = 227 << 10;
  prop->l2CacheSize = 60 << 20;
  prop->totalGlobalMem = static_cast<std::size_t>(4) << 30;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  SHIM_ENTER();
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) {
  SHIM_ENTER();
  return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t) {  // every launch has finished when its call returns
  SHIM_ENTER();
  return cudaSuccess;
}

// ---- memory -----------------------------------------------------------------------------------

cudaError_t cudaMalloc(void** p, size_t bytes) {
  SHIM_ENTER();
  if (!p) return fail(s, cudaErrorInvalidValue);
  const std::uint64_t at = s.device->alloc(bytes ? bytes : 1);
  if (!at) return fail(s, cudaErrorMemoryAllocation);
  *p = reinterpret_cast<void*>(at);
  return cudaSuccess;
}

cudaError_t cudaFree(void* p) {
  SHIM_ENTER();
  if (!p) return cudaSuccess;
  const auto at = reinterpret_cast<std::uint64_t>(p);
  if (!s.device->owns(at) || !s.device->at(at, 0)) return fail(s, cudaErrorInvalidValue);
  s.device->free(at);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, enum cudaMemcpyKind kind) {
  SHIM_ENTER();
  if (n == 0) return cudaSuccess;
  if (!dst || !src) return fail(s, cudaErrorInvalidValue);
  const auto d = reinterpret_cast<std::uint64_t>(dst), from = reinterpret_cast<std::uint64_t>(src);
  const bool dst_dev = s.device->owns(d), src_dev = s.device->owns(from);
  // Each side where the kind says it is; cudaMemcpyDefault: where the address is.
  const bool to_dev = kind == cudaMemcpyDefault ? dst_dev : kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool from_dev = kind == cudaMemcpyDefault ? src_dev : kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (to_dev != dst_dev || from_dev != src_dev) return fail(s, cudaErrorInvalidValue);
  try {
    if (!to_dev && !from_dev) {
      std::memmove(dst, src, n);
    } else if (to_dev && !from_dev) {
      s.device->write(d, src, n);
    } else if (!to_dev) {
      s.device->read(from, dst, n);
    } else {
      std::vector<unsigned char> tmp(n);
      s.device->read(from, tmp.data(), n);
      s.device->write(d, tmp.data(), n);
    }
  } catch (const std::out_of_range&) {
    return fail(s, cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, enum cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, n, kind);
}

cudaError_t cudaMemset(void* p, int value, size_t n) {
  SHIM_ENTER();
  if (n == 0) return cudaSuccess;
  unsigned char* at = s.device->at(reinterpret_cast<std::uint64_t>(p), n);
  if (!at) return fail(s, cudaErrorInvalidValue);
  std::memset(at, value, n);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* p, int value, size_t n, cudaStream_t) { return cudaMemset(p, value, n); }

cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned int) {
  if (!p) return cudaErrorInvalidValue;
  *p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096 + 4096);  // plain memory: nothing to pin
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaMallocHost(void** p, size_t bytes) { return cudaHostAlloc(p, bytes, 0); }

cudaError_t cudaFreeHost(void* p) {
  std::free(p);
  return cudaSuccess;
}

// ---- events: recorded, never timed ------------------------------------------------------------
// The emulator does not time kernels: the judge skips timing tests where it emulates ("needs a
// GPU"); a timing that reaches cudaEventElapsedTime anyway fails, never reads a made-up figure.

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  if (!e) return cudaErrorInvalidValue;
  *e = reinterpret_cast<cudaEvent_t>(new (std::nothrow) int(0));
  return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) { return cudaEventCreate(e); }

cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete reinterpret_cast<int*>(e);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) {
  SHIM_ENTER();
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t) {
  SHIM_ENTER();
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t) {
  SHIM_ENTER();
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  SHIM_ENTER();
  if (ms) *ms = 0;
  return fail(s, cudaErrorNotSupported);
}

}  // extern "C"
