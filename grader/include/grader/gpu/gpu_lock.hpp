// One GPU, one timing at a time: judges that share a GPU (grade-class -j N, several courses on one
// node) take a lock per GPU (a file named by the GPU's UUID, with a gate beside it: the
// reader-writer protocol of grader/gpu/gpu_lock_gate.hpp). Its scope (GpuLockScope below; the rule
// itself is described once, in docs/dev/GRADER.md, "One GPU, one timing at a time"):
//  - `test`: a GPU test that times or traces holds it exclusively for its whole run, a correctness
//    check shared (before issue 33).
//  - `timed-run` (default): exclusively around each timed series (TimedRunLock, taken by
//    grader/gpu/timing.cuh) and, while kTracingTakesTheGpuAlone is on, a whole traced test
//    (GpuLock, taken by banklab-judge test); everything else unlocked.
//  - `timed-kernels`: exclusively around each interleaved pair of timed runs only (the student's
//    kernel and the reference, each after its L2 clean); every GPU test holds it shared for the
//    rest of its run (context, module loads, uploads, poison, checks, warm-ups, traced launches),
//    so that no other judge's GPU work overlaps a timed kernel, and gives it up (after finishing
//    its GPU work) around its own timed pairs and wherever an exclusive taker waits.
#pragma once

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

#include "grader/gpu/gpu_lock_gate.hpp"

namespace grader::gpu {

/// Whether a traced test holds its GPU's lock, exclusively, for its whole run (with
/// kLockEachTimedRunOnly on). Not for its own counts: those do not depend on what else runs on the
/// GPU (2 x H200, docs/perf/gpu_throughput_h200.txt, `bench/gpu_throughput.py --trace-proof`: every
/// lab's solution and stub, traced alone and 16 at once without a common lock, gave the same
/// verdict and message in 16 of 16 runs each). It keeps the tracer's slow, patched kernels out of
/// other judges' timed series: the near-line flips were measured with it on (scope `timed-run`);
/// off is unmeasured there, so it stays on.
inline constexpr bool kTracingTakesTheGpuAlone = true;

/// Whether a timed test holds its GPU's lock only around each timed series (and correctness checks
/// take none). On since the device showed no timing verdict moved with the series lock: the
/// near-line kernels of lab 04 graded 16 at once beside whole GPU-tier grades of the same kernel
/// (bench/gpu_throughput.py --flips 16 --flip-company N): on 2 x H200 1.09x, 1.23x and 1.44x, 20
/// verdicts each; on an H100 1.13x and 1.26x, 17 and 16 verdicts (docs/perf/gpu_throughput_*.txt).
/// Off, every GPU test holds the lock for its whole run: exclusively when it times or traces,
/// shared otherwise (BANKLAB_GPU_LOCK_SCOPE=test gives that back for a measurement).
inline constexpr bool kLockEachTimedRunOnly = true;

/// Where the lock files live: $BANKLAB_GPU_LOCK_DIR, else /run/lock/banklab-gpu for root, else
/// /tmp/banklab-gpu-UID (judges of one user, e.g. one grade-class run, share it).
inline std::string gpu_lock_dir() {
  if (const char* d = std::getenv("BANKLAB_GPU_LOCK_DIR"); d && *d) return d;
  if (geteuid() == 0) {
    struct stat st {};
    if (stat("/run/lock", &st) == 0 && S_ISDIR(st.st_mode)) return "/run/lock/banklab-gpu";
  }
  return "/tmp/banklab-gpu-" + std::to_string(geteuid());
}

namespace detail {
inline int& gpu_shared_fd() {  // the lock file a GpuLock of this process holds shared, else -1
  static int fd = -1;
  return fd;
}
inline int& gpu_gate_fd() {  // the gate of that GpuLock
  static int fd = -1;
  return fd;
}
inline bool& gpu_shared_given_up() {  // a TimedRunLock of this process let the shared lock go for a timed pair
  static bool given = false;
  return given;
}
inline bool& gpu_held_alone() {  // a GpuLock of this process holds the GPU exclusively
  static bool held = false;
  return held;
}

/// Opens the lock file of the GPU this process uses (device 0 as CUDA_VISIBLE_DEVICES shows it),
/// named by the GPU's UUID so that every judge on the node names the same GPU alike. Returns the
/// descriptor, or -1 with the reason in `note` (no GPU, a file that cannot be made).
inline int open_gpu_lock_file(std::string& path, std::string& note) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    cudaGetLastError();
    note = "no GPU: no lock";
    return -1;
  }
  int dev = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    cudaGetLastError();
    note = "the GPU could not be named: no lock";
    return -1;
  }
  std::string uuid;
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(p.uuid.bytes[i]));
    uuid += hex;
  }
  const std::string dir = gpu_lock_dir();
  mkdir(dir.c_str(), geteuid() == 0 ? 0755 : 0700);
  path = dir + "/gpu-" + uuid + ".lock";
  // O_NOFOLLOW: a link planted in the folder cannot make the judge open another file. A lock
  // needs no write access, so judges of other users can share root's files (mode 0644).
  const int fd = open(path.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) note = "cannot open " + path + ": no lock";
  return fd;
}

