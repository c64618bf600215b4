// Lab 03: vector loads and stores (float2, float4). An "array of structures" to "structure of
// arrays" conversion: the input holds pairs {a, b} of float4 side by side (a0 b0 a1 b1 ...); the
// kernel writes all a's to one array and all b's to another. A block stages its kPairsPerBlock
// pairs in shared memory with coalesced 16-byte copies, then each thread picks up the a and the b
// of its own kPairsPerThread pairs (thread t: pairs t * kPairsPerThread onwards). The layout of the
// staging tile decides how many wavefronts every access takes.
// This file is the only one you edit: look for LAB TODO.
#include <cuda_runtime.h>

#include <cstdint>

#include "banklab/hardware.hpp"

namespace lab03 {

constexpr int kPairsPerBlock = 256;             // pairs a block stages
constexpr int kPairsPerThread = 1;              // pairs each thread picks up
constexpr int kThreads = kPairsPerBlock / kPairsPerThread;  // threads a block
constexpr int kVecBytes = 16;                   // sizeof(float4)

// LAB TODO: the staging tile's size in bytes. Change it if your layout needs more room.
constexpr std::uint32_t kTileBytes = 2 * kPairsPerBlock * kVecBytes;

// The access function: byte offset in the staging tile of member `member` (0 = a, 1 = b) of
// pair `pair` (0 to kPairsPerBlock - 1). The kernel and the grader both use it.
// LAB TODO: the stub keeps the input's interleaved order (a0 b0 a1 b1 ...). Then the a that lane
// i loads is 2 * kPairsPerThread float4 after the previous lane's. Find a layout where every
// shared access of the kernel (the staging stores AND the loads of a and of b) takes its minimum
// number of wavefronts. Every offset must be 16-byte aligned, inside [0, kTileBytes) and different
// for every (pair, member).
BANKLAB_HD constexpr std::uint32_t slot_offset(int pair, int member) {
  return static_cast<std::uint32_t>((2 * pair + member) * kVecBytes);
}

// a_out[i] = in[2 i], b_out[i] = in[2 i + 1] for i in [0, pairs); pairs a multiple of kPairsPerBlock.
__global__ void deinterleave(float4* a_out, float4* b_out, const float4* in, int pairs) {
  __shared__ __align__(16) unsigned char tile[kTileBytes];
  const int t = static_cast<int>(threadIdx.x);
  const long first = static_cast<long>(blockIdx.x) * kPairsPerBlock;  // first pair of this block

  // Staging: the block's 2 * kPairsPerBlock float4 in input order, thread t takes float4 number
  // k * kThreads + t for each k (coalesced: a warp copies 512 contiguous bytes). Float4 number e
  // is member e % 2 of pair e / 2.
  for (int k = 0; k < 2 * kPairsPerThread; ++k) {
    const int e = k * kThreads + t;
    *reinterpret_cast<float4*>(tile + slot_offset(e / 2, e % 2)) = in[2 * first + e];
  }

  __syncthreads();

  // Thread t loads the a and the b of pairs t * kPairsPerThread + j (two 16-byte loads per warp
  // for each j).
  for (int j = 0; j < kPairsPerThread; ++j) {
    const int p = t * kPairsPerThread + j;
    a_out[first + p] = *reinterpret_cast<const float4*>(tile + slot_offset(p, 0));
    b_out[first + p] = *reinterpret_cast<const float4*>(tile + slot_offset(p, 1));
  }
}

inline void split_pairs(float4* a_out, float4* b_out, const float4* in, int pairs, cudaStream_t stream = 0) {
  deinterleave<<<pairs / kPairsPerBlock, kThreads, 0, stream>>>(a_out, b_out, in, pairs);
}

// Your predictions: wavefronts of ONE warp instruction, all 32 lanes active. Offsets in bytes.
namespace predict {
// LAB TODO: float2 load, lane i at i * 8 (contiguous).
constexpr int kFloat2ContiguousLoad = -1;
// LAB TODO: float2 load, lane i at (i / 2) * 8 (lanes 2k and 2k+1 read the same float2).
constexpr int kFloat2PairSharedLoad = -1;
// LAB TODO: float2 STORE, lane i at (i / 2) * 8 (the same addresses, written).
constexpr int kFloat2PairSharedStore = -1;
// LAB TODO: float4 load, lane i at i * 16 (contiguous).
constexpr int kFloat4ContiguousLoad = -1;
// LAB TODO: float4 load, lane i at i * 32 (every other float4: the stub's load of a).
constexpr int kFloat4Stride2Load = -1;
// LAB TODO: float4 load, lane i at (i / 2) * 32 (pairs share a float4, pairs 32 bytes apart).
constexpr int kFloat4PairSharedStride32Load = -1;
// LAB TODO: for that same load, what does Nsight Compute's
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum report?
constexpr int kFloat4PairSharedStride32NcuConflicts = -1;
// LAB TODO: float4 load, every lane at offset 0.
constexpr int kFloat4SameAddressLoad = -1;
// LAB TODO: float4 STORE, every lane at offset 0.
constexpr int kFloat4SameAddressStore = -1;
// LAB TODO: float4 load, lane i at i * 16 (the kernel's load of a from a plain structure of arrays).
constexpr int kFloat4PlainSoaLoad = -1;
}  // namespace predict

}  // namespace lab03
