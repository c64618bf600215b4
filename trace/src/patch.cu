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

// Where the record of ticket `slot` goes: the device buffer, or (past its capacity) the host's
// overflow ring once the host has drained that ring slot's last use (format.hpp). `ring_ticket`
// is the ring ticket + 1 (0: the device buffer); nullptr: nowhere (no ring), counted, not stored.
struct Slot {
  DeviceRecord* r;
  unsigned long long ring_ticket;
};

__device__ __forceinline__ Slot slot_for(DeviceBuffer* buf, unsigned long long slot) {
  if (slot < buf->capacity) return Slot{&buf->records[slot], 0};
  if (buf->ring == nullptr) return Slot{nullptr, 0};  // counted, not stored: the host reports it
  const unsigned long long t = slot - buf->capacity;
  while (t >= *reinterpret_cast<volatile unsigned long long*>(buf->drained) + buf->ring_capacity) __nanosleep(1000);
  return Slot{&buf->ring[t % buf->ring_capacity], t + 1};
}

// Publishes a ring record once written (every writer fenced its own writes before this).
__device__ __forceinline__ void publish(DeviceBuffer* buf, const Slot& s) {
  if (s.ring_ticket == 0) return;
  __threadfence_system();
  *reinterpret_cast<volatile unsigned long long*>(&buf->ready[(s.ring_ticket - 1) % buf->ring_capacity]) = s.ring_ticket;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// A slot's value, read at the GPU's coherence point (a relaxed load: an acquire load can be
// compiled with an invalidation of the SM's L1, which the traced kernel's own loads use; not
// checked in the SASS here, no disassembler on the CPU machine). The entry it names was written
// and fenced before it was published, and is read through L2 (__ldcg) at an address that depends on
// this value; were a read of it ever stale, the comparison would fail and the record would take
// another entry, which the host merges with the first (add_entries): counts stay exact.
__device__ __forceinline__ unsigned load_slot(const unsigned* slot) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(slot) : "memory");
  return v;
}

}  // namespace

// merge(): the device-side table of distinct records (needs sm_id() and load_slot() above).
#include "merge_device.cuh"

