// The driver's calls the judge reaches through the runtime (cudaGetDriverEntryPointByVersion, as
// lab 07's harness gets cuTensorMapEncodeTiled), answered by the emulator (emu/shim/,
// docs/dev/EMULATOR.md). The emulator's "driver" is CUDA 13.0's: a version above it is refused, as
// the runtime refuses a version above the driver's.
//
// cuTensorMapEncodeTiled writes the emulator's own tensor map (emu/include/banklab_emu/tensor_map.hpp,
// encode_tiled(): the same arguments, the same documented requirements, CUDA_ERROR_INVALID_VALUE
// otherwise); the emulator's TMA copies read it back. A map another encoder wrote is "not judged".
#include <cstring>
#include <mutex>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "banklab_emu/tensor_map.hpp"
#include "state.hpp"

using banklab::emu::shim::State;
using banklab::emu::shim::state;

namespace {

constexpr unsigned kDriverVersion = 13000;  ///< cudaDriverGetVersion's: CUDA 13.0, the toolkit the course uses

CUresult encode_tiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* address, const cuuint64_t* dims,
                      const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* element_strides,
                      CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                      CUtensorMapFloatOOBfill fill) {
  static_assert(sizeof(CUtensorMap) == sizeof(banklab::emu::TensorMap), "a CUtensorMap is the emulator's map's size");
  if (!map) return CUDA_ERROR_INVALID_VALUE;
  const int r = banklab::emu::encode_tiled(map, static_cast<int>(type), rank, reinterpret_cast<std::uint64_t>(address), dims,
                                           strides, box, element_strides, static_cast<int>(interleave),
                                           static_cast<int>(swizzle), static_cast<int>(l2), static_cast<int>(fill));
  return r == banklab::emu::tma::kSuccess ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

struct Entry {
  const char* symbol;
  unsigned since;  ///< the CUDA version that introduced it (1000 major + 10 minor)
  void* fn;
};

// The driver functions the emulator answers (a symbol not here: not found, as a driver without it).
const Entry kEntries[] = {
    {"cuTensorMapEncodeTiled", 12000, reinterpret_cast<void*>(&encode_tiled)},
};

}  // namespace

extern "C" {

cudaError_t cudaDriverGetVersion(int* version) {
  if (!version) return cudaErrorInvalidValue;
  *version = static_cast<int>(kDriverVersion);
  return cudaSuccess;
}

// The runtime's documented answers: cudaSuccess with the function, or cudaSuccess with null and
// the reason in `status` (not found; found but newer than `version`); cudaErrorInvalidValue for a
// version above the driver's or a null argument.
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int version, unsigned long long,
                                             enum cudaDriverEntryPointQueryResult* status) {
  State& s = state();
  std::lock_guard<std::recursive_mutex> g(s.lock);
  if (!symbol || !fn || version > kDriverVersion) {
    s.last = cudaErrorInvalidValue;
    return cudaErrorInvalidValue;
  }
  *fn = nullptr;
  enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  for (const Entry& e : kEntries)
    if (std::strcmp(e.symbol, symbol) == 0) {
      found = version >= e.since ? cudaDriverEntryPointSuccess : cudaDriverEntryPointVersionNotSufficent;
      if (found == cudaDriverEntryPointSuccess) *fn = e.fn;
    }
  if (status) *status = found;
  return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** fn, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult* status) {
  return cudaGetDriverEntryPointByVersion(symbol, fn, kDriverVersion, flags, status);
}

}  // extern "C"
