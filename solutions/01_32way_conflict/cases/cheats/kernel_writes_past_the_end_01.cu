// Cheat (an oracle hole): a correct, conflict-free kernel whose last block also writes 32 sums
// past the end of the output. A check that compares only the first rows passes it; guard zones
// after the output (or memcheck) fail it. (The judge launches kernels with the handout's launch
// shape itself, so a wrong grid in the launcher is not what runs: the kernel's own overrun is.)
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab01OnGpu.RowSumsAreCorrect: 128 byte(s) in the 65536 bytes after it were changed
// EXPECT: no-full-pass
--- a/labs/01_32way_conflict/kernel.cu
+++ b/labs/01_32way_conflict/kernel.cu
@@ -24,7 +24,7 @@
 
 // LAB TODO (the other way to fix it): which column lane `lane` adds at step `step`. Every lane
 // must still add each column of its row exactly once over the 32 steps; the order is yours.
-BANKLAB_HD constexpr int walk_col(int lane, int step) { return step; }
+BANKLAB_HD constexpr int walk_col(int lane, int step) { return (lane + step) % TILE_DIM; }
 
 // sums[r] = in[r][0] + ... + in[r][31] for `rows` rows (a multiple of TILE_DIM), one warp
 // (one block) per 32 rows.
@@ -44,6 +44,7 @@
   float sum = 0.0f;
   for (int step = 0; step < TILE_DIM; ++step) sum += tile[tile_index(lane, walk_col(lane, step))];
   sums[row0 + lane] = sum;
+  if (blockIdx.x + 1 == gridDim.x) sums[row0 + TILE_DIM + lane] = sum;  // 32 floats past the end
 }
 
 // Host launcher: `rows` must be a multiple of TILE_DIM.
@@ -54,20 +55,20 @@
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
