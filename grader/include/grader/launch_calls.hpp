// The launcher calls the judge replays: for each lab, the problem sizes with which the probe calls
// the student's launcher (grader/labNN_probe.cu) and the GPU tier launches what it recorded
// (grader/labNN_test.cu). One home for both sides; standard library only, because the probe is
// compiled with the student's file.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

namespace grader_calls {

/// The name of a call: launcher name and sizes, e.g. "transpose_1024x256".
inline std::string name(const char* launcher, std::initializer_list<long long> sizes) {
  std::string n = launcher;
  char sep = '_';
  for (long long s : sizes) {
    n += sep + std::to_string(s);
    sep = 'x';
  }
  return n;
}

namespace lab00 {  // multiply_by_i_tiles(in, out, tiles)
inline constexpr int kCorrectTiles = 256;  // the correctness check, traced too
inline constexpr int kTimingTiles = 16384;
}  // namespace lab00
namespace lab01 {  // row_sums_launch(in, sums, rows)
inline constexpr int kCorrectRows = 32 * 512;
inline constexpr int kTimingRows = 32 * 16384;
}  // namespace lab01
namespace lab02 {  // eval_channels_launch(x, coefs, y, n); coefs is 4 x 32 floats
inline constexpr int kCorrectSamples = 512 * 128;
inline constexpr int kTimingSamples = 1 << 24;
}  // namespace lab02
namespace lab03 {  // split_pairs(a, b, in, pairs)
inline constexpr int kCorrectPairs = 64 * 256;
inline constexpr int kTimingPairs = 1 << 20;
}  // namespace lab03
namespace transpose {  // labs 04 and 05: transpose(out, in, width, height)
inline constexpr int kSizes[][2] = {{1024, 1024}, {256, 96}, {4096, 4096}, {16384, 16384}};
}  // namespace transpose
namespace lab05 {  // transpose4(out, in, width, height), in float4
inline constexpr int kSizes4[][2] = {{64, 256}, {1024, 4096}};
}  // namespace lab05
namespace lab06 {  // gemm(c, a, b, m, n, k): c is m x n floats, a m x k and b n x k halves
inline constexpr int kCorrectSizes[][3] = {{128, 192, 256}, {320, 64, 64}};  // traced: the first
inline constexpr int kTimingSize[3] = {2048, 2048, 4096};
}  // namespace lab06

}  // namespace grader_calls
