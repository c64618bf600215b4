// The device side of merging (src/merge_device.cuh, the code patch.cu runs) on the CPU: each warp
// is 32 threads, its intrinsics (__shfl_sync, __match_any_sync, __all_sync, __syncwarp) exchange
// values among the lanes of the mask, its atomics are the compiler's. Several warps on several
// "SMs" run the same instructions at once into one table, as a launch does; what merge() could
// not take is appended as record() does. The host side (add_entries + Merger) must then see every
// warp instruction once: the same distinct records with the same counts as if each had been
// appended, whether the table holds them all, fills part-way or is reused by the next launch.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "banklab_trace/trace.hpp"
#include "inject_options.hpp"  // merge_slot_count()

namespace emu {

struct Warp {
  std::mutex mu;
  std::condition_variable cv;
  unsigned arrived = 0;
  unsigned long long generation = 0;
  unsigned long long values[32] = {}, snapshot[32] = {};
};

thread_local Warp* t_warp = nullptr;
thread_local unsigned t_lane = 0, t_sm = 0, t_active = 0xffffffffu;

// Every lane of `mask` gives `v`; each gets all of them once the last has arrived.
inline void exchange(unsigned mask, unsigned long long v, unsigned long long (&out)[32]) {
  Warp& w = *t_warp;
  std::unique_lock<std::mutex> lk(w.mu);
  w.values[t_lane] = v;
  const unsigned long long mine = w.generation;
  if (++w.arrived == static_cast<unsigned>(__builtin_popcount(mask))) {
    std::memcpy(w.snapshot, w.values, sizeof w.values);
    w.arrived = 0;
    ++w.generation;
    w.cv.notify_all();
  } else {
    w.cv.wait(lk, [&] { return w.generation != mine; });
  }
  std::memcpy(out, w.snapshot, sizeof out);
}

}  // namespace emu

#define __device__
#define __forceinline__ inline

