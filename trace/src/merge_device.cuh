// The device side of merging identical warp records (format.hpp, MergeEntry): included by
// patch.cu, and by tests/merge_device_test.cpp, which runs this same code on the CPU with a warp
// emulated by 32 threads. The includer provides sm_id() and load_slot(const unsigned*) (a
// load at the GPU's coherence point) and the CUDA intrinsics used below.
#pragma once

#include "banklab_trace/format.hpp"

namespace banklab::trace::device {

__device__ __forceinline__ uint64_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

// The sum of `v` over the lanes of `group` (redux is not allowed in a tools patch): a butterfly
// for a full warp, else one shuffle per lane of the group.
__device__ __forceinline__ unsigned group_sum(unsigned group, unsigned v) {
  if (group == 0xffffffffu) {
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(group, v, d);
    return v;
  }
  unsigned sum = 0;
  for (unsigned rest = group; rest != 0; rest &= rest - 1u) sum += __shfl_sync(group, v, __ffs(rest) - 1);
  return sum;
}

// Merges this warp instruction into the launch's table of distinct records (format.hpp,
// MergeEntry): false when it could not (no table, no entry left, probes used up), and the caller
// appends it. Every lane of `group` calls it with its own offset. The comparison is exact (the
// whole canonical record); the hash only chooses where to look.
__device__ __forceinline__ bool merge(DeviceBuffer* buf, unsigned group, unsigned lane, unsigned leader, uint64_t pc,
                                      uint32_t offset, uint8_t kind, uint8_t width, uint8_t flags, uint8_t extra) {
    unsigned* slots = buf->merge_slots;
  if (slots == nullptr) return false;
  // The canonical header word (format.hpp: mask, kind, width, flags, reserved) and the hash: the
  // header, and each lane's offset mixed with its lane number, summed over the group.
  const uint8_t reserved = kind == banklab::trace::kKindAccess ? 0 : extra;
  const uint64_t head = uint64_t{group} | uint64_t{kind} << 32 | uint64_t{width} << 40 | uint64_t{flags} << 48 |
                        uint64_t{reserved} << 56;
  unsigned mine = (offset + lane * 0x9e3779b9u) * 0x85ebca6bu;
  mine ^= mine >> 13;
  mine *= 0xc2b2ae35u;
  mine ^= mine >> 16;
  const unsigned lanes = group_sum(group, mine);
  const uint64_t h = mix64(mix64(pc ^ head * 0x9e3779b97f4a7c15ull) ^ lanes);
  const unsigned shard = sm_id() % banklab::trace::kMergeShards;
  // Once every entry is taken, an empty slot only ends the search (nothing can be inserted any
  // more): the record is appended without claiming the slot. (A stale "not full" is harmless: the
  // claim below finds no entry left.)
  constexpr unsigned kAbsent = 0xfffffffdu;  // not in the table, and no room for it
  const bool full = lane == leader && __ldcg(&buf->merge_used) >= buf->merge_capacity;
  for (int p = 0; p < banklab::trace::kMergeProbes; ++p) {
    unsigned* slot = &slots[(h + static_cast<uint64_t>(p)) & buf->merge_mask];
    unsigned v = 0;
    if (lane == leader) {
      // 0 stays 0 only when this warp claims the empty slot (a slot never empties during a launch).
      v = load_slot(slot);
      if (v == 0 && full) v = kAbsent;
      else if (v == 0 && atomicCAS(slot, 0u, banklab::trace::kMergeSlotBusy) != 0u) v = load_slot(slot);
      while (v == banklab::trace::kMergeSlotBusy) {  // another warp is writing its entry
        __nanosleep(32);
        v = load_slot(slot);
      }
    }
    v = __shfl_sync(group, v, leader);
    if (v == kAbsent) return false;
    if (v == 0) {  // this warp claimed the slot: a new entry
      unsigned long long idx = 0;
      if (lane == leader) idx = atomicAdd(&buf->merge_used, 1ull);
      idx = __shfl_sync(group, idx, leader);
      if (idx >= buf->merge_capacity) {
        if (lane == leader) atomicExch(slot, banklab::trace::kMergeSlotFull);
        return false;
      }
      MergeEntry* e = &buf->merge_entries[idx];
      e->record.offset[lane] = offset;
      if (lane == leader) {
        e->record.pc = pc;
#ifdef __CUDA_ARCH__
        *reinterpret_cast<uint64_t*>(&e->record.mask) = head;  // mask, kind, width, flags: one 8-byte store
#else
        __builtin_memcpy(&e->record.mask, &head, sizeof head);  // the CPU test's: the same bytes, no type pun
#endif
        for (int i = 0; i < banklab::trace::kRecordLanes; ++i)
          if (!(group >> i & 1u)) e->record.offset[i] = 0;
        e->hash = h;
        for (int i = 0; i < banklab::trace::kMergeShards; ++i) e->count[i] = 0;
        e->count[shard] = 1;
      }
      __threadfence();  // this lane's writes, before the leader publishes the entry
      __syncwarp(group);
      if (lane == leader) {
        __threadfence();
        atomicExch(slot, static_cast<unsigned>(idx) + 1u);
      }
      return true;
    }
    if (v == banklab::trace::kMergeSlotFull) continue;
    MergeEntry* e = &buf->merge_entries[v - 1u];
    int same = 0;
    if (lane == leader)
      same = __ldcg(&e->hash) == h && __ldcg(&e->record.pc) == pc &&
             __ldcg(reinterpret_cast<const unsigned long long*>(&e->record.mask)) == head;
    same = __shfl_sync(group, same, leader);
    if (same && __all_sync(group, __ldcg(&e->record.offset[lane]) == offset)) {
      if (lane == leader) atomicAdd(&e->count[shard], 1ull);
      return true;
    }
  }
  return false;
}

}  // namespace banklab::trace::device