namespace {

// Appends this warp instruction (after merging it, when the launch has a table): every lane of
// the group writes its own offset.
__device__ __forceinline__ void record(void* userdata, uint64_t pc, uint32_t offset, uint8_t kind,
                                       uint8_t width, uint8_t flags, uint8_t extra = 0) {
  auto* buf = static_cast<DeviceBuffer*>(userdata);
  if (buf == nullptr) return;
  const unsigned active = __activemask();          // the lanes that executed the instruction
  const unsigned group = __match_any_sync(active, pc);
  const unsigned lane = lane_id();
  const unsigned leader = __ffs(group) - 1;
  if (banklab::trace::device::merge(buf, group, lane, leader, pc, offset, kind, width, flags, extra)) return;
  Slot s{nullptr, 0};
  if (lane == leader) s = slot_for(buf, atomicAdd(&buf->count, 1ull));
  s.r = reinterpret_cast<DeviceRecord*>(__shfl_sync(group, reinterpret_cast<unsigned long long>(s.r), leader));
  s.ring_ticket = __shfl_sync(group, s.ring_ticket, leader);
  if (s.r == nullptr) return;                       // counted, not stored: the host reports it
  DeviceRecord* r = s.r;
  r->offset[lane] = offset;
  if (lane == leader) {  // two 8-byte stores (mask, kind, width, flags, reserved in one: format.hpp's layout)
    r->pc = pc;
    *reinterpret_cast<uint64_t*>(&r->mask) = uint64_t{group} | uint64_t{kind} << 32 | uint64_t{width} << 40 |
                                             uint64_t{flags} << 48 | uint64_t{extra} << 56;
  }
  if (s.ring_ticket == 0) return;
  __threadfence_system();  // this lane's writes, before the leader publishes the record
  __syncwarp(group);
  if (lane == leader) publish(buf, s);
}

// The record of this warp instruction for callbacks whose arguments are the same in every lane:
// the first lane of the group gets it (its pc and lanes written), the others get nullptr. The
// caller fills it, then publishes it (publish()).
__device__ __forceinline__ Slot claim(void* userdata, uint64_t pc) {
  auto* buf = static_cast<DeviceBuffer*>(userdata);
  if (buf == nullptr) return Slot{nullptr, 0};
  const unsigned active = __activemask();
  const unsigned group = __match_any_sync(active, pc);
  if (lane_id() != static_cast<unsigned>(__ffs(group) - 1)) return Slot{nullptr, 0};
  const Slot s = slot_for(buf, atomicAdd(&buf->count, 1ull));
  if (s.r == nullptr) return s;  // counted, not stored: the host reports it
  s.r->pc = pc;
  s.r->mask = group;
  return s;
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

// wgmma.mma_async (SanitizerCallbackWarpgroupMMAAsync): the operands' shared-window addresses and
// sizes (A's size 0: A comes from registers), the flags and the warp mask, the same in every lane;
// the first lane of the warp writes them into the record's first words (format.hpp, kWgmma*), and
// `reserved` says which warp of its warpgroup this is.
extern "C" __device__ __noinline__ SanitizerPatchResult banklab_wgmma(
    void* userdata, uint64_t pc, uint32_t addressA, uint32_t sizeA, uint32_t addressB, uint32_t sizeB,
    uint32_t flags, uint32_t warpMask) {
  using namespace banklab::trace;
  const Slot s = claim(userdata, pc);
  DeviceRecord* r = s.r;
  if (r == nullptr) return SANITIZER_PATCH_SUCCESS;
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  r->kind = kKindWgmma;
  r->width = 0;
  r->flags = kFlagWgmmaOperands;
  r->reserved = static_cast<uint8_t>(tid / 32u % 4u);
  for (int i = 0; i < kRecordLanes; ++i) r->offset[i] = 0;
  r->offset[kWgmmaAddressA] = addressA;
  r->offset[kWgmmaSizeA] = sizeA;
  r->offset[kWgmmaAddressB] = addressB;
  r->offset[kWgmmaSizeB] = sizeB;
  r->offset[kWgmmaFlags] = flags;
  r->offset[kWgmmaWarpMask] = warpMask;
  publish(static_cast<DeviceBuffer*>(userdata), s);
  return SANITIZER_PATCH_SUCCESS;
}

#if BANKLAB_SANITIZER_HAS_TMA
// cp.async.bulk.tensor global -> shared (SANITIZER_INSTRUCTION_TMA_LOAD, SanitizerCallbackTensorMemoryLoad):
// the callback names the tensor map but not the box; the 128 bytes of the map go into the record and
// the host finds the box in the maps cuTensorMapEncodeTiled made (format.hpp, kFlagTensorMap).
// BANKLAB_TRACE_TMA_MAP=0 makes the host patch banklab_tma_load_count instead, which reads nothing.
extern "C" __device__ __noinline__ SanitizerPatchResult banklab_tma_load(
    void* userdata, uint64_t pc, uint64_t tensorMap, uint32_t, uint32_t, int32_t, int32_t, int32_t, int32_t,
    int32_t, uint32_t dim, uint32_t, uint32_t, uint32_t) {
  using namespace banklab::trace;
  const Slot s = claim(userdata, pc);
  DeviceRecord* r = s.r;
  if (r == nullptr) return SANITIZER_PATCH_SUCCESS;
  r->kind = kKindTmaLoad;
  r->width = static_cast<uint8_t>(dim);
  r->reserved = 0;
  const uint32_t* map = reinterpret_cast<const uint32_t*>(static_cast<uintptr_t>(tensorMap));
  if (map != nullptr) {
    for (int i = 0; i < kRecordLanes; ++i) r->offset[i] = map[i];
    r->flags = kFlagTensorMap;
  } else {
    for (int i = 0; i < kRecordLanes; ++i) r->offset[i] = 0;
    r->flags = kFlagTmaUnknownMap;
  }
  publish(static_cast<DeviceBuffer*>(userdata), s);
  return SANITIZER_PATCH_SUCCESS;
}

// A TMA instruction counted, with no box (format.hpp: kFlagTmaUnknownMap).
__device__ __forceinline__ void tma_counted(void* userdata, uint64_t pc, uint8_t kind) {
  using namespace banklab::trace;
  const Slot s = claim(userdata, pc);
  DeviceRecord* r = s.r;
  if (r == nullptr) return;
  r->kind = kind;
  r->width = 0;
  r->reserved = 0;
  r->flags = kFlagTmaUnknownMap;
  for (int i = 0; i < kRecordLanes; ++i) r->offset[i] = 0;
  publish(static_cast<DeviceBuffer*>(userdata), s);
}

extern "C" __device__ __noinline__ SanitizerPatchResult banklab_tma_load_count(void* userdata, uint64_t pc) {
  tma_counted(userdata, pc, banklab::trace::kKindTmaLoad);
  return SANITIZER_PATCH_SUCCESS;
}

// cp.async.bulk.tensor shared -> global (SANITIZER_INSTRUCTION_TMA_STORE): counted. Only userdata and
// pc are read, the two arguments every patch callback type starts with.
extern "C" __device__ __noinline__ SanitizerPatchResult banklab_tma_store(void* userdata, uint64_t pc) {
  tma_counted(userdata, pc, banklab::trace::kKindTmaStore);
  return SANITIZER_PATCH_SUCCESS;
}
#endif

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

// Diagnostics (BANKLAB_TRACE_DEVICE, inject.cpp): patched in front of the same instructions
// instead of the callbacks above, each with its callback's own signature (NAME_empty, NAME_counting),
// to measure what each part of a callback costs. "empty": the Compute Sanitizer's call alone;
// "count": grouping the warp's lanes and one atomic on the launch's counter per warp instruction
// (what every appended record costs before it writes anything); the host adds up the counts.
namespace {
__device__ __forceinline__ void count_warp(void* userdata, uint64_t pc) {
  auto* buf = static_cast<DeviceBuffer*>(userdata);
  if (buf == nullptr) return;
  const unsigned group = __match_any_sync(__activemask(), pc);
  if (lane_id() == static_cast<unsigned>(__ffs(group) - 1)) atomicAdd(&buf->count, 1ull);
}
}  // namespace

#define BANKLAB_DIAGNOSTICS(name, ...)                                                                     \
  extern "C" __device__ __noinline__ SanitizerPatchResult name##_empty(void*, uint64_t, __VA_ARGS__) {      \
    return SANITIZER_PATCH_SUCCESS;                                                                        \
  }                                                                                                        \
  extern "C" __device__ __noinline__ SanitizerPatchResult name##_counting(void* userdata, uint64_t pc, __VA_ARGS__) { \
    count_warp(userdata, pc);                                                                              \
    return SANITIZER_PATCH_SUCCESS;                                                                        \
  }
