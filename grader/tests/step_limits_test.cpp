// A step's memory limit holds for every process of the step, on cgroup v1 and v2 (issue 45, item
// 6): each process is in the step's cgroup before it can allocate (sandbox.cpp joins it in the
// forked child, before bubblewrap starts), so forked children that each fill a block are stopped
// together at the step's limit, and the peak the step reports is at least what its processes
// held at once (a cgroup that its processes were not in reported 3 MB while they held 4.8 GB).
// The control: the same step under a limit that fits every child: all of them hold their block,
// and the peak counts them. Through run_steps as the judge runs a probe (bubblewrap, a root
// judge's leased uid); skipped where the judge makes no step cgroups (a normal user on cgroup v1).
#include <unistd.h>

#include <cstdio>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "sandbox.hpp"

namespace {

constexpr long long kMiB = 1LL << 20;
constexpr int kChildren = 4, kBlockMiB = 200;

// Forks kChildren that each fill kBlockMiB (every page written), waits until each has filled its
// block or died, then prints how many live and how many of those filled their block: what the
// step's processes hold at once (besides a few MiB of interpreter each).
const char* kForker = R"(
import os, time
n, mib = 4, 200
r, w = os.pipe()
kids = []
for k in range(n):
    pid = os.fork()
    if pid == 0:
        os.close(r)
        block = bytes([k + 1]) * (mib << 20)
        os.write(w, bytes([k]))
        time.sleep(60)
        os._exit(0)
    kids.append(pid)
os.close(w)
os.set_blocking(r, False)
filled, dead = set(), set()
deadline = time.time() + 30
while time.time() < deadline and len(filled | dead) < n:
    try:
        filled |= set(os.read(r, 64))
    except BlockingIOError:
        pass
    for k, p in enumerate(kids):
        if k not in dead and os.waitpid(p, os.WNOHANG)[0] == p:
            dead.add(k)
    time.sleep(0.05)
print("live=%d dead=%d holding=%d" % (n - len(dead), len(dead), len(filled - dead)), flush=True)
)";

struct Held {
  int live = -1, dead = -1;
  long long held = -1;  ///< the blocks of the live children that filled theirs
};

Held run_forker(long long memory, judge::StepResult& r) {
  judge::Step s;
  s.argv = {"/usr/bin/python3", "-c", kForker};
  s.limits.timeout_s = 90;
  s.limits.address_space = 1LL << 30;  // per process: each child's block fits
  s.limits.processes = 64;
  s.limits.memory = memory;
  r = judge::run_steps({s}).front();
  Held h;
  std::smatch m;
  if (std::regex_search(r.out, m, std::regex(R"(live=(\d+) dead=(\d+) holding=(\d+))"))) {
    h.live = std::stoi(m[1]);
    h.dead = std::stoi(m[2]);
    h.held = std::stoll(m[3]) * kBlockMiB * kMiB;
  }
  return h;
}

}  // namespace

TEST(StepCgroup, ForkedChildrenAreStoppedTogetherAtTheStepsLimit) {
  const judge::SandboxInfo& sb = judge::sandbox_info();
  if (!sb.available) GTEST_SKIP() << sb.describe();
  if (sb.cgroup.empty()) GTEST_SKIP() << "no step cgroups here: " << sb.limits_line();
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3 for the step to run";
  std::printf("    %s\n", sb.describe().c_str());

  // The control: 2 GiB, room for every child. All of them hold their block at once, and the
  // step's peak counts them: a peak below what they held means they were outside its cgroup.
  judge::StepResult control;
  const Held c = run_forker(2048 * kMiB, control);
  ASSERT_EQ(c.live, kChildren) << control.out << control.err << control.sandbox_error;
  EXPECT_EQ(c.held, kChildren * kBlockMiB * kMiB);
  EXPECT_GE(control.memory_peak, c.held) << "the step's cgroup did not hold its processes' memory";
  EXPECT_LE(control.memory_peak, c.held + 64 * kMiB) << "the peak is what the processes held (and their interpreters)";
  std::printf("    control: %d children held %lld MiB, the step's peak %lld MiB of %lld\n", c.live, c.held / kMiB,
              control.memory_peak / kMiB, control.memory_limit / kMiB);

  // 256 MiB for four children of 200 MiB: the kernel ends all but one, and the most the step held
  // is within its limit and at least what its processes held.
  judge::StepResult r;
  const Held h = run_forker(256 * kMiB, r);
  ASSERT_GE(h.live, 0) << "the step printed no count: " << r.out << r.err << r.sandbox_error;
  std::printf("    limited: %d of %d children live holding %lld MiB (%d ended), the step's peak %lld MiB of %lld%s\n",
              h.live, kChildren, h.held / kMiB, h.dead, r.memory_peak / kMiB, r.memory_limit / kMiB,
              r.oom_killed ? ", a process ended at the limit" : "");
  EXPECT_EQ(r.memory_limit, 256 * kMiB);
  EXPECT_LE(h.live, 1) << "two blocks of 200 MiB do not fit in 256 MiB";
  EXPECT_GE(h.dead, kChildren - 1);
  EXPECT_TRUE(r.oom_killed) << "the kernel's kill at the limit was not read";
  EXPECT_LE(r.memory_peak, r.memory_limit);
  EXPECT_GE(r.memory_peak, h.held) << "the step's cgroup did not hold its processes' memory";
  EXPECT_GE(r.memory_peak, kBlockMiB * kMiB) << "a child filled its block: the peak must count it";
}
