// The overflow ring's drainer (drain.hpp; the device side: patch.cu, slot_for() and publish()).
#include "drain.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

namespace banklab::trace {

namespace {
constexpr std::uint64_t kBatch = 4096;  // records handed to the sink at once
}  // namespace

RingDrainer& ring_drainer() {
  static auto* d = new RingDrainer();
  return *d;
}

void RingDrainer::begin(DeviceRecord* ring, unsigned long long* ready, unsigned long long* drained,
                        std::uint64_t capacity, Sink sink) {
  std::unique_lock<std::mutex> lk(mu_);
  if (active_) {  // the last launch never reached end() (an error on its way): stop it first
    ending_ = true;
    target_ = 0;
    wake_.notify_all();
    done_.wait(lk, [this] { return !active_; });
  }
  if (!thread_.joinable()) {
    thread_ = std::thread([this] { run(); });  // blocked on wake_ while no launch runs
  }
  // A slot the last launch published still holds that ticket + 1, which a new launch's ticket can
  // equal: clear every slot it used.
  if (ready_ == ready && used_ > 0) std::memset(ready, 0, sizeof(unsigned long long) * std::min(used_, capacity));
  else if (ready_ != ready) std::memset(ready, 0, sizeof(unsigned long long) * capacity);
  *reinterpret_cast<volatile unsigned long long*>(drained) = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  ring_ = ring;
  ready_ = ready;
  drained_ = drained;
  capacity_ = capacity;
  sink_ = std::move(sink);
  next_ = 0;
  target_ = 0;
  ending_ = false;
  active_ = true;
  wake_.notify_all();
}

RingDrainer::~RingDrainer() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    quit_ = true;
    wake_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void RingDrainer::end(std::uint64_t total) {
  std::unique_lock<std::mutex> lk(mu_);
  if (!active_) return;
  target_ = total;
  ending_ = true;
  wake_.notify_all();
  done_.wait(lk, [this] { return !active_; });
  used_ = total;
  sink_ = nullptr;
}

// Takes the records published from next_ on (at most kBatch), frees their slots for the device,
// and returns how many.
std::uint64_t RingDrainer::drain_some(std::vector<DeviceRecord>& batch) {
  std::uint64_t n = 0;
  while (n < kBatch) {
    const std::uint64_t t = next_ + n;
    const auto* flag = reinterpret_cast<volatile unsigned long long*>(ready_ + t % capacity_);
    if (*flag != t + 1) break;
    std::atomic_thread_fence(std::memory_order_acquire);
    std::memcpy(&batch[n], const_cast<const DeviceRecord*>(ring_ + t % capacity_), sizeof(DeviceRecord));
    ++n;
  }
  if (n > 0) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *reinterpret_cast<volatile unsigned long long*>(drained_) = next_ + n;  // the device may reuse them
  }
  return n;
}

void RingDrainer::run() {
  std::vector<DeviceRecord> batch(kBatch);
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(mu_);
      wake_.wait(lk, [this] { return active_ || quit_; });
      if (quit_) return;
      if (ending_ && next_ >= target_) {
        active_ = false;
        done_.notify_all();
        continue;
      }
    }
    const std::uint64_t n = drain_some(batch);  // only this thread moves next_ while active_
    if (n > 0) {
      sink_(batch.data(), n);
      std::lock_guard<std::mutex> lk(mu_);
      next_ += n;
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
}

}  // namespace banklab::trace
