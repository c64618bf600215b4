// Cheat: walk_col skews the walk on the host and keeps the stub's 32-way conflicting row walk on
// the device (#ifdef __CUDA_ARCH__). Predictions are right; the sums are right. Only the GPU tier
// judging the kernel that runs can fail it.
// PAYLOAD: cuda_arch_host_differs_01: the host walks column 1 at lane 1, step 0
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab01OnGpu.TracedSharedAccessesAreConflictFree: 540672 wavefronts in all
// EXPECT: no-full-pass
--- a/labs/01_32way_conflict/kernel.cu
+++ b/labs/01_32way_conflict/kernel.cu
@@ -24,7 +24,13 @@
 
 // LAB TODO (the other way to fix it): which column lane `lane` adds at step `step`. Every lane
 // must still add each column of its row exactly once over the 32 steps; the order is yours.
-BANKLAB_HD constexpr int walk_col(int lane, int step) { return step; }
+BANKLAB_HD constexpr int walk_col(int lane, int step) {
+#ifdef __CUDA_ARCH__
+  return step;
+#else
+  return (lane + step) % TILE_DIM;
+#endif
+}
 
 // sums[r] = in[r][0] + ... + in[r][31] for `rows` rows (a multiple of TILE_DIM), one warp
 // (one block) per 32 rows.
@@ -54,20 +60,28 @@
 // Your predictions: a warp of 32 lanes loads floats from shared memory, lane i reads the float
 // at word i * S (S = the stride in 4-byte words). How many wavefronts does the load take?
 namespace predict {
-// LAB TODO: stride S = 2
-constexpr int kStride2Wavefronts = -1;
-// LAB TODO: stride S = 4
-constexpr int kStride4Wavefronts = -1;
-// LAB TODO: stride S = 8
-constexpr int kStride8Wavefronts = -1;
-// LAB TODO: stride S = 16
-constexpr int kStride16Wavefronts = -1;
-// LAB TODO: stride S = 32 (the stub's row walk)
-constexpr int kStride32Wavefronts = -1;
-// LAB TODO: stride S = 3 (an odd stride)
-constexpr int kStride3Wavefronts = -1;
-// LAB TODO: stride S = 48 (neither odd nor a power of two)
-constexpr int kStride48Wavefronts = -1;
+// stride S = 2
+constexpr int kStride2Wavefronts = 2;  // lanes i and i+16 share a bank
+// stride S = 4
+constexpr int kStride4Wavefronts = 4;  // gcd(4, 32) = 4 lanes per bank
+// stride S = 8
+constexpr int kStride8Wavefronts = 8;
+// stride S = 16
+constexpr int kStride16Wavefronts = 16;
+// stride S = 32 (the stub's row walk)
+constexpr int kStride32Wavefronts = 32;  // every lane in one bank
+// stride S = 3 (an odd stride)
+constexpr int kStride3Wavefronts = 1;  // odd: 3i % 32 hits all 32 banks
+// stride S = 48 (neither odd nor a power of two)
+constexpr int kStride48Wavefronts = 16;  // gcd(48, 32) = 16
 }  // namespace predict
 
 }  // namespace lab01
+
+#ifndef __CUDA_ARCH__
+#include <cstdio>
+// The payload's own trace: what the host side (the probe) sees of walk_col (the stub's walk: 0).
+namespace banklab_cheat_arch01 {
+const int kSaid = std::printf("cuda_arch_host_differs_01: the host walks column %d at lane 1, step 0\n", lab01::walk_col(1, 0));
+}  // namespace banklab_cheat_arch01
+#endif