inline unsigned __activemask() { return emu::t_active; }
inline int __ffs(unsigned x) { return __builtin_ffs(static_cast<int>(x)); }
template <class T> T __shfl_sync(unsigned mask, T v, int src) {
  unsigned long long all[32];
  emu::exchange(mask, static_cast<unsigned long long>(v), all);
  return static_cast<T>(all[src]);
}
inline unsigned __shfl_xor_sync(unsigned mask, unsigned v, int d) {
  unsigned long long all[32];
  emu::exchange(mask, v, all);
  return static_cast<unsigned>(all[emu::t_lane ^ static_cast<unsigned>(d)]);
}
inline int __all_sync(unsigned mask, int pred) {
  unsigned long long all[32];
  emu::exchange(mask, pred != 0, all);
  for (int i = 0; i < 32; ++i)
    if ((mask >> i & 1u) && !all[i]) return 0;
  return 1;
}
inline unsigned __match_any_sync(unsigned mask, unsigned long long v) {
  unsigned long long all[32];
  emu::exchange(mask, v, all);
  unsigned same = 0;
  for (int i = 0; i < 32; ++i)
    if ((mask >> i & 1u) && all[i] == v) same |= 1u << i;
  return same;
}
inline void __syncwarp(unsigned mask) {
  unsigned long long all[32];
  emu::exchange(mask, 0, all);
}
inline unsigned atomicCAS(unsigned* p, unsigned expected, unsigned desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
inline unsigned atomicExch(unsigned* p, unsigned v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
inline void __nanosleep(unsigned) { std::this_thread::yield(); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
template <class T> T __ldcg(const T* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline unsigned sm_id() { return emu::t_sm; }
inline unsigned load_slot(const unsigned* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

#include "merge_device.cuh"

namespace {

using banklab::trace::DeviceBuffer;
using banklab::trace::DeviceRecord;
using banklab::trace::MergeEntry;

struct Instruction {
  std::uint64_t pc;
  unsigned active;  // lanes that run it (the others skip it, as predicated-off lanes do)
  std::uint8_t kind, width, flags, extra;
  std::uint32_t offset[32];
};

// A launch's table, the buffers the device would have, and what record() appended.
struct Launch {
  explicit Launch(std::uint64_t entries)
      : slots(banklab::trace::merge_slot_count(entries)), table(entries) {
    buf.merge_slots = slots.data();
    buf.merge_mask = slots.size() - 1;
    buf.merge_entries = table.data();
    buf.merge_capacity = entries;
  }
  void reset() {  // what the host does before each launch (sanitizerMemset of the slots, a fresh header)
    std::fill(slots.begin(), slots.end(), 0u);
    buf.merge_used = 0;
    appended.clear();
  }
  std::vector<unsigned> slots;
  std::vector<MergeEntry> table;
  DeviceBuffer buf{};
  std::mutex mu;
  std::vector<DeviceRecord> appended;
};

// One lane of one warp running `program` (record() of patch.cu, with the append emulated).
void lane_main(Launch& l, emu::Warp& warp, emu::Warp& step, unsigned lane, unsigned sm, const std::vector<Instruction>& program,
               std::uint32_t junk_seed) {
  emu::t_warp = &warp;
  emu::t_lane = lane;
  emu::t_sm = sm;
  std::mt19937 junk(junk_seed + lane);
  for (const Instruction& in : program) {
    if (in.active >> lane & 1u) {
      emu::t_active = in.active;
      const unsigned group = __match_any_sync(__activemask(), in.pc);
      const unsigned leader = static_cast<unsigned>(__ffs(group) - 1);
      const bool merged = banklab::trace::device::merge(&l.buf, group, lane, leader, in.pc, in.offset[lane], in.kind,
                                                        in.width, in.flags, in.extra);
      if (!merged && lane == leader) {  // appended by the group's leader (junk outside the group, as on the device)
        DeviceRecord r{};
        for (unsigned i = 0; i < 32; ++i) r.offset[i] = (group >> i & 1u) ? in.offset[i] : junk();
        {
          r.pc = in.pc;
          r.mask = group;
          r.kind = in.kind;
          r.width = in.width;
          r.flags = in.flags;
          r.reserved = in.extra;
          std::lock_guard<std::mutex> lk(l.mu);
          l.appended.push_back(r);
        }
      }
    }
    // The emulation's step, on a barrier of its own (lanes that skipped the instruction must not
    // join the collectives of those that run it): every lane ends the instruction before the next.
    emu::t_warp = &step;
    __syncwarp(0xffffffffu);
    emu::t_warp = &warp;
  }
}

// Runs `warps` warps over `program` (each warp on SM w % 3) and returns the merged records by bytes.
std::map<std::string, std::uint64_t> run_launch(Launch& l, int warps, const std::vector<Instruction>& program,
                                                std::uint64_t* merged_out = nullptr) {
  l.reset();
  std::vector<emu::Warp> ws(static_cast<std::size_t>(warps)), steps(static_cast<std::size_t>(warps));
  std::vector<std::thread> threads;
  for (int w = 0; w < warps; ++w)
    for (unsigned lane = 0; lane < 32; ++lane)
      threads.emplace_back(lane_main, std::ref(l), std::ref(ws[static_cast<std::size_t>(w)]),
                           std::ref(steps[static_cast<std::size_t>(w)]), lane,
                           static_cast<unsigned>(w % 3), std::cref(program), static_cast<std::uint32_t>(w * 97));
  for (auto& t : threads) t.join();
  banklab::trace::Merger m;
  const std::uint64_t used = std::min<std::uint64_t>(l.buf.merge_used, l.buf.merge_capacity);
  const std::uint64_t merged = banklab::trace::add_entries(m, 0, l.table.data(), used);
  if (merged_out) *merged_out = merged;
  m.add(0, l.appended.data(), l.appended.size());
  std::map<std::string, std::uint64_t> out;
  for (const auto& r : m.take()) out[std::string(reinterpret_cast<const char*>(&r.record), sizeof r.record)] += r.count;
  return out;
}

// What appending every warp instruction gives: the Merger fed one record per warp instruction.
std::map<std::string, std::uint64_t> expected(int warps, const std::vector<Instruction>& program) {
  banklab::trace::Merger m;
  for (int w = 0; w < warps; ++w)
    for (const Instruction& in : program) {
      DeviceRecord r{};
      r.pc = in.pc;
      r.mask = in.active;
      r.kind = in.kind;
      r.width = in.width;
      r.flags = in.flags;
      r.reserved = in.extra;
      for (int i = 0; i < 32; ++i) r.offset[i] = (in.active >> i & 1u) ? in.offset[i] : 0xdeadbeefu;
      m.add(0, &r, 1);
    }
  std::map<std::string, std::uint64_t> out;
  for (const auto& r : m.take()) out[std::string(reinterpret_cast<const char*>(&r.record), sizeof r.record)] += r.count;
  return out;
}

// A kernel's instructions: a few pcs, each with a few offset patterns (rows of a tile), some
// partial warps, an ldmatrix (its `reserved` kept), an access with a stray `extra` (dropped).
std::vector<Instruction> program(int steps, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Instruction> p;
  for (int s = 0; s < steps; ++s) {
    Instruction in{};
    const int pick = static_cast<int>(rng() % 6);
    in.pc = 0x100 + 0x10 * static_cast<std::uint64_t>(pick);
    in.active = pick == 4 ? 0x0000ffffu : pick == 5 ? 0x7ffffffeu : 0xffffffffu;
    in.kind = pick == 3 ? banklab::trace::kKindLdmatrix : banklab::trace::kKindAccess;
    in.width = pick == 3 ? 16 : 4;
    in.flags = banklab::trace::kFlagRead;
    in.extra = pick == 3 ? 4 : pick == 2 ? 7 : 0;
    const std::uint32_t row = rng() % 4;
    for (std::uint32_t i = 0; i < 32; ++i) in.offset[i] = 0x400 + (row * 33 + i) * 4 + (pick == 1 ? (i % 2) * 128 : 0);
    p.push_back(in);
  }
  return p;
}

}  // namespace

TEST(TraceDeviceMergeCode, ATableThatHoldsEverythingMergesEveryWarpInstruction) {
  const auto prog = program(60, 1);
  Launch l(1024);
  std::uint64_t merged = 0;
  const auto got = run_launch(l, 4, prog, &merged);
  EXPECT_EQ(got, expected(4, prog));
  EXPECT_EQ(merged, 4u * prog.size()) << "every warp instruction should have merged on the device";
  EXPECT_TRUE(l.appended.empty());
  EXPECT_LE(l.buf.merge_used, 24u) << "one entry per distinct record (6 pcs x 4 rows at most)";
}

TEST(TraceDeviceMergeCode, AFullTableAppendsTheRestAndNothingIsLostOrCountedTwice) {
  const auto prog = program(60, 2);
  Launch l(3);
  std::uint64_t merged = 0;
  const auto got = run_launch(l, 4, prog, &merged);
  EXPECT_EQ(got, expected(4, prog));
  EXPECT_GT(merged, 0u);
  EXPECT_FALSE(l.appended.empty()) << "a table of 3 cannot hold this program's distinct records";
  EXPECT_EQ(merged + l.appended.size(), 4u * prog.size());
}

TEST(TraceDeviceMergeCode, TheNextLaunchReusesTheTableWithoutOldCounts) {
  Launch l(64);
  const auto a = program(40, 3), b = program(40, 4);
  EXPECT_EQ(run_launch(l, 3, a), expected(3, a));
  EXPECT_EQ(run_launch(l, 3, b), expected(3, b));
}
