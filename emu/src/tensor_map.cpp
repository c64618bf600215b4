// The emulator's tensor maps (tensor_map.hpp): encode_tiled() checks cuTensorMapEncodeTiled's
// requirements as cuda.h documents them and writes the emulator's 128-byte layout; the TMA copies
// read it back through decode_tensor_map(), which checks it again (a kernel can write its memory).
#include "banklab_emu/tensor_map.hpp"

#include <cstring>
#include <string>

namespace banklab::emu {

namespace {

bool refuse(std::string* why, const std::string& what) {
  if (why) *why = what;
  return false;
}

bool is_float_type(int t) { return t >= tma::kTypeFloat16 && t <= tma::kTypeTfloat32Ftz; }
bool packed_16b(int t) { return t == tma::kType16U4Align16B || t == tma::kType16U6Align16B; }

// Bits of one element (packed types: 4 or 6).
int element_bits(int t) {
  if (t == tma::kType16U4Align8B || t == tma::kType16U4Align16B) return 4;
  if (t == tma::kType16U6Align16B) return 6;
  return 8 * tensor_element_bytes(t);
}

// cuda.h's requirements of cuTensorMapEncodeTiled, on the fields of a map.
bool valid(const TensorMap& m, std::string* why) {
  const int t = m.data_type;
  if (tensor_element_bytes(t) < 0) return refuse(why, "data type " + std::to_string(t) + " is none of CUtensorMapDataType's");
  if (m.rank < 1 || m.rank > 5) return refuse(why, "rank " + std::to_string(m.rank) + " (1 to 5)");
  if (m.interleave > tma::kInterleave32B) return refuse(why, "interleave " + std::to_string(m.interleave));
  if (m.swizzle > tma::kSwizzle128BAtom64B) return refuse(why, "swizzle " + std::to_string(m.swizzle));
  if (m.l2_promotion > tma::kL2_256B) return refuse(why, "L2 promotion " + std::to_string(m.l2_promotion));
  if (m.oob_fill > tma::kOobFillNanRequestZeroFma) return refuse(why, "out-of-bound fill " + std::to_string(m.oob_fill));
  if (m.interleave != tma::kInterleaveNone && m.rank < 3) return refuse(why, "an interleaved map of rank below 3");
  const bool wide = m.interleave == tma::kInterleave32B || packed_16b(t);
  if (m.global_address % (wide ? 32 : 16) != 0) return refuse(why, "a global address not " + std::string(wide ? "32" : "16") + "-byte aligned");
  for (int i = 0; i < m.rank; ++i)
    if (m.global_dim[i] == 0 || m.global_dim[i] > (1ull << 32)) return refuse(why, "global dim " + std::to_string(i) + " outside 1 to 2^32");
  if (packed_16b(t) && m.global_dim[0] % 128 != 0) return refuse(why, "global dim 0 of a 16-byte packed type not a multiple of 128");
  if (t == tma::kType16U4Align8B && m.global_dim[0] % 2 != 0) return refuse(why, "global dim 0 of 16U4_ALIGN8B odd");
  for (int i = 0; i + 1 < m.rank; ++i)
    if (m.global_stride[i] % (wide ? 32 : 16) != 0 || m.global_stride[i] >= (1ull << 40))
      return refuse(why, "global stride " + std::to_string(i) + " not a multiple of " + (wide ? "32" : "16") + " below 2^40");
  for (int i = 0; i < m.rank; ++i) {
    if (m.box_dim[i] == 0 || m.box_dim[i] > 256) return refuse(why, "box dim " + std::to_string(i) + " outside 1 to 256");
    if (m.element_stride[i] == 0 || m.element_stride[i] > 8) return refuse(why, "element stride " + std::to_string(i) + " outside 1 to 8");
  }
  const long long inner_bits = static_cast<long long>(m.box_dim[0]) * element_bits(t);  // the box's inner dimension
  if (m.interleave == tma::kInterleaveNone && inner_bits % 128 != 0) return refuse(why, "box dim 0 times the element size not a multiple of 16 bytes");
  if (packed_16b(t) && m.box_dim[0] != 128) return refuse(why, "box dim 0 of a 16-byte packed type not 128");
  if (m.interleave == tma::kInterleaveNone && m.swizzle != tma::kSwizzleNone) {
    const int span = m.swizzle == tma::kSwizzle32B ? 32 : m.swizzle == tma::kSwizzle64B ? 64 : 128;
    if (inner_bits > 8LL * span) return refuse(why, "a box row of " + std::to_string(inner_bits / 8) + " bytes wider than the swizzle's " + std::to_string(span));
  }
  if (m.interleave == tma::kInterleave32B && m.swizzle != tma::kSwizzle32B) return refuse(why, "32-byte interleave without the 32-byte swizzle");
  if (t == tma::kType16U6Align16B && m.interleave != tma::kInterleaveNone) return refuse(why, "16U6_ALIGN16B interleaved");
  if (t == tma::kType16U6Align16B && m.swizzle != 0 && m.swizzle != 3 && m.swizzle != 4 && m.swizzle != 6)
    return refuse(why, "a swizzle 16U6_ALIGN16B does not take");
  if (t == tma::kType16U4Align16B && m.swizzle != 0 && m.swizzle != 3 && m.swizzle != 4)
    return refuse(why, "a swizzle 16U4_ALIGN16B does not take");
  if (m.oob_fill == tma::kOobFillNanRequestZeroFma && !is_float_type(t)) return refuse(why, "the NaN fill for a type that is not a float");
  return true;
}

}  // namespace

int tensor_element_bytes(int t) {
  switch (t) {
    case tma::kTypeUint8: return 1;
    case tma::kTypeUint16: case tma::kTypeFloat16: case tma::kTypeBfloat16: return 2;
    case tma::kTypeUint32: case tma::kTypeInt32: case tma::kTypeFloat32: case tma::kTypeFloat32Ftz:
    case tma::kTypeTfloat32: case tma::kTypeTfloat32Ftz: return 4;
    case tma::kTypeUint64: case tma::kTypeInt64: case tma::kTypeFloat64: return 8;
    case tma::kType16U4Align8B: case tma::kType16U4Align16B: case tma::kType16U6Align16B: return 0;
    default: return -1;
  }
}

int encode_tiled(void* tensor_map, int data_type, std::uint32_t rank, std::uint64_t global_address,
                 const std::uint64_t* global_dim, const std::uint64_t* global_strides, const std::uint32_t* box_dim,
                 const std::uint32_t* element_strides, int interleave, int swizzle, int l2_promotion, int oob_fill,
                 std::string* why) {
  auto no = [&](const std::string& w) {
    if (why) *why = w;
    return tma::kInvalidValue;
  };
  if (!tensor_map || reinterpret_cast<std::uintptr_t>(tensor_map) % 64 != 0) return no("the tensor map is not 64-byte aligned");
  if (rank < 1 || rank > 5) return no("rank " + std::to_string(rank) + " (1 to 5)");
  if (!global_dim || !box_dim || !element_strides || (rank > 1 && !global_strides)) return no("an array argument is null");
  if (data_type < 0 || data_type > 255 || interleave < 0 || interleave > 255 || swizzle < 0 || swizzle > 255 ||
      l2_promotion < 0 || l2_promotion > 255 || oob_fill < 0 || oob_fill > 255)
    return no("an enum argument out of range");
  TensorMap m;
  m.magic = kTensorMapMagic;
  m.version = kTensorMapVersion;
  m.data_type = static_cast<std::uint8_t>(data_type);
  m.rank = static_cast<std::uint8_t>(rank);
  m.element_bytes = static_cast<std::uint8_t>(tensor_element_bytes(data_type) > 0 ? tensor_element_bytes(data_type) : 0);
  m.interleave = static_cast<std::uint8_t>(interleave);
  m.swizzle = static_cast<std::uint8_t>(swizzle);
  m.l2_promotion = static_cast<std::uint8_t>(l2_promotion);
  m.oob_fill = static_cast<std::uint8_t>(oob_fill);
  m.global_address = global_address;
  for (std::uint32_t i = 0; i < rank; ++i) {
    m.global_dim[i] = global_dim[i];
    if (box_dim[i] > 0xffff || element_strides[i] > 0xff) return no("box dim or element stride " + std::to_string(i) + " out of range");
    m.box_dim[i] = static_cast<std::uint16_t>(box_dim[i]);
    m.element_stride[i] = static_cast<std::uint8_t>(element_strides[i]);
    if (i + 1 < rank) m.global_stride[i] = global_strides[i];
  }
  std::string w;
  if (!valid(m, &w)) return no(w);
  std::memcpy(tensor_map, &m, sizeof m);
  return tma::kSuccess;
}

bool decode_tensor_map(const void* bytes, TensorMap& out, std::string* why) {
  std::memcpy(&out, bytes, sizeof out);
  if (out.magic != kTensorMapMagic || out.version != kTensorMapVersion)
    return refuse(why, "a tensor map the emulator's encode_tiled did not make");
  if (out.reserved0 != 0) return refuse(why, "a tensor map whose bytes were changed");
  for (std::uint8_t b : out.reserved1)
    if (b != 0) return refuse(why, "a tensor map whose bytes were changed");
  const int eb = tensor_element_bytes(out.data_type);
  if (eb < 0 || out.element_bytes != (eb > 0 ? eb : 0)) return refuse(why, "a tensor map whose bytes were changed");
  for (int i = out.rank; i < 5 && out.rank <= 5; ++i)
    if (out.global_dim[i] != 0 || out.box_dim[i] != 0 || out.element_stride[i] != 0 || (i >= 1 && out.global_stride[i - 1] != 0))
      return refuse(why, "a tensor map whose bytes were changed");
  std::string w;
  if (!valid(out, &w)) return refuse(why, "a tensor map whose bytes were changed (" + w + ")");
  return true;
}

}  // namespace banklab::emu
