// The overflow ring's host side (src/drain.cpp) against writers that act as the device does
// (src/patch.cu, slot_for() and publish()): tickets claimed in any order by several threads, each
// waiting for its slot to be drained, writing its record, then publishing it. Every record must
// reach the sink once, in ticket order, whatever the ring's size, launch after launch.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "drain.hpp"

namespace {

using banklab::trace::DeviceRecord;
using banklab::trace::RingDrainer;

struct Ring {
  explicit Ring(std::uint64_t n) : records(n), ready(n), capacity(n) {}
  std::vector<DeviceRecord> records;
  std::vector<unsigned long long> ready;
  unsigned long long drained = 0;
  std::uint64_t capacity;
};

// `writers` threads append `total` records (record t has pc = base + t) as the device does.
void write_like_the_device(Ring& ring, std::uint64_t total, std::uint64_t base, int writers) {
  std::atomic<std::uint64_t> next{0};
  std::vector<std::thread> ts;
  for (int w = 0; w < writers; ++w)
    ts.emplace_back([&] {
      for (std::uint64_t t; (t = next.fetch_add(1)) < total;) {
        while (t >= *reinterpret_cast<volatile unsigned long long*>(&ring.drained) + ring.capacity) std::this_thread::yield();
        DeviceRecord& r = ring.records[t % ring.capacity];
        r.pc = base + t;
        r.mask = 0xffffffffu;
        for (int l = 0; l < 32; ++l) r.offset[l] = static_cast<std::uint32_t>(t + l);
        std::atomic_thread_fence(std::memory_order_seq_cst);
        *reinterpret_cast<volatile unsigned long long*>(&ring.ready[t % ring.capacity]) = t + 1;
      }
    });
  for (auto& t : ts) t.join();
}

void expect_one_launch(RingDrainer& d, Ring& ring, std::uint64_t total, std::uint64_t base) {
  std::vector<std::uint64_t> seen;
  bool offsets_ok = true;
  d.begin(ring.records.data(), ring.ready.data(), &ring.drained, ring.capacity,
          [&](DeviceRecord* r, std::uint64_t n) {
            for (std::uint64_t i = 0; i < n; ++i) {
              seen.push_back(r[i].pc);
              offsets_ok = offsets_ok && r[i].offset[31] == r[i].pc - base + 31;
            }
          });
  write_like_the_device(ring, total, base, 4);
  d.end(total);
  ASSERT_EQ(seen.size(), total) << "records lost or repeated";
  for (std::uint64_t t = 0; t < total; ++t) ASSERT_EQ(seen[t], base + t) << "record " << t << " out of order";
  EXPECT_TRUE(offsets_ok) << "a record reached the sink before its writer had finished it";
}

}  // namespace

TEST(TraceRing, EveryRecordOnceInOrderThroughASmallRing) {
  RingDrainer d;
  Ring ring(8);
  expect_one_launch(d, ring, 20000, 0);
}

TEST(TraceRing, LaunchAfterLaunchAndAnEmptyOne) {
  RingDrainer d;
  Ring ring(64);
  expect_one_launch(d, ring, 1000, 0);
  expect_one_launch(d, ring, 0, 5000);  // no record past the device buffer
  expect_one_launch(d, ring, 7, 9000);  // fewer than the last launch used: its slots were cleared
  expect_one_launch(d, ring, 3000, 20000);
}
