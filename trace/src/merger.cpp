// banklab::trace::Merger (trace.hpp): identical warp records merged into one with a count, whether
// they come one per warp instruction or already merged on the device with their counts.
#include <cstring>

#include "banklab_trace/trace.hpp"

namespace banklab::trace {
namespace {

// The record with its inactive lanes zeroed, so equal instructions compare equal.
DeviceRecord canonical(const DeviceRecord& in) {
  DeviceRecord r = in;
  if (r.kind == kKindAccess) r.reserved = 0;
  // wgmma and TMA records keep one instruction's fields in their first words, not lane offsets.
  const bool fields = (r.kind == kKindWgmma && (r.flags & kFlagWgmmaOperands)) || r.kind == kKindTmaLoad ||
                      r.kind == kKindTmaStore;
  if (r.mask != 0xffffffffu && !fields)
    for (int i = 0; i < kRecordLanes; ++i)
      if (!(r.mask >> i & 1u)) r.offset[i] = 0;
  return r;
}

std::uint64_t hash_record(std::uint32_t kernel, const DeviceRecord& r) {
  // Two independent multiply-add chains over the record's 64-bit words, then a final mix:
  // fast, and spreads well enough for an open-addressing table.
  std::uint64_t words[sizeof(DeviceRecord) / 8];
  std::memcpy(words, &r, sizeof r);
  std::uint64_t a = 0x9e3779b97f4a7c15ull ^ kernel, b = 0xc2b2ae3d27d4eb4full;
  for (std::size_t i = 0; i < sizeof(DeviceRecord) / 8; i += 2) {
    a = (a ^ words[i]) * 0xff51afd7ed558ccdull;
    b = (b ^ words[i + 1]) * 0xc4ceb9fe1a85ec53ull;
  }
  std::uint64_t h = a ^ (b >> 29) ^ (b << 35);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

}  // namespace

void Merger::grow() {
  std::vector<std::uint32_t> slots(slots_.empty() ? 1024 : slots_.size() * 2, 0);
  const std::size_t mask = slots.size() - 1;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    std::size_t at = hashes_[i] & mask;
    while (slots[at] != 0) at = (at + 1) & mask;
    slots[at] = static_cast<std::uint32_t>(i + 1);
  }
  slots_.swap(slots);
}

// One record (or `count` alike), inlined into both add()s: the per-record loop is the host's
// hot path when every warp instruction comes back as a record.
__attribute__((always_inline)) inline void Merger::add_one(std::uint32_t kernel, const DeviceRecord& record,
                                                           std::uint64_t count) {
  // Full warps are already canonical: no copy.
  const bool full = record.mask == 0xffffffffu && record.reserved == 0;
  DeviceRecord scratch;
  if (!full) scratch = canonical(record);
  const DeviceRecord& r = full ? record : scratch;
  const std::uint64_t h = hash_record(kernel, r);
  const std::size_t mask = slots_.size() - 1;
  std::size_t at = h & mask;
  while (slots_[at] != 0) {
    const std::uint32_t idx = slots_[at] - 1;
    MergedRecord& m = records_[idx];
    if (hashes_[idx] == h && m.kernel == kernel && std::memcmp(&m.record, &r, sizeof r) == 0) {
      m.count += count;
      return;
    }
    at = (at + 1) & mask;
  }
  slots_[at] = static_cast<std::uint32_t>(records_.size() + 1);
  records_.push_back(MergedRecord{kernel, r, count});
  hashes_.push_back(h);
  if (records_.size() * 2 > slots_.size()) grow();
}

void Merger::add(std::uint32_t kernel, const DeviceRecord* records, std::size_t n) {
  if (slots_.empty()) grow();
  for (std::size_t i = 0; i < n; ++i) add_one(kernel, records[i], 1);
}

void Merger::add(std::uint32_t kernel, const DeviceRecord& record, std::uint64_t count) {
  if (slots_.empty()) grow();
  add_one(kernel, record, count);
}

std::vector<MergedRecord> Merger::take() {
  slots_.clear();
  hashes_.clear();
  std::vector<MergedRecord> out = std::move(records_);
  records_.clear();
  return out;
}

std::uint64_t add_entries(Merger& merger, std::uint32_t kernel, const MergeEntry* entries, std::size_t n) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t count = 0;
    for (const unsigned long long c : entries[i].count) count += c;
    if (count == 0) continue;
    merger.add(kernel, entries[i].record, count);
    total += count;
  }
  return total;
}

}  // namespace banklab::trace
