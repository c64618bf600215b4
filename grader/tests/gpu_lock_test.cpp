// grader/gpu/gpu_lock.hpp without a GPU: the wait for a lock file another judge holds, and the
// process's wait budget past which a judge runs without the lock (its test's limit must not run
// out while it waits). Another judge is a child process (or a thread with descriptors of its own)
// holding the same file. Then the shared/exclusive protocol of scope `timed-kernels`.
#include "grader/gpu/gpu_lock.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

// A child that holds `path` exclusively for `seconds`, then exits; returns once it holds it.
pid_t hold_in_child(const std::string& path, double seconds) {
  int ready[2];
  if (pipe(ready) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(path.c_str(), O_RDONLY | O_CREAT, 0644);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) _exit(3);
    if (write(ready[1], "x", 1) != 1) _exit(4);
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    _exit(0);
  }
  char c = 0;
  close(ready[1]);
  EXPECT_EQ(read(ready[0], &c, 1), 1) << "the child could not take the lock";
  close(ready[0]);
  return pid;
}

std::string lock_path(const char* name) {
  return (::testing::TempDir() + "/banklab-gpu-lock-test-") + name + "-" + std::to_string(getpid());
}

TEST(GpuLock, AWaiterGetsTheLockWhenTheOtherJudgeLetsItGo) {
  const std::string path = lock_path("wait");
  const pid_t other = hold_in_child(path, 0.4);
  const int fd = open(path.c_str(), O_RDONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  grader::gpu::detail::gpu_lock_waited_s() = 0;
  bool got = false;
  const double waited = grader::gpu::detail::wait_for_lock(fd, LOCK_EX, std::chrono::microseconds(500), got);
  EXPECT_TRUE(got);
  EXPECT_GE(waited, 0.2) << "it must have waited for the other judge's run";
  EXPECT_LT(waited, 5.0);
  EXPECT_NEAR(grader::gpu::detail::gpu_lock_waited_s(), waited, 1e-9) << "each wait counts against the budget";
  int status = 0;
  waitpid(other, &status, 0);
  close(fd);
  unlink(path.c_str());
}

TEST(GpuLock, PastTheProcesssWaitBudgetTheJudgeRunsWithoutTheLock) {
  const std::string path = lock_path("budget");
  const pid_t other = hold_in_child(path, 30);
  const int fd = open(path.c_str(), O_RDONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  // As if this process had already waited all but 0.3 s of its budget for earlier timed runs.
  grader::gpu::detail::gpu_lock_waited_s() = grader::gpu::kGpuLockMaxWaitSeconds - 0.3;
  bool got = true;
  const auto t0 = std::chrono::steady_clock::now();
  grader::gpu::detail::wait_for_lock(fd, LOCK_EX, std::chrono::microseconds(500), got);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(got) << "the other judge still holds it";
  EXPECT_GE(s, 0.25);
  EXPECT_LT(s, 5.0) << "it must give up once the budget is spent, not wait for the other judge";
  EXPECT_GT(grader::gpu::detail::gpu_lock_waited_s(), grader::gpu::kGpuLockMaxWaitSeconds);
  kill(other, SIGKILL);
  int status = 0;
  waitpid(other, &status, 0);
  close(fd);
  unlink(path.c_str());
  grader::gpu::detail::gpu_lock_waited_s() = 0;
}

TEST(GpuLock, WhichTestsHoldTheGpuForTheirWholeRun) {
  // Scope `test` (kLockEachTimedRunOnly off, today's default): a timed or traced test holds the
  // GPU alone for its whole run, a correctness check holds the lock shared. `timed-run`: a traced
  // test alone, timed tests per timed run, correctness checks no lock. `timed-run-traced-unlocked`:
  // no test holds it for its whole run.
  using grader::gpu::GpuLockScope;
  const std::string timed = "Lab05OnGpu.TransposeMeetsTheKernelTimingTarget";
  const std::string correct = "Lab05OnGpu.TransposeIsCorrectFor1024x1024";
  const std::string traced = "Lab05OnGpu.TracedSharedAccessesOfBothKernelsAreConflictFree";
  for (const GpuLockScope s : {GpuLockScope{false, true, false}, GpuLockScope{true, true, false},
                               GpuLockScope{true, false, false}}) {
    const bool per_run = s.each_timed_run_only;
    EXPECT_EQ(grader::gpu::gpu_test_needs_the_gpu_alone(timed, s), !per_run);
    EXPECT_FALSE(grader::gpu::gpu_test_needs_the_gpu_alone(correct, s));
    EXPECT_EQ(grader::gpu::gpu_test_holds_the_lock(correct, s), !per_run);
    EXPECT_EQ(grader::gpu::gpu_test_needs_the_gpu_alone(traced, s), !per_run || s.tracing_alone);
    EXPECT_EQ(grader::gpu::gpu_test_holds_the_lock(traced, s), !per_run || s.tracing_alone);
  }
  // `timed-kernels`: every GPU test holds it shared for its whole run, none alone (the timed pairs
  // take it exclusively inside the test).
  const GpuLockScope k{true, false, true};
  for (const std::string& name : {timed, correct, traced}) {
    EXPECT_FALSE(grader::gpu::gpu_test_needs_the_gpu_alone(name, k)) << name;
    EXPECT_TRUE(grader::gpu::gpu_test_holds_the_lock(name, k)) << name;
  }
}

TEST(GpuLock, TheScopeComesFromTheConstantsUnlessTheEnvironmentNamesOne) {
  const char* old = std::getenv("BANKLAB_GPU_LOCK_SCOPE");
  const std::string saved = old ? old : "";
  unsetenv("BANKLAB_GPU_LOCK_SCOPE");
  grader::gpu::GpuLockScope d;
  ASSERT_TRUE(grader::gpu::gpu_lock_scope_named(grader::gpu::kDefaultGpuLockScope, d));
  EXPECT_EQ(grader::gpu::gpu_lock_scope().each_timed_run_only, d.each_timed_run_only);
  EXPECT_EQ(grader::gpu::gpu_lock_scope().tracing_alone, d.tracing_alone);
  EXPECT_EQ(grader::gpu::gpu_lock_scope().timed_kernels, d.timed_kernels);
  EXPECT_TRUE(grader::gpu::gpu_lock_scope().timed_kernels);  // the measured default
  setenv("BANKLAB_GPU_LOCK_SCOPE", "timed-run", 1);
  EXPECT_TRUE(grader::gpu::gpu_lock_scope().each_timed_run_only);
  EXPECT_TRUE(grader::gpu::gpu_lock_scope().tracing_alone);
  setenv("BANKLAB_GPU_LOCK_SCOPE", "timed-run-traced-unlocked", 1);
  EXPECT_FALSE(grader::gpu::gpu_lock_scope().tracing_alone);
  setenv("BANKLAB_GPU_LOCK_SCOPE", "test", 1);
  EXPECT_FALSE(grader::gpu::gpu_lock_scope().each_timed_run_only);
  EXPECT_FALSE(grader::gpu::gpu_lock_scope().timed_kernels);
  setenv("BANKLAB_GPU_LOCK_SCOPE", "timed-kernels", 1);
  EXPECT_TRUE(grader::gpu::gpu_lock_scope().timed_kernels);
  EXPECT_TRUE(grader::gpu::gpu_lock_scope().each_timed_run_only);
  EXPECT_FALSE(grader::gpu::gpu_lock_scope().tracing_alone);
  setenv("BANKLAB_GPU_LOCK_SCOPE", "nonsense", 1);
  EXPECT_EQ(grader::gpu::gpu_lock_scope().timed_kernels, d.timed_kernels);
  EXPECT_EQ(grader::gpu::gpu_lock_scope().each_timed_run_only, d.each_timed_run_only);
  setenv("BANKLAB_GPU_LOCK_SCOPE", "timed-run", 1);
  EXPECT_FALSE(grader::gpu::gpu_lock_scope().timed_kernels);
  if (old) setenv("BANKLAB_GPU_LOCK_SCOPE", saved.c_str(), 1);
  else unsetenv("BANKLAB_GPU_LOCK_SCOPE");
}


// ---- the reader-writer protocol (grader/gpu/gpu_lock_gate.hpp), scope `timed-kernels`: each
// judge is a thread with descriptors of its own (flock locks belong to the open file, so two
// descriptors of one process conflict as two processes do).
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Files {  // a lock file and its gate, as one judge opens them
  int lock = -1, gate = -1;
  explicit Files(const std::string& path) {
    lock = open((path + ".lock").c_str(), O_RDONLY | O_CREAT, 0644);
    gate = open((path + ".gate").c_str(), O_RDONLY | O_CREAT, 0644);
  }
  ~Files() { close(lock), close(gate); }
  double take(int op, bool& got) {
    return grader::gpu::detail::take_gated(lock, gate, op, std::chrono::microseconds(500), got);
  }
};

// Holds `path` (a Files) with `op` for `seconds` on a thread of its own; returns once it holds it.
std::thread hold_on_thread(const std::string& path, int op, double seconds) {
  std::atomic<bool> held{false};
  std::thread t([&held, path, op, seconds] {
    Files f(path);
    bool got = false;
    f.take(op, got);
    held = got;
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  });
  while (!held) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return t;
}

TEST(GpuLock, ASharedHolderKeepsATimedRunWaitingAndATimedRunKeepsSharedWorkWaiting) {
  grader::gpu::detail::gpu_lock_waited_s() = 0;
  const std::string path = lock_path("rw");
  for (const int first : {LOCK_SH, LOCK_EX}) {
    std::thread holder = hold_on_thread(path, first, 0.4);
    Files me(path);
    bool got = false;
    const double w = me.take(first == LOCK_SH ? LOCK_EX : LOCK_SH, got);
    EXPECT_TRUE(got);
    EXPECT_GE(w, 0.2) << (first == LOCK_SH ? "a timed run must wait for other judges' shared GPU work"
                                           : "shared GPU work must wait for another judge's timed run");
    holder.join();
  }
  // Shared work beside shared work: no wait.
  std::thread holder = hold_on_thread(path, LOCK_SH, 1.5);
  Files me(path);
  bool got = false;
  EXPECT_LT(me.take(LOCK_SH, got), 0.5);
  EXPECT_TRUE(got);
  holder.join();
  grader::gpu::detail::gpu_lock_waited_s() = 0;
}

TEST(GpuLock, AStreamOfSharedHoldersDoesNotStarveATimedRun) {
  // Three judges take the lock shared over and over, their holds overlapping, for 3 s: there is
  // never a moment without a shared holder, so without the gate a timed run waits all 3 s.
  grader::gpu::detail::gpu_lock_waited_s() = 0;
  const std::string path = lock_path("stream");
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r)
    readers.emplace_back([&stop, path, r] {
      Files f(path);
      std::this_thread::sleep_for(std::chrono::milliseconds(20 * r));
      const auto t0 = Clock::now();
      while (!stop && since(t0) < 3.0) {
        bool got = false;
        f.take(LOCK_SH, got);
        std::this_thread::sleep_for(std::chrono::milliseconds(60));
        flock(f.lock, LOCK_UN);
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  Files me(path);
  bool got = false;
  const double w = me.take(LOCK_EX, got);
  EXPECT_TRUE(got);
  EXPECT_LT(w, 1.0) << "a timed run waits for the shared holders of the moment, not for every one to come";
  flock(me.lock, LOCK_UN);
  stop = true;
  for (auto& t : readers) t.join();
  grader::gpu::detail::gpu_lock_waited_s() = 0;
}

TEST(GpuLock, ASharedHolderGivesWayToAWaitingTimedRunAfterFinishingItsGpuWork) {
  grader::gpu::detail::gpu_lock_waited_s() = 0;
  const std::string path = lock_path("yield");
  std::atomic<int> synced{0};
  std::atomic<bool> held{false}, stop{false}, held_after{false};
  std::thread reader([&] {  // one long shared test, passing points where its GPU queue is idle
    Files f(path);
    bool got = false;
    f.take(LOCK_SH, got);
    held = got;
    const auto t0 = Clock::now();
    while (!stop && since(t0) < 5.0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      grader::gpu::detail::yield_to_timed_run(f.lock, f.gate, [&synced] { ++synced; }, got);
      held_after = got;
    }
  });
  while (!held) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  Files me(path);
  bool got = false;
  const double w = me.take(LOCK_EX, got);
  EXPECT_TRUE(got);
  EXPECT_LT(w, 1.0) << "the shared holder must let a waiting timed run go first";
  EXPECT_GE(synced.load(), 1) << "and finish its own GPU work before it lets the lock go";
  flock(me.lock, LOCK_UN);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(held_after.load()) << "it takes the shared lock back after the timed run";
  EXPECT_NE(flock(me.lock, LOCK_EX | LOCK_NB), 0) << "the shared holder holds it again";
  stop = true;
  reader.join();
  grader::gpu::detail::gpu_lock_waited_s() = 0;
}

TEST(GpuLock, ATimedRunPastItsBudgetRunsWithoutTheLockAndLetsTheGateGo) {
  const std::string path = lock_path("gatebudget");
  std::thread holder = hold_on_thread(path, LOCK_SH, 1.5);
  grader::gpu::detail::gpu_lock_waited_s() = grader::gpu::kGpuLockMaxWaitSeconds - 0.3;
  Files me(path);
  bool got = true;
  const auto t0 = Clock::now();
  me.take(LOCK_EX, got);
  EXPECT_FALSE(got);
  EXPECT_LT(since(t0), 1.2) << "it gives up once the budget is spent";
  Files other(path);
  EXPECT_EQ(flock(other.gate, LOCK_SH | LOCK_NB), 0) << "a taker that gave up must not keep shared work out";
  holder.join();
  grader::gpu::detail::gpu_lock_waited_s() = 0;
}

}  // namespace
