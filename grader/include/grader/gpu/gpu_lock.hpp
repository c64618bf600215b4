// One GPU, one timing at a time: judges that share a GPU (grade-class -j N, several courses on one
// node) take a lock per GPU around their GPU tests. A test that times or traces (everything but a
// correctness check) takes it exclusively; a correctness check takes it shared. So no timed or
// traced run ever overlaps another judge's work on that GPU, and correctness checks still run
// side by side. banklab-judge test takes it before the test's first GPU work.
#pragma once

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace grader::gpu {

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

/// The lock of the GPU this process uses (device 0 as CUDA_VISIBLE_DEVICES shows it), named by
/// the GPU's UUID so that every judge on the node names the same GPU alike. Held until destroyed.
/// Without a GPU, or where the file cannot be made, it holds nothing and says why in `note`.
class GpuLock {
 public:
  /// A wait longer than `max_wait_s` (the test's own limit must not run out while it waits)
  /// gives up and runs without the lock, saying so.
  explicit GpuLock(bool exclusive, double max_wait_s = 90.0) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
      cudaGetLastError();
      note = "no GPU: no lock";
      return;
    }
    int dev = 0;
    cudaDeviceProp p{};
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
      cudaGetLastError();
      note = "the GPU could not be named: no lock";
      return;
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
    fd_ = open(path.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      note = "cannot open " + path + ": no lock";
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const int op = (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
    while (flock(fd_, op) != 0) {
      waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (waited_s > max_wait_s) {
        close(fd_);
        fd_ = -1;
        note = "waited " + std::to_string(static_cast<int>(waited_s)) + " s for " + path + ": running without it";
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    note = std::string(exclusive ? "exclusive" : "shared") + " lock " + path;
  }
  ~GpuLock() {
    if (fd_ >= 0) close(fd_);
  }
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;

  bool held() const { return fd_ >= 0; }
  std::string path, note;
  double waited_s = 0;

 private:
  int fd_ = -1;
};

/// Whether test `name` (Suite.Test) times or traces: everything of the GPU tier but a
/// correctness check ("...IsCorrect...", "...AreCorrect...").
inline bool gpu_test_needs_the_gpu_alone(const std::string& name) { return name.find("Correct") == std::string::npos; }

}  // namespace grader::gpu
