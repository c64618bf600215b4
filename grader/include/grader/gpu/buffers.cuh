// Device memory for the GPU tier: buffers that free themselves, output buffers with guard zones
// before and after (a kernel that writes outside its output is caught), fresh random input,
// and the checks on a launch (it ran, it finished, every element is right).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "grader/gpu/gpu_lock.hpp"
#include "banklab/cuda_check.cuh"

/// Skip the current test, with the reason, when no GPU can be used (the judge turns the skip
/// into a failure in graded mode).
#define BANKLAB_REQUIRE_GPU()                                        \
  do {                                                               \
    const char* banklab_reason_ = ::banklab::no_gpu_reason();        \
    if (banklab_reason_[0] != '\0') GTEST_SKIP() << banklab_reason_; \
  } while (0)

namespace grader::gpu {

/// A device array that frees itself. poison() fills it with 0xFF bytes (NaN for floats), so an
/// element the kernel forgot to write can never look right.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&p_, bytes())); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  void upload(const std::vector<T>& v) {
    CUDA_CHECK(cudaMemcpy(p_, v.data(), std::min(bytes(), v.size() * sizeof(T)), cudaMemcpyHostToDevice));
  }
  void poison() { CUDA_CHECK(cudaMemset(p_, 0xFF, bytes())); }
  /// Copies all n elements into `host`, then lets a waiting timed run go first, before the checks
  /// of what came back (grader/gpu/gpu_lock.hpp).
  void copy_to(T* host) const {
    CUDA_CHECK(cudaMemcpy(host, p_, bytes(), cudaMemcpyDeviceToHost));
    detail::yield_to_a_timed_run();
  }
  std::vector<T> download() const {
    std::vector<T> v(n_);
    copy_to(v.data());
    return v;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

/// Bytes of guard zone before and after every output buffer, and the byte they are filled with.
inline constexpr std::size_t kGuardBytes = 64 * 1024;
inline constexpr unsigned char kGuardByte = 0xA5;

/// An output buffer of n elements with guard zones on both sides. get() points at element 0;
/// guards_intact() says whether the kernel wrote outside [0, n).
template <class T>
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::size_t n) : n_(n), all_(kGuardBytes * 2 + n * sizeof(T)) {
    CUDA_CHECK(cudaMemset(all_.get(), kGuardByte, all_.bytes()));
    poison();
  }
  T* get() const { return reinterpret_cast<T*>(all_.get() + kGuardBytes); }
  std::size_t size() const { return n_; }
  void poison() { CUDA_CHECK(cudaMemset(get(), 0xFF, n_ * sizeof(T))); }
  /// As DeviceBuffer::copy_to: element 0 to n - 1, without the guard zones.
  void copy_to(T* host) const {
    CUDA_CHECK(cudaMemcpy(host, get(), n_ * sizeof(T), cudaMemcpyDeviceToHost));
    detail::yield_to_a_timed_run();
  }
  std::vector<T> download() const {
    std::vector<T> v(n_);
    copy_to(v.data());
    return v;
  }
  /// Passes when no byte of either guard zone changed.
  ::testing::AssertionResult guards_intact(const char* what) const {
    const std::vector<unsigned char> all = all_.download();
    std::size_t before = 0, after = 0;
    for (std::size_t i = 0; i < kGuardBytes; ++i) before += all[i] != kGuardByte;
    for (std::size_t i = kGuardBytes + n_ * sizeof(T); i < all.size(); ++i) after += all[i] != kGuardByte;
    if (before == 0 && after == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << what << " wrote outside its output: " << before << " byte(s) in the " << kGuardBytes
           << " bytes before it and " << after << " byte(s) in the " << kGuardBytes
           << " bytes after it were changed. Check the grid size and the index of every global store.";
  }

 private:
  std::size_t n_;
  DeviceBuffer<unsigned char> all_;
};

/// A seed that changes every run.
inline std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

/// n random floats in [-1, 1), multiples of 2^-23: fresh every run, never all-zero (zeros hide
/// unwritten outputs). SplitMix64, not std::mt19937_64 with a distribution: the timing tests draw
/// 16M floats, which took the latter about 0.2 s a test.
inline std::vector<float> random_floats(std::size_t n, std::uint64_t seed = fresh_seed()) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    x = static_cast<float>(static_cast<std::int32_t>(z >> 40)) * 0x1p-23f - 1.0f;  // 24 bits: exact
  }
  return v;
}