/// The gate beside the lock file at `path` (grader/gpu/gpu_lock_gate.hpp), or -1 (then the lock
/// is taken without one: no order between shared and exclusive takers).
inline int open_gate_file(const std::string& path) {
  const std::string gate = path.substr(0, path.size() - 5) + ".gate";  // "....lock" -> "....gate"
  return open(gate.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
}

/// Takes `op` on `fd` alone (no gate), polling every `poll`, within what is left of this test's
/// wait budget. Returns the seconds waited; false in `got` when the budget ran out.
inline double wait_for_lock(int fd, int op, std::chrono::microseconds poll, bool& got) {
  return take_gated(fd, -1, op, poll, got);
}

/// Where this process holds the lock shared and an exclusive taker waits: finishes this process's
/// GPU work and lets the taker run first (called where the judge waits for its GPU work anyway,
/// e.g. FinishesWithin). Nothing where it holds no shared lock.
inline void yield_to_a_timed_run() {
  if (gpu_shared_fd() < 0 || gpu_shared_given_up()) return;  // inside its own timed pair: nothing to yield
  bool got = true;
  yield_to_timed_run(gpu_shared_fd(), gpu_gate_fd(), [] { cudaDeviceSynchronize(); }, got);
  if (!got) gpu_shared_fd() = -1;  // the budget ran out: the rest of the test runs without the lock
}
}  // namespace detail

/// The lock of the GPU this process uses, held until destroyed (a test's, by banklab-judge test):
/// exclusively or shared, behind the gate. A shared one is known to this process
/// (detail::gpu_shared_fd): TimedRunLock lets it go around each timed run and takes it back, and
/// detail::yield_to_a_timed_run lets a waiting timed run go first. Without a GPU, or where the
/// file cannot be made, it holds nothing and says why in `note`.
class GpuLock {
 public:
  explicit GpuLock(bool exclusive) {
    fd_ = detail::open_gpu_lock_file(path, note);
    if (fd_ < 0) return;
    gate_ = detail::open_gate_file(path);
    bool got = false;
    waited_s = detail::take_gated(fd_, gate_, exclusive ? LOCK_EX : LOCK_SH, std::chrono::milliseconds(20), got);
    if (!got) {
      release();
      note = "waited " + std::to_string(static_cast<int>(waited_s)) + " s for " + path + ": running without it";
      return;
    }
    note = std::string(exclusive ? "exclusive" : "shared") + " lock " + path;
    if (exclusive) detail::gpu_held_alone() = true;
    else detail::gpu_shared_fd() = fd_, detail::gpu_gate_fd() = gate_;
  }
  ~GpuLock() {
    if (fd_ < 0) return;
    release();
    detail::gpu_held_alone() = false;
  }
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;

  bool held() const { return fd_ >= 0; }
  std::string path, note;
  double waited_s = 0;