BANKLAB_DIAGNOSTICS(banklab_shared_access, void*, uint32_t, uint32_t, const void*)
BANKLAB_DIAGNOSTICS(banklab_cp_async, void*, uint32_t, uint32_t)
BANKLAB_DIAGNOSTICS(banklab_matrix_access, uint32_t, uint32_t, uint32_t, uint32_t, const void*)
BANKLAB_DIAGNOSTICS(banklab_remote_shared, void*, uint32_t, uint32_t, const void*)
BANKLAB_DIAGNOSTICS(banklab_bulk_g2s, uint64_t, uint32_t, uint32_t, uint32_t, uint32_t)
BANKLAB_DIAGNOSTICS(banklab_bulk_s2g, uint64_t, uint32_t, uint32_t)
BANKLAB_DIAGNOSTICS(banklab_wgmma, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t)
BANKLAB_DIAGNOSTICS(banklab_async_store, uint32_t, uint32_t, void*, uint32_t)
BANKLAB_DIAGNOSTICS(banklab_async_reduction, uint32_t, uint32_t, uint32_t)
BANKLAB_DIAGNOSTICS(banklab_bulk_s2s, uint32_t, uint32_t, uint32_t, uint32_t)
BANKLAB_DIAGNOSTICS(banklab_bulk_red_s2g, uint64_t, uint32_t, uint32_t)
BANKLAB_DIAGNOSTICS(banklab_memset_shared, uint32_t, uint32_t)
#if BANKLAB_SANITIZER_HAS_TMA
BANKLAB_DIAGNOSTICS(banklab_tma_load, uint64_t, uint32_t, uint32_t, int32_t, int32_t, int32_t, int32_t, int32_t,
                    uint32_t, uint32_t, uint32_t, uint32_t)
// The TMA callbacks patched with only userdata and pc (as banklab_tma_load_count and banklab_tma_store are).
extern "C" __device__ __noinline__ SanitizerPatchResult banklab_tma_load_count_empty(void*, uint64_t) {
  return SANITIZER_PATCH_SUCCESS;
}
extern "C" __device__ __noinline__ SanitizerPatchResult banklab_tma_load_count_counting(void* userdata, uint64_t pc) {
  count_warp(userdata, pc);
  return SANITIZER_PATCH_SUCCESS;
}
extern "C" __device__ __noinline__ SanitizerPatchResult banklab_tma_store_empty(void*, uint64_t) {
  return SANITIZER_PATCH_SUCCESS;
}
extern "C" __device__ __noinline__ SanitizerPatchResult banklab_tma_store_counting(void* userdata, uint64_t pc) {
  count_warp(userdata, pc);
  return SANITIZER_PATCH_SUCCESS;
}
#endif
