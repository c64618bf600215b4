// The GPU lock's reader-writer protocol (grader/gpu/gpu_lock.hpp): flock(2) on the lock file,
// LOCK_SH for work that may run beside other judges' work but never beside a timed kernel, LOCK_EX
// for the timed kernels. flock gives no preference, so a stream of overlapping shared holders
// would starve an exclusive taker forever; a second file, the gate, orders them:
//   exclusive: gate EX, then the lock EX (waiting for the shared holders to drain; no new one can
//              pass the gate meanwhile), then gate released.
//   shared:    gate SH, then the lock SH, then gate released (a shared taker never waits holding
//              the gate: it lets it go and tries again).
// No one ever waits for anything while holding the lock itself, so there is no deadlock: a
// process that holds the lock shared and wants it exclusively lets it go first (never a flock
// conversion, which Linux does by releasing and retaking, not atomically). A shared holder at a
// point where its GPU queue is idle gives way to a waiting exclusive taker (yield_to_timed_run).
#pragma once

#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

namespace grader::gpu {

/// The most one test waits for its GPU's lock, all its waits together (banklab-judge starts each
/// test of a process with a budget of its own): past it the test runs without the lock and says
/// so (the test's own limit must not run out waiting).
inline constexpr double kGpuLockMaxWaitSeconds = 90.0;

namespace detail {
inline double& gpu_lock_waited_s() {  // this test's waits for the lock, in all (reset at each test)
  static double s = 0;
  return s;
}

/// Takes `op` (LOCK_SH or LOCK_EX) on `fd` behind the gate `gate` (see above; without a gate,
/// `gate` < 0, on `fd` alone), polling every `poll`, within what is left of this test's wait
/// budget. Returns the seconds waited; false in `got` when the budget ran out (then nothing is
/// held, the gate neither).
inline double take_gated(int fd, int gate, int op, std::chrono::microseconds poll, bool& got) {
  const auto t0 = std::chrono::steady_clock::now();
  auto waited = [&t0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  got = false;
  bool gated = gate < 0;  // this taker holds the gate (an exclusive one, while it waits)
  for (;;) {
    if (!gated && flock(gate, (op == LOCK_EX ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) gated = true;
    if (gated) {
      if (flock(fd, op | LOCK_NB) == 0) got = true;
      if (gate >= 0 && (got || op != LOCK_EX)) {
        flock(gate, LOCK_UN);
        gated = false;
      }
      if (got) break;
    }
    if (gpu_lock_waited_s() + waited() > kGpuLockMaxWaitSeconds) {
      if (gated && gate >= 0) flock(gate, LOCK_UN);
      break;
    }
    std::this_thread::sleep_for(poll);
  }
  const double w = waited();
  gpu_lock_waited_s() += w;
  return w;
}

/// Whether an exclusive taker waits at the gate (holds it: only exclusive takers hold it for longer
/// than a try).
inline bool a_timed_run_waits(int gate) {
  if (gate < 0) return false;
  if (flock(gate, LOCK_SH | LOCK_NB) != 0) return true;
  flock(gate, LOCK_UN);
  return false;
}

/// A shared holder of `fd` at a point where its own GPU work may be finished (`sync` finishes it):
/// when an exclusive taker waits, finishes its work, lets the lock go and takes it shared again
/// (behind the gate, so after the exclusive taker's run). Returns the seconds waited; false in
/// `got` when the budget ran out (then nothing is held).
inline double yield_to_timed_run(int fd, int gate, const std::function<void()>& sync, bool& got,
                                 std::chrono::microseconds poll = std::chrono::microseconds(500)) {
  got = true;
  if (fd < 0 || !a_timed_run_waits(gate)) return 0;
  if (sync) sync();
  flock(fd, LOCK_UN);
  return take_gated(fd, gate, LOCK_SH, poll, got);
}
}  // namespace detail

}  // namespace grader::gpu
