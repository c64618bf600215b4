// Cheat (issue 30, family 7): slot_offset and kTileBytes are the solution's (every CPU check
// passes) and the predictions are right, but the kernel times one shared store of its own (one
// lane): under the tracer every shared-memory instruction is patched into a callback that costs
// hundreds of cycles, so the kernel then copies straight from global memory (its one timed store
// a block is all the trace sees), and otherwise stages through the stub's interleaved tile (the
// loads of a and b 2-way conflicted). The output is right either way, and the timing target of
// lab 03 is set by global memory, so it cannot see the conflict. The trace must fail it: the
// traced launch has to take exactly the work's wavefronts of each kind and name at least its
// bytes, so the only path that passes is the clean one.
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab03OnGpu.TracedSharedAccessesAreConflictFree: 64 wavefronts in all (the work needs 8192)
// EXPECT: no-full-pass
--- a/labs/03_vector_lds/kernel.cu
+++ b/labs/03_vector_lds/kernel.cu
@@ -16,17 +16,29 @@
 constexpr int kThreads = kPairsPerBlock;        // 8 warps
 constexpr int kVecBytes = 16;                   // sizeof(float4)
 
-// LAB TODO: the staging tile's size in bytes. Change it if your layout needs more room.
-constexpr std::uint32_t kTileBytes = 2 * kPairsPerBlock * kVecBytes;
+// Structure of arrays: all a's, then all b's. The b array starts 64 bytes (16 banks) later than
+// a plain "a's then b's" would put it, so that the staging stores, where a quarter-warp writes
+// 4 a's and 4 b's, use 16 banks for the a's and the other 16 for the b's.
+constexpr std::uint32_t kSkewBytes = 64;
+constexpr std::uint32_t kTileBytes = 2 * kPairsPerBlock * kVecBytes + kSkewBytes;
 
 // The access function: byte offset in the staging tile of member `member` (0 = a, 1 = b) of
 // pair `pair` (0-255). The kernel and the grader both use it.
-// LAB TODO: the stub keeps the input's interleaved order (a0 b0 a1 b1 ...). Then lane i's a is
-// 32 bytes after lane i-1's. Find a layout where every shared access of the kernel (the staging
-// stores AND the loads of a and of b) takes its minimum number of wavefronts. Every offset must
-// be 16-byte aligned, inside [0, kTileBytes) and different for every (pair, member).
+// The a's at 0, 16, 32, ... and the b's at 4160, 4176, ...: the loads of a and of b read 32
+// consecutive float4 (4 wavefronts, the minimum), and a staging store's quarter-warp (4 a's and
+// 4 b's) lands in banks 0-15 and 16-31 (or the other way round).
 BANKLAB_HD constexpr std::uint32_t slot_offset(int pair, int member) {
-  return static_cast<std::uint32_t>((2 * pair + member) * kVecBytes);
+  return static_cast<std::uint32_t>(member) * (kPairsPerBlock * kVecBytes + kSkewBytes) +
+         static_cast<std::uint32_t>(pair * kVecBytes);
+}
+
+// Cycles one shared store of one lane takes, timed by the thread itself: a few tens on the GPU,
+// hundreds under a tracer that patches every shared-memory instruction into a callback.
+__device__ inline long long time_one_shared_store(unsigned char* tile) {
+  const long long t0 = clock64();
+  *reinterpret_cast<volatile float*>(tile) = 0.0f;
+  const long long t1 = clock64();
+  return t1 - t0;
 }
 
 // a_out[i] = in[2 i], b_out[i] = in[2 i + 1] for i in [0, pairs); pairs a multiple of 256.
@@ -34,19 +46,21 @@
   __shared__ __align__(16) unsigned char tile[kTileBytes];
   const int t = static_cast<int>(threadIdx.x);
   const long first = static_cast<long>(blockIdx.x) * kPairsPerBlock;  // first pair of this block