 private:
  void release() {
    if (detail::gpu_shared_fd() == fd_) detail::gpu_shared_fd() = -1, detail::gpu_gate_fd() = -1;
    if (gate_ >= 0) close(gate_);
    close(fd_);
    fd_ = gate_ = -1;
  }
  int fd_ = -1, gate_ = -1;
};

/// The lock of the GPU for each timed run, one at a time: hold() takes it exclusively (unless
/// this process holds the GPU alone already) until the returned object is destroyed. Where this
/// process holds it shared (a GpuLock), hold() first finishes the process's GPU work and lets the
/// shared lock go (no conversion: grader/gpu/gpu_lock_gate.hpp), and the end of the hold finishes
/// the timed work, lets the exclusive lock go and takes the shared one back. Each wait is passed
/// to `on_wait` (the timed runs' Watchdog counts GPU work, not waits). Destroyed, it prints
/// "[ GPU LOCK ] ..." when it waited a second or more in all, or could not lock.
class TimedRunLock {
 public:
  class Held {
   public:
    explicit Held(TimedRunLock* owner = nullptr) : owner_(owner) {}
    ~Held() {
      if (owner_) owner_->release();
    }
    Held(Held&& o) noexcept : owner_(o.owner_) { o.owner_ = nullptr; }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;

   private:
    TimedRunLock* owner_;
  };

  explicit TimedRunLock(std::function<void(double)> on_wait = {}) : on_wait_(std::move(on_wait)) {
    if (!detail::gpu_held_alone()) fd_ = detail::open_gpu_lock_file(path_, note_);
    else note_ = "this process holds the GPU alone";
    if (fd_ >= 0) gate_ = detail::open_gate_file(path_);
  }
  ~TimedRunLock() {
    if (gate_ >= 0) close(gate_);
    if (fd_ >= 0) close(fd_);
    if (waited_s_ >= 1.0 || (fd_ < 0 && note_.rfind("no GPU", 0) != 0 && !detail::gpu_held_alone())) {
      std::printf("[ GPU LOCK ] %s (waited %.1f s)\n", note_.c_str(), waited_s_);
      std::fflush(stdout);
    }
  }
  TimedRunLock(const TimedRunLock&) = delete;
  TimedRunLock& operator=(const TimedRunLock&) = delete;

  [[nodiscard]] Held hold() {
    if (fd_ < 0) return Held();
    if (detail::gpu_shared_fd() >= 0) {  // never wait for the exclusive lock holding the shared one
      cudaDeviceSynchronize();
      flock(detail::gpu_shared_fd(), LOCK_UN);
      gave_up_shared_ = detail::gpu_shared_given_up() = true;
    }
    bool got = false;
    count(detail::take_gated(fd_, gate_, LOCK_EX, std::chrono::microseconds(500), got));
    if (!got) {
      close(fd_);
      fd_ = -1;
      note_ = "waited " + std::to_string(static_cast<int>(detail::gpu_lock_waited_s())) + " s for " + path_ +
              ": the remaining timed runs run without it";
      take_shared_back();
      return Held();
    }
    note_ = "exclusive lock " + path_ + " for each timed " +
            (gave_up_shared_ ? "pair (shared between them)" : "series");
    return Held(this);
  }

 private:
  void count(double w) {
    waited_s_ += w;
    if (on_wait_ && w > 0) on_wait_(w);
  }
  void release() {  // the end of a hold: the timed work finished, then the locks
    if (gave_up_shared_) cudaDeviceSynchronize();
    flock(fd_, LOCK_UN);
    take_shared_back();
  }
  void take_shared_back() {
    if (!gave_up_shared_) return;
    gave_up_shared_ = detail::gpu_shared_given_up() = false;
    bool got = false;
    count(detail::take_gated(detail::gpu_shared_fd(), detail::gpu_gate_fd(), LOCK_SH, std::chrono::microseconds(500),
                             got));
    if (!got) detail::gpu_shared_fd() = -1;  // past the budget: the rest of the test runs without it
  }
  std::function<void(double)> on_wait_;
  std::string path_, note_;
  int fd_ = -1, gate_ = -1;
  bool gave_up_shared_ = false;
  double waited_s_ = 0;
};

