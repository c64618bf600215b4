// grader/watchdog.hpp: the deadline of traced and timed launches, which the host cannot poll.
#include "grader/watchdog.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace {

TEST(Watchdog, EndsTheProcessWhenTheWorkOutlivesItsDeadline) {
  EXPECT_EXIT(
      {
        const grader::Watchdog w(0.2, "lab04::transpose_padded", " under the tracer");
        std::this_thread::sleep_for(std::chrono::seconds(30));  // a kernel that never ends
      },
      ::testing::ExitedWithCode(1), "lab04::transpose_padded did not finish within 0 s under the tracer");
}

TEST(Watchdog, SaysWhereTheWorkRanOnlyWhenItIsGiven) {
  EXPECT_EXIT(
      {
        const grader::Watchdog w(0.2, "lab04::transpose_padded, timed beside its reference,");
        std::this_thread::sleep_for(std::chrono::seconds(30));  // timed launches that never end
      },
      ::testing::ExitedWithCode(1),
      "lab04::transpose_padded, timed beside its reference, did not finish within 0 s: a loop in the kernel never ends");
}

TEST(Watchdog, LetsWorkThatEndsInTimeGoOnAtOnce) {
  const auto t0 = std::chrono::steady_clock::now();
  {
    const grader::Watchdog w(30.0, "a launch that returns");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(waited, 5.0) << "destroying the watchdog must not wait for its deadline";
}

TEST(Watchdog, TimeSpentWaitingForTheGpuIsNotTheWorks) {
  EXPECT_EXIT(
      {
        grader::Watchdog w(0.5, "lab04::transpose_padded, timed beside its reference,");
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        w.extend(1.0);  // waited 1 s for the GPU's lock
        std::this_thread::sleep_for(std::chrono::milliseconds(700));  // 1.0 s in all: past 0.5, before 1.5
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(Watchdog, AnExtendedDeadlineStillEndsWorkThatNeverEnds) {
  EXPECT_EXIT(
      {
        grader::Watchdog w(0.2, "lab04::transpose_padded, timed beside its reference,");
        w.extend(0.3);
        std::this_thread::sleep_for(std::chrono::seconds(30));
      },
      ::testing::ExitedWithCode(1), "did not finish within 0 s: a loop in the kernel never ends");
}

}  // namespace
