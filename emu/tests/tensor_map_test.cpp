// The emulator's tensor maps (banklab_emu/tensor_map.hpp), cases as data: one valid map (lab 07's,
// halves 256 x 128, boxes of 64 x 64 in the 128-byte mode), and each requirement cuda.h's
// documentation of cuTensorMapEncodeTiled states broken by one change (refused), beside a valid
// alternative of the same field (encoded); the layout the header documents; a changed byte refused.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "banklab_emu/tensor_map.hpp"

namespace banklab::emu::test {
namespace {

struct Args {
  int type = tma::kTypeFloat16;
  std::uint32_t rank = 2;
  std::uint64_t address = 0x7f0000000100ull;
  std::uint64_t dims[5] = {256, 128, 1, 1, 1};
  std::uint64_t strides[4] = {512, 65536, 65536, 65536};
  std::uint32_t box[5] = {64, 64, 1, 1, 1};
  std::uint32_t steps[5] = {1, 1, 1, 1, 1};
  int interleave = tma::kInterleaveNone, swizzle = tma::kSwizzle128B, l2 = tma::kL2None, oob = tma::kOobFillNone;
};

int encode(const Args& a, void* out, std::string* why = nullptr) {
  return encode_tiled(out, a.type, a.rank, a.address, a.dims, a.strides, a.box, a.steps, a.interleave, a.swizzle, a.l2, a.oob, why);
}

struct Case {
  const char* what;
  std::function<void(Args&)> change;
  int expected;  // tma::kSuccess or tma::kInvalidValue
};

const std::vector<Case> kCases = {
    {"lab 07's map", [](Args&) {}, tma::kSuccess},
    {"rank 0", [](Args& a) { a.rank = 0; }, tma::kInvalidValue},
    {"rank 6", [](Args& a) { a.rank = 6; }, tma::kInvalidValue},
    {"rank 5", [](Args& a) { a.rank = 5; }, tma::kSuccess},
    {"an unknown data type", [](Args& a) { a.type = 16; }, tma::kInvalidValue},
    {"float32", [](Args& a) { a.type = tma::kTypeFloat32; a.box[0] = 32; }, tma::kSuccess},
    {"address 8-byte aligned", [](Args& a) { a.address += 8; }, tma::kInvalidValue},
    {"address 16-byte aligned", [](Args& a) { a.address += 16; }, tma::kSuccess},
    {"a dim of 0", [](Args& a) { a.dims[1] = 0; }, tma::kInvalidValue},
    {"a dim above 2^32", [](Args& a) { a.dims[1] = (1ull << 32) + 1; }, tma::kInvalidValue},
    {"a dim of 2^32", [](Args& a) { a.dims[1] = 1ull << 32; }, tma::kSuccess},
    {"a stride not a multiple of 16", [](Args& a) { a.strides[0] = 520; }, tma::kInvalidValue},
    {"a stride of 2^40", [](Args& a) { a.strides[0] = 1ull << 40; }, tma::kInvalidValue},
    {"a stride of 528", [](Args& a) { a.strides[0] = 528; }, tma::kSuccess},
    {"a box dim of 0", [](Args& a) { a.box[1] = 0; }, tma::kInvalidValue},
    {"a box dim of 257", [](Args& a) { a.box[1] = 257; }, tma::kInvalidValue},
    {"a box dim of 256", [](Args& a) { a.box[1] = 256; }, tma::kSuccess},
    {"a box row of 12 bytes", [](Args& a) { a.box[0] = 6; a.swizzle = tma::kSwizzleNone; }, tma::kInvalidValue},
    {"a box row of 16 bytes", [](Args& a) { a.box[0] = 8; a.swizzle = tma::kSwizzleNone; }, tma::kSuccess},
    {"a box row wider than the 128-byte span", [](Args& a) { a.box[0] = 72; }, tma::kInvalidValue},
    {"a 64-byte row in the 32-byte mode", [](Args& a) { a.box[0] = 32; a.swizzle = tma::kSwizzle32B; }, tma::kInvalidValue},
    {"a 32-byte row in the 32-byte mode", [](Args& a) { a.box[0] = 16; a.swizzle = tma::kSwizzle32B; }, tma::kSuccess},
    {"a 128-byte row in the 64-byte mode", [](Args& a) { a.swizzle = tma::kSwizzle64B; }, tma::kInvalidValue},
    {"a 256-byte row without swizzle", [](Args& a) { a.box[0] = 128; a.swizzle = tma::kSwizzleNone; }, tma::kSuccess},
    {"an element stride of 9", [](Args& a) { a.steps[1] = 9; }, tma::kInvalidValue},
    {"an element stride of 8", [](Args& a) { a.steps[1] = 8; }, tma::kSuccess},
    {"an unknown swizzle", [](Args& a) { a.swizzle = 7; }, tma::kInvalidValue},
    {"interleave at rank 2", [](Args& a) { a.interleave = tma::kInterleave16B; }, tma::kInvalidValue},
    {"interleave at rank 3", [](Args& a) { a.interleave = tma::kInterleave16B; a.rank = 3; }, tma::kSuccess},
    {"32-byte interleave, 128-byte mode", [](Args& a) { a.interleave = tma::kInterleave32B; a.rank = 3; }, tma::kInvalidValue},
    {"32-byte interleave, 32-byte mode", [](Args& a) { a.interleave = tma::kInterleave32B; a.rank = 3; a.swizzle = tma::kSwizzle32B; }, tma::kSuccess},
    {"NaN fill of integers", [](Args& a) { a.type = tma::kTypeUint16; a.oob = tma::kOobFillNanRequestZeroFma; }, tma::kInvalidValue},
    {"NaN fill of halves", [](Args& a) { a.oob = tma::kOobFillNanRequestZeroFma; }, tma::kSuccess},
    {"an unknown L2 promotion", [](Args& a) { a.l2 = 4; }, tma::kInvalidValue},
};

TEST(TensorMap, EncodeTiledChecksCuTensorMapEncodeTiledsRequirements) {
  for (const Case& c : kCases) {
    Args a;
    c.change(a);
    alignas(64) unsigned char out[128];
    std::memset(out, 0xab, sizeof out);
    std::string why;
    EXPECT_EQ(encode(a, out, &why), c.expected) << c.what << ": " << why;
    if (c.expected != tma::kSuccess) {
      EXPECT_FALSE(why.empty()) << c.what;
      EXPECT_EQ(out[0], 0xab) << c.what << ": a refused map writes nothing";
    } else {
      TensorMap m;
      EXPECT_TRUE(decode_tensor_map(out, m, &why)) << c.what << ": " << why;
    }
  }
}

TEST(TensorMap, TheMapIsLaidOutAsTheHeaderSays) {
  Args a;
  alignas(64) unsigned char out[128];
  ASSERT_EQ(encode(a, out), tma::kSuccess);
  auto u32 = [&](int at) { std::uint32_t v; std::memcpy(&v, out + at, 4); return v; };
  auto u64 = [&](int at) { std::uint64_t v; std::memcpy(&v, out + at, 8); return v; };
  auto u16 = [&](int at) { std::uint16_t v; std::memcpy(&v, out + at, 2); return v; };
  EXPECT_EQ(std::memcmp(out, "BLTM", 4), 0);
  EXPECT_EQ(u32(0), kTensorMapMagic);
  EXPECT_EQ(out[4], 1);                     // version
  EXPECT_EQ(out[5], tma::kTypeFloat16);     // data type
  EXPECT_EQ(out[6], 2);                     // rank
  EXPECT_EQ(out[7], 2);                     // element bytes
  EXPECT_EQ(out[9], tma::kSwizzle128B);     // swizzle (after interleave)
  EXPECT_EQ(u64(16), a.address);
  EXPECT_EQ(u64(24), 256u);
  EXPECT_EQ(u64(32), 128u);
  EXPECT_EQ(u64(40), 0u);                   // dims past the rank: 0
  EXPECT_EQ(u64(64), 512u);                 // the stride of dim 1
  EXPECT_EQ(u64(72), 0u);
  EXPECT_EQ(u16(96), 64u);
  EXPECT_EQ(u16(98), 64u);
  EXPECT_EQ(out[106], 1);
  EXPECT_EQ(out[107], 1);
  for (int i = 111; i < 128; ++i) EXPECT_EQ(out[i], 0) << i;
}

TEST(TensorMap, ABytesChangeIsNotAMapTheEmulatorMade) {
  Args a;
  alignas(64) unsigned char out[128];
  ASSERT_EQ(encode(a, out), tma::kSuccess);
  TensorMap m;
  std::string why;
  ASSERT_TRUE(decode_tensor_map(out, m, &why)) << why;
  // Each changed byte: the magic, the rank, a box dim past the rank, a reserved byte, a box of 0.
  for (int at : {0, 6, 100, 120, 96}) {
    unsigned char copy[128];
    std::memcpy(copy, out, sizeof copy);
    copy[at] = static_cast<unsigned char>(at == 96 ? 0 : copy[at] + 7);
    if (at == 96) copy[97] = 0;
    EXPECT_FALSE(decode_tensor_map(copy, m, &why)) << "byte " << at;
  }
  alignas(64) unsigned char misaligned_home[192];
  EXPECT_EQ(encode(a, misaligned_home + 8), tma::kInvalidValue);  // the map's own address: 64-byte aligned
}

}  // namespace
}  // namespace banklab::emu::test
