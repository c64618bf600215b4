// grader/gpu/gpu_lock.hpp without a GPU: the wait for a lock file another judge holds, and the
// process's wait budget past which a judge runs without the lock (its test's limit must not run
// out while it waits). Another judge is a child process holding the same file.
#include "grader/gpu/gpu_lock.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

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
  for (const GpuLockScope s : {GpuLockScope{false, true}, GpuLockScope{true, true}, GpuLockScope{true, false}}) {
    const bool per_run = s.each_timed_run_only;
    EXPECT_EQ(grader::gpu::gpu_test_needs_the_gpu_alone(timed, s), !per_run);
    EXPECT_FALSE(grader::gpu::gpu_test_needs_the_gpu_alone(correct, s));
    EXPECT_EQ(grader::gpu::gpu_test_holds_the_lock(correct, s), !per_run);
    EXPECT_EQ(grader::gpu::gpu_test_needs_the_gpu_alone(traced, s), !per_run || s.tracing_alone);
    EXPECT_EQ(grader::gpu::gpu_test_holds_the_lock(traced, s), !per_run || s.tracing_alone);
  }
}

TEST(GpuLock, TheScopeComesFromTheConstantsUnlessTheEnvironmentNamesOne) {
  const char* old = std::getenv("BANKLAB_GPU_LOCK_SCOPE");
  const std::string saved = old ? old : "";
  unsetenv("BANKLAB_GPU_LOCK_SCOPE");
  EXPECT_EQ(grader::gpu::gpu_lock_scope().each_timed_run_only, grader::gpu::kLockEachTimedRunOnly);
  EXPECT_EQ(grader::gpu::gpu_lock_scope().tracing_alone, grader::gpu::kTracingTakesTheGpuAlone);
  setenv("BANKLAB_GPU_LOCK_SCOPE", "timed-run", 1);
  EXPECT_TRUE(grader::gpu::gpu_lock_scope().each_timed_run_only);
  EXPECT_TRUE(grader::gpu::gpu_lock_scope().tracing_alone);
  setenv("BANKLAB_GPU_LOCK_SCOPE", "timed-run-traced-unlocked", 1);
  EXPECT_FALSE(grader::gpu::gpu_lock_scope().tracing_alone);
  setenv("BANKLAB_GPU_LOCK_SCOPE", "test", 1);
  EXPECT_FALSE(grader::gpu::gpu_lock_scope().each_timed_run_only);
  setenv("BANKLAB_GPU_LOCK_SCOPE", "nonsense", 1);
  EXPECT_EQ(grader::gpu::gpu_lock_scope().each_timed_run_only, grader::gpu::kLockEachTimedRunOnly);
  if (old) setenv("BANKLAB_GPU_LOCK_SCOPE", saved.c_str(), 1);
  else unsetenv("BANKLAB_GPU_LOCK_SCOPE");
}

}  // namespace
