// The device side of `banklab trace`: callbacks the Compute Sanitizer patches in front of every
// shared-memory instruction of every loaded module. Built with
//   nvcc --fatbin --compile-as-tools-patch -arch=sm_90 patch.cu
// Each callback runs once per thread; the threads of a warp that reached the same pc together
// form one warp instruction, and the first of them appends one DeviceRecord for all.
#include <sanitizer_patching.h>

#include "banklab_trace/format.hpp"

using banklab::trace::DeviceBuffer;
using banklab::trace::DeviceRecord;

namespace {

__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

// Appends this warp instruction: every lane of the group writes its own offset.
__device__ __forceinline__ void record(void* userdata, uint64_t pc, uint32_t offset, uint8_t kind,
                                       uint8_t width, uint8_t flags, uint8_t extra = 0) {
  auto* buf = static_cast<DeviceBuffer*>(userdata);
  if (buf == nullptr) return;
  const unsigned active = __activemask();          // the lanes that executed the instruction
  const unsigned group = __match_any_sync(active, pc);
  const unsigned lane = lane_id();
  const unsigned leader = __ffs(group) - 1;
  unsigned long long slot = 0;
  if (lane == leader) slot = atomicAdd(&buf->count, 1ull);
  slot = __shfl_sync(group, slot, leader);
  if (slot >= buf->capacity) return;                // counted, not stored: the host reports it
  DeviceRecord* r = &buf->records[slot];
  r->offset[lane] = offset;
  if (lane == leader) {
    r->pc = pc;
    r->mask = group;
    r->kind = kind;
    r->width = width;
    r->flags = flags;
    r->reserved = extra;
  }
}

}  // namespace

extern "C" __device__ __noinline__ SanitizerPatchResult banklab_shared_access(
    void* userdata, uint64_t pc, void* ptr, uint32_t accessSize, uint32_t flags, const void*) {
  record(userdata, pc, static_cast<uint32_t>(reinterpret_cast<uintptr_t>(ptr)),
         banklab::trace::kKindAccess, static_cast<uint8_t>(accessSize), static_cast<uint8_t>(flags));
  return SANITIZER_PATCH_SUCCESS;
}

// cp.async (LDGSTS): the shared offset (low 24 bits: a cp.async writes its own block's shared
// memory, so the cluster rank above them is not needed) and the lane's source bank, (global
// address / 4) % 32, with a bit saying it had a source (none for a zero-filling copy).
extern "C" __device__ __noinline__ SanitizerPatchResult banklab_cp_async(
    void* userdata, uint64_t pc, void* src, uint32_t dst, uint32_t accessSize) {
  using namespace banklab::trace;
  const uint32_t source = src == nullptr ? 0u
      : kSourceKnownBit | (static_cast<uint32_t>(reinterpret_cast<uintptr_t>(src) >> 2) & 31u) << kSourceBankShift;
  record(userdata, pc, (dst & (kClusterRankStride - 1u)) | source, kKindCpAsync, static_cast<uint8_t>(accessSize),
         kFlagSourceBanks);
  return SANITIZER_PATCH_SUCCESS;
}

// ldmatrix / stmatrix (SanitizerCallbackMatrixMemoryAccess): the lane's row address, the bytes
// per row, the access flags (read: ldmatrix, write: stmatrix) and the number of matrices.
extern "C" __device__ __noinline__ SanitizerPatchResult banklab_matrix_access(
    void* userdata, uint64_t pc, uint32_t address, uint32_t accessSize, uint32_t flags, uint32_t count, const void*) {
  record(userdata, pc, address, banklab::trace::kKindLdmatrix, static_cast<uint8_t>(accessSize),
         static_cast<uint8_t>(flags), static_cast<uint8_t>(count));
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult banklab_remote_shared(
    void* userdata, uint64_t pc, void* ptr, uint32_t accessSize, uint32_t flags, const void*) {
  record(userdata, pc, static_cast<uint32_t>(reinterpret_cast<uintptr_t>(ptr)),
         banklab::trace::kKindRemoteShared, static_cast<uint8_t>(accessSize), static_cast<uint8_t>(flags));
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult banklab_bulk_g2s(
    void* userdata, uint64_t pc, uint64_t, uint32_t dst, uint32_t, uint32_t, uint32_t) {
  record(userdata, pc, dst, banklab::trace::kKindBulkCopy, 0, 0);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult banklab_bulk_s2g(
    void* userdata, uint64_t pc, uint64_t, uint32_t src, uint32_t) {
  record(userdata, pc, src, banklab::trace::kKindBulkCopy, 0, 0);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult banklab_wgmma(
    void* userdata, uint64_t pc, uint32_t addressA, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t) {
  record(userdata, pc, addressA, banklab::trace::kKindWgmma, 0, 0);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult banklab_async_store(
    void* userdata, uint64_t pc, uint32_t address, uint32_t, void*, uint32_t accessSize) {
  record(userdata, pc, address, banklab::trace::kKindAsyncStore, static_cast<uint8_t>(accessSize), 0);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult banklab_async_reduction(
    void* userdata, uint64_t pc, uint32_t address, uint32_t, uint32_t accessSize) {
  record(userdata, pc, address, banklab::trace::kKindAsyncStore, static_cast<uint8_t>(accessSize), 0);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult banklab_bulk_s2s(
    void* userdata, uint64_t pc, uint32_t, uint32_t dst, uint32_t, uint32_t) {
  record(userdata, pc, dst, banklab::trace::kKindBulkShared, 0, 0);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult banklab_bulk_red_s2g(
    void* userdata, uint64_t pc, uint64_t, uint32_t src, uint32_t) {
  record(userdata, pc, src, banklab::trace::kKindBulkShared, 0, 0);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult banklab_memset_shared(
    void* userdata, uint64_t pc, uint32_t dst, uint32_t) {
  record(userdata, pc, dst, banklab::trace::kKindMemsetShared, 0, 0);
  return SANITIZER_PATCH_SUCCESS;
}