/// Passes when every element of `got` (`n` of them) matches `expected` bit for bit: one memcmp of
/// the whole when they do, and on failure the first mismatches listed.
template <class T>
::testing::AssertionResult AllMatch(const std::vector<T>& expected, const T* got, std::size_t n, const std::string& what,
                                    int max_shown = 8) {
  if (expected.size() != n)
    return ::testing::AssertionFailure() << what << ": size " << n << ", expected " << expected.size();
  if (n == 0 || std::memcmp(expected.data(), got, n * sizeof(T)) == 0) return ::testing::AssertionSuccess();
  std::size_t bad = 0;
  std::ostringstream os;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(&expected[i], &got[i], sizeof(T)) == 0) continue;
    if (static_cast<int>(bad) < max_shown) os << "\n  index " << i << ": expected " << expected[i] << ", got " << got[i];
    ++bad;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << bad << " of " << expected.size()
                                       << " elements are wrong (NaN = never written):" << os.str();
}

template <class T>
::testing::AssertionResult AllMatch(const std::vector<T>& expected, const std::vector<T>& got, const std::string& what,
                                    int max_shown = 8) {
  return AllMatch(expected, got.data(), got.size(), what, max_shown);
}

/// The check of a timed kernel's output after every run (KernelMeetsTimingTarget's `verify`):
/// AllMatch against the grader's expected values, with the output copied into one page-locked
/// host buffer allocated once, instead of a fresh vector (zeroed, then filled through the
/// driver's staging buffer) every run: a 64 MiB output cost the check about that much time each
/// of 32 runs. Where page-locked memory cannot be had, an ordinary buffer, still allocated once.
template <class T>
class MatchesExpected {
 public:
  MatchesExpected(const std::vector<T>& expected, std::string what) : expected_(&expected), what_(std::move(what)) {
    if (cudaMallocHost(&pinned_, expected.size() * sizeof(T)) != cudaSuccess) {
      cudaGetLastError();
      pinned_ = nullptr;
      plain_.resize(expected.size());
    }
  }
  ~MatchesExpected() {
    if (pinned_ != nullptr) cudaFreeHost(pinned_);
  }
  MatchesExpected(const MatchesExpected&) = delete;
  MatchesExpected& operator=(const MatchesExpected&) = delete;

  /// `out`: a DeviceBuffer<T> or GuardedBuffer<T> of expected.size() elements.
  template <class Buffer>
  ::testing::AssertionResult operator()(const Buffer& out) {
    if (out.size() != expected_->size())
      return ::testing::AssertionFailure() << what_ << ": size " << out.size() << ", expected " << expected_->size();
    T* host = pinned_ != nullptr ? pinned_ : plain_.data();
    out.copy_to(host);
    return AllMatch(*expected_, host, out.size(), what_);
  }

 private:
  const std::vector<T>* expected_;
  std::string what_;
  T* pinned_ = nullptr;
  std::vector<T> plain_;
};

/// Passes when the last launch started and ran to the end without an error.
inline ::testing::AssertionResult LaunchSucceeded(const std::string& what) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) {
    detail::yield_to_a_timed_run();
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << what << " failed on the GPU: " << cudaGetErrorName(e) << " (" << cudaGetErrorString(e) << ")."
         << (e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorMisalignedAddress
                 ? " An index went outside an array or an access is misaligned: check the access function."
                 : "");
}

/// Waits for the last launch at most `seconds`. A kernel that never ends cannot be stopped from
/// the host: past the limit this prints why and ends the process, which leaves no verdict (a
/// failure). The CTest timeout is the second line of defence.
inline ::testing::AssertionResult FinishesWithin(double seconds, const std::string& what) {
  const auto t0 = std::chrono::steady_clock::now();
  while (cudaStreamQuery(0) == cudaErrorNotReady) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) {
      std::printf("%s did not finish within %.0f s: a loop in the kernel never ends (or the GPU is far too "
                  "busy). No verdict can be written: this test fails.\n", what.c_str(), seconds);
      std::fflush(stdout);
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  detail::yield_to_a_timed_run();  // the queue is idle: a timed run of another judge may go first
  return ::testing::AssertionSuccess();
}

}  // namespace grader::gpu
