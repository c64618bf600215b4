// The emulator's tensor-map enums (banklab_emu/tensor_map.hpp, tma::) are cuda.h's values, so that a
// CUDA-runtime shim hands cuTensorMapEncodeTiled's arguments to encode_tiled() as they are. Checked
// at compile time: this file does not build when they differ.
#include <cuda.h>

#include "banklab_emu/tensor_map.hpp"

namespace tma = banklab::emu::tma;
// A CUtensorMap holds the emulator's map: the same size, and aligned at least as the driver requires (64).
static_assert(sizeof(banklab::emu::TensorMap) == sizeof(CUtensorMap) && alignof(CUtensorMap) % alignof(banklab::emu::TensorMap) == 0);
static_assert(tma::kTypeUint8 == CU_TENSOR_MAP_DATA_TYPE_UINT8 && tma::kTypeUint16 == CU_TENSOR_MAP_DATA_TYPE_UINT16 &&
              tma::kTypeUint32 == CU_TENSOR_MAP_DATA_TYPE_UINT32 && tma::kTypeInt32 == CU_TENSOR_MAP_DATA_TYPE_INT32 &&
              tma::kTypeUint64 == CU_TENSOR_MAP_DATA_TYPE_UINT64 && tma::kTypeInt64 == CU_TENSOR_MAP_DATA_TYPE_INT64 &&
              tma::kTypeFloat16 == CU_TENSOR_MAP_DATA_TYPE_FLOAT16 && tma::kTypeFloat32 == CU_TENSOR_MAP_DATA_TYPE_FLOAT32 &&
              tma::kTypeFloat64 == CU_TENSOR_MAP_DATA_TYPE_FLOAT64 && tma::kTypeBfloat16 == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 &&
              tma::kTypeFloat32Ftz == CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ && tma::kTypeTfloat32 == CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 &&
              tma::kTypeTfloat32Ftz == CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ);
static_assert(tma::kInterleaveNone == CU_TENSOR_MAP_INTERLEAVE_NONE && tma::kInterleave16B == CU_TENSOR_MAP_INTERLEAVE_16B &&
              tma::kInterleave32B == CU_TENSOR_MAP_INTERLEAVE_32B);
static_assert(tma::kSwizzleNone == CU_TENSOR_MAP_SWIZZLE_NONE && tma::kSwizzle32B == CU_TENSOR_MAP_SWIZZLE_32B &&
              tma::kSwizzle64B == CU_TENSOR_MAP_SWIZZLE_64B && tma::kSwizzle128B == CU_TENSOR_MAP_SWIZZLE_128B);
static_assert(tma::kL2None == CU_TENSOR_MAP_L2_PROMOTION_NONE && tma::kL2_256B == CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
static_assert(tma::kOobFillNone == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE &&
              tma::kOobFillNanRequestZeroFma == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
static_assert(tma::kSuccess == CUDA_SUCCESS && tma::kInvalidValue == CUDA_ERROR_INVALID_VALUE);
