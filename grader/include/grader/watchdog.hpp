// A deadline for GPU work the host cannot poll: a kernel that never ends blocks a traced launch
// inside the tracer's end-of-launch callback, and timed launches inside cudaEventSynchronize,
// where FinishesWithin (grader/gpu/buffers.cuh) never gets to run. While a Watchdog lives, a
// thread waits for it to be destroyed; past the deadline it prints why and ends the process, as
// FinishesWithin does: no verdict is written, which is a failure, in seconds rather than the
// judge's whole-test limit. Standard library only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace grader {

class Watchdog {
 public:
  /// `what` names the work; `where` (e.g. " under the tracer") follows the deadline in the message.
  Watchdog(double seconds, std::string what, std::string where = "")
      : deadline_(std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds))),
        thread_([this, seconds, what = std::move(what), where = std::move(where)] {
          std::unique_lock<std::mutex> lock(mutex_);
          while (!done_) {
            if (cv_.wait_until(lock, deadline_) != std::cv_status::timeout || done_) continue;
            if (std::chrono::steady_clock::now() < deadline_) continue;  // extend() moved it
            std::fprintf(stderr,
                         "%s did not finish within %.0f s%s: a loop in the kernel never ends (or the GPU is far "
                         "too busy). No verdict can be written: this test fails.\n",
                         what.c_str(), seconds, where.c_str());
            std::fflush(stderr);
            std::_Exit(1);
          }
        }) {}
  /// Moves the deadline `seconds` later: time the work spent waiting for something else (the
  /// GPU's lock, grader/gpu/gpu_lock.hpp) is not the work's own.
  void extend(double seconds) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      deadline_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    }
    cv_.notify_one();
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;  // last: it starts once the members it uses exist
};

}  // namespace grader
