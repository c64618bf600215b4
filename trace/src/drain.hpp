// The host side of the overflow ring (banklab_trace/format.hpp, DeviceBuffer): a thread that,
// while a launch runs, takes the records the device publishes in pinned host memory once the
// device buffer is full, so that no record is lost whatever the size of the program.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "banklab_trace/format.hpp"

namespace banklab::trace {

class RingDrainer {
 public:
  /// Gets each batch of drained records, in ticket order, on the drainer's thread (the thread
  /// that launched waits in end() meanwhile, so the sink may use what that thread holds).
  using Sink = std::function<void(DeviceRecord* records, std::uint64_t n)>;

  RingDrainer() = default;
  RingDrainer(const RingDrainer&) = delete;
  RingDrainer& operator=(const RingDrainer&) = delete;
  ~RingDrainer();  ///< stops the thread (after the last end())

  /// A launch that may overflow into `ring` (pinned host, `capacity` records) is about to start:
  /// clears the slots the last launch used (`ready`) and `*drained`, and starts draining into `sink`.
  void begin(DeviceRecord* ring, unsigned long long* ready, unsigned long long* drained, std::uint64_t capacity,
             Sink sink);
  /// The launch has ended (its stream synchronised) after appending `total` records to the ring:
  /// returns when every one of them went to the sink, and stops draining.
  void end(std::uint64_t total);

 private:
  void run();
  std::uint64_t drain_some(std::vector<DeviceRecord>& batch);

  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::thread thread_;
  bool active_ = false, ending_ = false, quit_ = false;
  std::uint64_t target_ = 0, next_ = 0, used_ = 0;
  DeviceRecord* ring_ = nullptr;
  unsigned long long* ready_ = nullptr;
  unsigned long long* drained_ = nullptr;
  std::uint64_t capacity_ = 0;
  Sink sink_;
};

/// The process's drainer (never destroyed: the injected library's callbacks may run during static
/// destruction at exit).
RingDrainer& ring_drainer();

}  // namespace banklab::trace
