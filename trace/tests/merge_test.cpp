// Records merged on the device (format.hpp, MergeEntry) and records appended one per warp
// instruction must come out of the host's Merger as the same distinct instructions with the same
// counts: a launch whose table filled part-way gives both kinds for one instruction.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "banklab_trace/trace.hpp"

namespace {

using banklab::trace::DeviceRecord;
using banklab::trace::MergedRecord;
using banklab::trace::MergeEntry;
using banklab::trace::Merger;

// A warp record as the device writes it: offsets of lanes outside the mask hold anything.
DeviceRecord raw(std::uint64_t pc, std::uint32_t mask, std::uint8_t kind, std::uint8_t extra, std::uint32_t base,
                 std::mt19937& junk) {
  DeviceRecord r{};
  r.pc = pc;
  r.mask = mask;
  r.kind = kind;
  r.width = 4;
  r.flags = 1;
  r.reserved = extra;
  for (int i = 0; i < banklab::trace::kRecordLanes; ++i) r.offset[i] = (mask >> i & 1u) ? base + 4u * i : junk();
  return r;
}

// What the device's table keeps (patch.cu, merge()): the canonical record, the count in shards.
MergeEntry entry(const DeviceRecord& in, std::uint64_t count, int shard) {
  MergeEntry e{};
  e.record = in;
  if (e.record.kind == banklab::trace::kKindAccess) e.record.reserved = 0;
  for (int i = 0; i < banklab::trace::kRecordLanes; ++i)
    if (!(e.record.mask >> i & 1u)) e.record.offset[i] = 0;
  e.count[shard % banklab::trace::kMergeShards] = count;
  return e;
}

using Key = std::tuple<std::uint32_t, std::uint64_t, std::uint32_t, std::uint8_t, std::uint8_t, std::uint32_t>;
std::map<Key, std::uint64_t> counts_of(const std::vector<MergedRecord>& v) {
  std::map<Key, std::uint64_t> m;
  for (const MergedRecord& r : v) {
    const Key k{r.kernel, r.record.pc, r.record.mask, r.record.kind, r.record.reserved, r.record.offset[31]};
    EXPECT_EQ(m.count(k), 0u) << "two merged records for one instruction";
    m[k] += r.count;
  }
  return m;
}

}  // namespace

TEST(TraceDeviceMerge, EntriesAndAppendedRecordsMergeAsIfEveryRecordWereAppended) {
  std::mt19937 junk(7);
  // Instructions: full and partial warps, an access with a stray `reserved`, an ldmatrix (reserved
  // kept: the number of matrices), two kernels.
  struct Ins { std::uint32_t kernel; DeviceRecord r; std::uint64_t times; };
  std::vector<Ins> all = {
      {0, raw(0x100, 0xffffffffu, banklab::trace::kKindAccess, 0, 0x400, junk), 1000},
      {0, raw(0x100, 0x0000ffffu, banklab::trace::kKindAccess, 0, 0x400, junk), 37},
      {0, raw(0x110, 0x7fffffffu, banklab::trace::kKindAccess, 3, 0x800, junk), 5},
      {0, raw(0x120, 0xffffffffu, banklab::trace::kKindLdmatrix, 4, 0xc00, junk), 64},
      {1, raw(0x100, 0xffffffffu, banklab::trace::kKindAccess, 0, 0x400, junk), 9},
  };
  Merger every, mixed;
  std::uint64_t total = 0, from_entries = 0;
  std::vector<MergeEntry> entries;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Ins& in = all[i];
    total += in.times;
    for (std::uint64_t t = 0; t < in.times; ++t) {
      DeviceRecord r = in.r;  // fresh junk outside the mask each time, as a warp would leave
      for (int l = 0; l < banklab::trace::kRecordLanes; ++l)
        if (!(r.mask >> l & 1u)) r.offset[l] = junk();
      every.add(in.kernel, &r, 1);
      if (t < in.times / 3) mixed.add(in.kernel, &r, 1);  // a third appended (the table was full or out of probes)
    }
    const std::uint64_t merged = in.times - in.times / 3;
    // Split over two shards, and an entry of count 0 (claimed, never counted) that must be left out.
    std::vector<MergeEntry> two = {entry(in.r, merged / 2, static_cast<int>(i)), entry(in.r, merged - merged / 2, 3)};
    from_entries += banklab::trace::add_entries(mixed, in.kernel, two.data(), two.size());
    entries.push_back(entry(in.r, 0, 1));
  }
  EXPECT_EQ(banklab::trace::add_entries(mixed, 0, entries.data(), entries.size()), 0u);
  std::uint64_t appended = 0;
  for (const Ins& in : all) appended += in.times / 3;
  EXPECT_EQ(from_entries + appended, total);
  const auto a = counts_of(every.take()), b = counts_of(mixed.take());
  EXPECT_EQ(a.size(), all.size());
  EXPECT_EQ(a, b);
}

TEST(TraceDeviceMerge, AnEntrysShardsAddUp) {
  std::mt19937 junk(1);
  MergeEntry e = entry(raw(0x40, 0xffffffffu, banklab::trace::kKindAccess, 0, 0x400, junk), 0, 0);
  for (int s = 0; s < banklab::trace::kMergeShards; ++s) e.count[s] = static_cast<unsigned long long>(s + 1);
  Merger m;
  EXPECT_EQ(banklab::trace::add_entries(m, 2, &e, 1), 36u);
  const auto v = m.take();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].count, 36u);
  EXPECT_EQ(v[0].kernel, 2u);
}
