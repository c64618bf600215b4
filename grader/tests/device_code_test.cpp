// The judge's reading of a student's fatbin (grader/include/grader/gpu/device_code.hpp): which
// heap functions the device code calls. Fatbins compiled at build time from
// grader/tests/device_code/*.cu, as the judge's build compiles a student's file (-no-compress),
// and one with nvcc's default compression, which the judge never makes and refuses to read.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "grader/gpu/device_code.hpp"

namespace {

std::string read(const char* name) {
  std::ifstream f(std::string(BANKLAB_DEVICE_CODE_DIR) + "/" + name, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Case {
  const char* fatbin;
  bool readable;
  std::vector<std::string> heap_calls;
};

// One check, the cases as data: what each image calls of the heap.
const Case kCases[] = {
    {"heap_kernel.fatbin", true, {"malloc", "free"}},
    {"new_kernel.fatbin", true, {"malloc", "free"}},
    {"plain_kernel.fatbin", true, {}},
    {"heap_kernel_compressed.fatbin", false, {}},
};

TEST(DeviceCode, HeapCallsOfEachImage) {
  for (const Case& c : kCases) {
    const std::string image = read(c.fatbin);
    ASSERT_FALSE(image.empty()) << c.fatbin << " was not built";
    const grader::gpu::DeviceCodeScan s = grader::gpu::scan_device_code(image);
    EXPECT_EQ(s.readable, c.readable) << c.fatbin << ": " << s.why;
    if (!c.readable) continue;
    EXPECT_GE(s.cubins, 1) << c.fatbin;
    std::vector<std::string> got = s.heap_calls, want = c.heap_calls;
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << c.fatbin;
  }
}

// The image is the student's: truncated at every 7th byte, or with bytes changed (3000 rounds),
// it is read without a crash or a read past its end (bounds-checked reads only).
TEST(DeviceCode, DamagedImagesAreReadSafely) {
  const std::string image = read("heap_kernel.fatbin");
  ASSERT_FALSE(image.empty());
  for (std::size_t n = 0; n < image.size(); n += 7) (void)grader::gpu::scan_device_code(image.substr(0, n));
  std::mt19937 rng(12345);
  for (int round = 0; round < 3000; ++round) {
    std::string bad = image;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) bad[rng() % bad.size()] = static_cast<char>(rng());
    (void)grader::gpu::scan_device_code(bad);
  }
  EXPECT_FALSE(grader::gpu::scan_device_code("").readable);
  EXPECT_FALSE(grader::gpu::scan_device_code(std::string(64, '\xff')).readable);
}

}  // namespace
