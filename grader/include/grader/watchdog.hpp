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
      : thread_([this, seconds, what = std::move(what), where = std::move(where)] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) return;
          std::fprintf(stderr,
                       "%s did not finish within %.0f s%s: a loop in the kernel never ends (or the GPU is far "
                       "too busy). No verdict can be written: this test fails.\n",
                       what.c_str(), seconds, where.c_str());
          std::fflush(stderr);
          std::_Exit(1);
        }) {}
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
  std::thread thread_;  // last: it starts once the members it uses exist
};

}  // namespace grader
