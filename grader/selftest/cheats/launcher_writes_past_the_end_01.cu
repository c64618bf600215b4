// Cheat (an oracle hole): a correct, conflict-free kernel whose launcher starts one block too
// many: it reads 32 rows past the end of the input and writes 32 sums past the end of the output.
// A check that compares only the first rows passes it; guard zones after the output (or memcheck)
// fail it.
// APPLIES: 01
// MODE: patch
// TIER: gpu
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
@@ -48,26 +48,26 @@
 
 // Host launcher: `rows` must be a multiple of TILE_DIM.
 inline void row_sums_launch(const float* in, float* sums, int rows, cudaStream_t stream = 0) {
-  row_sums<<<rows / TILE_DIM, TILE_DIM, 0, stream>>>(in, sums);
+  row_sums<<<rows / TILE_DIM + 1, TILE_DIM, 0, stream>>>(in, sums);  // one block too many
 }
 
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
