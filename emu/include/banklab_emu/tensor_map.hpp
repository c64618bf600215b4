/// @file tensor_map.hpp
/// @brief The emulator's own encoding of a tensor map (the 128-byte, 64-byte-aligned `CUtensorMap`
///        a kernel's cp.async.bulk.tensor names), made by encode_tiled(), which takes
///        cuTensorMapEncodeTiled's arguments: a CUDA-runtime shim implements that driver call by
///        calling it, and the emulator's TMA copies read the map back (decode_tensor_map()).
///
/// A real CUtensorMap is opaque and its layout the driver's; this one is the emulator's, and only
/// encode_tiled() writes it. The layout (little-endian, every field at a fixed byte offset; the
/// enums are cuda.h's integer values, CUtensorMapDataType etc.):
///
/// | bytes   | field |
/// | ---     | --- |
/// | 0-3     | magic `kTensorMapMagic` ("BLTM") |
/// | 4       | version (1) |
/// | 5       | data type (CUtensorMapDataType) |
/// | 6       | rank (1-5) |
/// | 7       | bytes of an element (0: a packed type of less than a byte) |
/// | 8-11    | interleave, swizzle, L2 promotion, out-of-bound fill (their cuda.h values) |
/// | 12-15   | 0 |
/// | 16-23   | global address |
/// | 24-63   | global dims 0-4 (elements; unused dims 0) |
/// | 64-95   | global strides of dims 1-4 in bytes (cuTensorMapEncodeTiled's globalStrides[0..3]) |
/// | 96-105  | box dims 0-4 (16 bits each) |
/// | 106-110 | element strides 0-4 (8 bits each) |
/// | 111-127 | 0 |
#pragma once
#include <cstdint>
#include <string>

namespace banklab::emu {

inline constexpr std::uint32_t kTensorMapMagic = 0x4d544c42u;  // "BLTM" little-endian
inline constexpr std::uint8_t kTensorMapVersion = 1;

/// cuda.h's values of the enums cuTensorMapEncodeTiled takes (checked against cuda.h:
/// emu/tests/tensor_map_cuda_test.cu).
namespace tma {
inline constexpr int kTypeUint8 = 0, kTypeUint16 = 1, kTypeUint32 = 2, kTypeInt32 = 3, kTypeUint64 = 4, kTypeInt64 = 5,
                     kTypeFloat16 = 6, kTypeFloat32 = 7, kTypeFloat64 = 8, kTypeBfloat16 = 9, kTypeFloat32Ftz = 10,
                     kTypeTfloat32 = 11, kTypeTfloat32Ftz = 12, kType16U4Align8B = 13, kType16U4Align16B = 14,
                     kType16U6Align16B = 15;
inline constexpr int kInterleaveNone = 0, kInterleave16B = 1, kInterleave32B = 2;
inline constexpr int kSwizzleNone = 0, kSwizzle32B = 1, kSwizzle64B = 2, kSwizzle128B = 3, kSwizzle128BAtom32B = 4,
                     kSwizzle128BAtom32BFlip8B = 5, kSwizzle128BAtom64B = 6;
inline constexpr int kL2None = 0, kL2_256B = 3;
inline constexpr int kOobFillNone = 0, kOobFillNanRequestZeroFma = 1;
inline constexpr int kSuccess = 0;        ///< CUDA_SUCCESS
inline constexpr int kInvalidValue = 1;   ///< CUDA_ERROR_INVALID_VALUE
}  // namespace tma

struct alignas(64) TensorMap {
  std::uint32_t magic = 0;
  std::uint8_t version = 0, data_type = 0, rank = 0, element_bytes = 0;
  std::uint8_t interleave = 0, swizzle = 0, l2_promotion = 0, oob_fill = 0;
  std::uint32_t reserved0 = 0;
  std::uint64_t global_address = 0;
  std::uint64_t global_dim[5] = {};
  std::uint64_t global_stride[4] = {};  ///< bytes from one index of dim i + 1 to the next
  std::uint16_t box_dim[5] = {};
  std::uint8_t element_stride[5] = {};
  std::uint8_t reserved1[17] = {};
};
static_assert(sizeof(TensorMap) == 128, "a tensor map is 128 bytes, as CUtensorMap");

/// cuTensorMapEncodeTiled on the emulator: its arguments in its order (enums as cuda.h's values,
/// `global_address` an emulated Device address), the same requirements checked (cuda.h's
/// documentation of cuTensorMapEncodeTiled), the map written to `tensor_map` (128 bytes, 64-byte
/// aligned). tma::kSuccess, or tma::kInvalidValue with nothing written.
int encode_tiled(void* tensor_map, int data_type, std::uint32_t rank, std::uint64_t global_address,
                 const std::uint64_t* global_dim, const std::uint64_t* global_strides, const std::uint32_t* box_dim,
                 const std::uint32_t* element_strides, int interleave, int swizzle, int l2_promotion, int oob_fill,
                 std::string* why = nullptr);

/// The map in 128 bytes (any alignment): true and `out` when encode_tiled() made them and they
/// still meet its requirements (a kernel can write the memory a map is in); else false, `why` set.
bool decode_tensor_map(const void* bytes, TensorMap& out, std::string* why);

/// Bytes of one element of a data type (0: packed types of less than a byte; -1: no such type).
int tensor_element_bytes(int data_type);

}  // namespace banklab::emu
