// cuTensorMapEncodeTiled as the injection library reads it from the driver-API callback (TMA
// loads' boxes, format.hpp kFlagTensorMap): its parameters and the bytes of an element.
#pragma once

#if BANKLAB_SANITIZER_HAS_TMA
#include <cuda.h>

#include <cstdint>

namespace banklab::trace {

// cuTensorMapEncodeTiled's parameters, in the order of its declaration in cuda.h (the layout of
// the API callback's functionParams for it).
struct EncodeTiledParams {
  CUtensorMap* tensorMap;
  CUtensorMapDataType tensorDataType;
  cuuint32_t tensorRank;
  void* globalAddress;
  const cuuint64_t* globalDim;
  const cuuint64_t* globalStrides;
  const cuuint32_t* boxDim;
  const cuuint32_t* elementStrides;
  CUtensorMapInterleave interleave;
  CUtensorMapSwizzle swizzle;
  CUtensorMapL2promotion l2Promotion;
  CUtensorMapFloatOOBfill oobFill;
};

// Bytes of one element of a tensor map's type (0: a packed type of less than a byte).
inline std::uint32_t element_bytes(int type) {
  switch (type) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16: case CU_TENSOR_MAP_DATA_TYPE_FLOAT16: case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32: case CU_TENSOR_MAP_DATA_TYPE_INT32: case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ: case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ: return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64: case CU_TENSOR_MAP_DATA_TYPE_INT64: case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
    default: return 0;
  }
}

}  // namespace banklab::trace
#endif