/// The lock's scope in this process: kDefaultGpuLockScope below, unless $BANKLAB_GPU_LOCK_SCOPE names
/// another for a measurement (bench/gpu_throughput.py --scopes compares them on the device): `test`
/// (each GPU test holds the lock for its whole run), `timed-run` (the lock around each timed
/// series, and a whole traced test alone), `timed-run-traced-unlocked` (around each timed series
/// only) or `timed-kernels` (exclusively around each interleaved pair of timed runs, shared for
/// all other GPU work of every GPU test, traced ones included: the shared lock keeps the tracer's
/// patched kernels out of other judges' timed kernels, which was the only reason traced tests held
/// the GPU alone). The instructor's environment sets it, never the student's code (which runs in
/// the probe only).
struct GpuLockScope {
  bool each_timed_run_only = kLockEachTimedRunOnly;
  bool tracing_alone = kTracingTakesTheGpuAlone;
  bool timed_kernels = false;  ///< the exclusive lock per timed pair, shared for all else
};

/// The scope every judge takes unless $BANKLAB_GPU_LOCK_SCOPE names another: `timed-kernels` since
/// the device measured it against `timed-run` in one call (H200, docs/perf/gpu_lock_scope_h200.txt,
/// "default scope timed-kernels"): lab 04's near-line kernels 16 at once beside 4 whole GPU-tier
/// grades flipped no more (1.08x: 0 of 20 against 2 of 16; 1.09x, on the line: 5 of 20 against 4
/// of 17; 1.12x: 0 against 0), no grade beside them went without a verdict (4 of 4 did under
/// `timed-run`), and a lab 05 class grades 2.9x faster at -j 8.
inline constexpr const char* kDefaultGpuLockScope = "timed-kernels";

/// The scope a name stands for (the values of $BANKLAB_GPU_LOCK_SCOPE); false for no such scope.
inline bool gpu_lock_scope_named(const std::string& v, GpuLockScope& s) {
  if (v == "test") s = {false, true, false};
  else if (v == "timed-run") s = {true, true, false};
  else if (v == "timed-run-traced-unlocked") s = {true, false, false};
  else if (v == "timed-kernels") s = {true, false, true};
  else return false;
  return true;
}

inline GpuLockScope gpu_lock_scope() {
  GpuLockScope s;
  gpu_lock_scope_named(kDefaultGpuLockScope, s);
  const char* e = std::getenv("BANKLAB_GPU_LOCK_SCOPE");
  if (e && *e) gpu_lock_scope_named(e, s);  // an unknown value keeps the default
  return s;
}

/// Whether test `name` (Suite.Test) holds the GPU alone for its whole run. With
/// kLockEachTimedRunOnly off: every GPU test but a correctness check ("...IsCorrect...",
/// "...AreCorrect..."), i.e. each test that times or traces. On: a traced test, while
/// kTracingTakesTheGpuAlone is on; timed tests then hold it only for each timed run (TimedRunLock,
/// which takes nothing where this process already holds the GPU alone). `timed-kernels`: none.
inline bool gpu_test_needs_the_gpu_alone(const std::string& name, const GpuLockScope& s = gpu_lock_scope()) {
  if (s.timed_kernels) return false;
  if (!s.each_timed_run_only) return name.find("Correct") == std::string::npos;
  return s.tracing_alone && name.find("Traced") != std::string::npos;
}

/// Whether test `name` takes the GPU's lock for its whole run at all (shared where it need not
/// hold the GPU alone): `timed-kernels`, every GPU test.
inline bool gpu_test_holds_the_lock(const std::string& name, const GpuLockScope& s = gpu_lock_scope()) {
  return !s.each_timed_run_only || s.timed_kernels || gpu_test_needs_the_gpu_alone(name, s);
}

}  // namespace grader::gpu