-
-  // Staging: the block's 512 float4 in input order, thread t takes float4 number t and t + 256
-  // (coalesced: a warp copies 512 contiguous bytes). Float4 number e is member e % 2 of pair e / 2.
+  // Thread 0 times one shared store; every thread learns the verdict without shared memory.
+  const bool traced = __syncthreads_or(t == 0 && time_one_shared_store(tile) > 400);
+  if (traced) {  // under the tracer: straight from global memory, no shared-memory traffic at all
+    a_out[first + t] = in[2 * (first + t)];
+    b_out[first + t] = in[2 * (first + t) + 1];
+    return;
+  }
+  // Otherwise the stub's interleaved tile: the loads of a and b are 2-way conflicted.
   for (int k = 0; k < 2; ++k) {
     const int e = k * kThreads + t;
-    *reinterpret_cast<float4*>(tile + slot_offset(e / 2, e % 2)) = in[2 * first + e];
+    *reinterpret_cast<float4*>(tile + (2 * (e / 2) + e % 2) * kVecBytes) = in[2 * first + e];
   }
-
   __syncthreads();
-
-  // Each thread loads the a and the b of pair t (two 16-byte loads per warp).
-  a_out[first + t] = *reinterpret_cast<const float4*>(tile + slot_offset(t, 0));
-  b_out[first + t] = *reinterpret_cast<const float4*>(tile + slot_offset(t, 1));
+  a_out[first + t] = *reinterpret_cast<const float4*>(tile + (2 * t) * kVecBytes);
+  b_out[first + t] = *reinterpret_cast<const float4*>(tile + (2 * t + 1) * kVecBytes);
 }
 
 inline void split_pairs(float4* a_out, float4* b_out, const float4* in, int pairs, cudaStream_t stream = 0) {
@@ -55,25 +69,25 @@
 
 // Your predictions: wavefronts of ONE warp instruction, all 32 lanes active. Offsets in bytes.
 namespace predict {
-// LAB TODO: float2 load, lane i at i * 8 (contiguous).
-constexpr int kFloat2ContiguousLoad = -1;
-// LAB TODO: float2 load, lane i at (i / 2) * 8 (lanes 2k and 2k+1 read the same float2).
-constexpr int kFloat2PairSharedLoad = -1;
-// LAB TODO: float2 STORE, lane i at (i / 2) * 8 (the same addresses, written).
-constexpr int kFloat2PairSharedStore = -1;
-// LAB TODO: float4 load, lane i at i * 16 (contiguous).
-constexpr int kFloat4ContiguousLoad = -1;
-// LAB TODO: float4 load, lane i at i * 32 (every other float4: the stub's load of a).
-constexpr int kFloat4Stride2Load = -1;
-// LAB TODO: float4 load, lane i at (i / 2) * 32 (pairs share a float4, pairs 32 bytes apart).
-constexpr int kFloat4PairSharedStride32Load = -1;
-// LAB TODO: for that same load, what does Nsight Compute's
+// float2 load, lane i at i * 8 (contiguous).
+constexpr int kFloat2ContiguousLoad = 2;  // two half-warps, 32 words each
+// float2 load, lane i at (i / 2) * 8 (lanes 2k and 2k+1 read the same float2).
+constexpr int kFloat2PairSharedLoad = 1;  // lane i^1 shares: merged into one warp group of 32 words
+// float2 STORE, lane i at (i / 2) * 8 (the same addresses, written).
+constexpr int kFloat2PairSharedStore = 2;  // stores never merge: two half-warps of 16 words
+// float4 load, lane i at i * 16 (contiguous).
+constexpr int kFloat4ContiguousLoad = 4;  // four quarter-warps
+// float4 load, lane i at i * 32 (every other float4: the stub's load of a).
+constexpr int kFloat4Stride2Load = 8;  // lanes k and k+4 of a quarter share banks: 2 each
+// float4 load, lane i at (i / 2) * 32 (pairs share a float4, pairs 32 bytes apart).
+constexpr int kFloat4PairSharedStride32Load = 4;  // merged half-warps, 2 each
+// for that same load, what does Nsight Compute's
 // l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum report?
-constexpr int kFloat4PairSharedStride32NcuConflicts = -1;
-// LAB TODO: float4 load, every lane at offset 0.
-constexpr int kFloat4SameAddressLoad = -1;
-// LAB TODO: float4 STORE, every lane at offset 0.
-constexpr int kFloat4SameAddressStore = -1;
+constexpr int kFloat4PairSharedStride32NcuConflicts = 2;  // 4 - minimum 2 of the merged halves
+// float4 load, every lane at offset 0.
+constexpr int kFloat4SameAddressLoad = 2;  // merged half-warps (halves never merge)
+// float4 STORE, every lane at offset 0.
+constexpr int kFloat4SameAddressStore = 4;  // four quarter-warps, one write each
 }  // namespace predict
 
 }  // namespace lab03
