// Cheat: after the kernels, macros rename tile_index and chunk_offset to swizzled versions, so
// any code compiled after the student's file (a probe dumping the access functions, a CPU
// replay) sees a conflict-free layout while the compiled kernels keep the stub's. Predictions
// are right. Only the GPU tier, judging the kernel that runs, can fail it (or a probe that
// refuses such macros: then the build fails, a correct verdict too).
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab05OnGpu.TracedSharedAccessesOfBothKernelsAreConflictFree: 43776 wavefronts in all
// EXPECT: no-full-pass
// BUILD: may-fail: a probe that refuses such macros fails the build, a correct verdict too
// EMULATED: ci
--- a/labs/05_swizzle/kernel.cu
+++ b/labs/05_swizzle/kernel.cu
@@ -92,19 +92,30 @@
 
 // Your predictions. Work them out on paper, then check with banklab explain.
 namespace predict {
-// LAB TODO: wavefronts of one warp's column read of the UNSWIZZLED float tile (lane i reads
+// wavefronts of one warp's column read of the UNSWIZZLED float tile (lane i reads
 // row i, column c; tile_index(row, col) = row * 32 + col).
-constexpr int kUnswizzledColumnReadWavefronts = -1;
-// LAB TODO: wavefronts of the same column read with YOUR swizzled tile_index, once it is conflict-free.
-constexpr int kSwizzledColumnReadWavefronts = -1;
-// LAB TODO: with your swizzle, in which column of row 5 is element (row 5, col 3) stored?
-constexpr int kStoredColumnOfRow5Col3 = -1;
-// LAB TODO: bytes of shared memory the swizzled float tile saves over the padded tile[32][33].
-constexpr int kBytesSavedOverPadding = -1;
-// LAB TODO: wavefronts of one warp's UNSWIZZLED float4 column read (lane i reads chunk c of row i).
-constexpr int kUnswizzledChunkColumnReadWavefronts = -1;
-// LAB TODO: wavefronts of the same float4 column read with the swizzle applied.
-constexpr int kSwizzledChunkColumnReadWavefronts = -1;
+constexpr int kUnswizzledColumnReadWavefronts = 32;  // all of column c in bank c
+// wavefronts of the same column read with the swizzle tile_index = row * 32 + (col ^ row).
+constexpr int kSwizzledColumnReadWavefronts = 1;  // bank c ^ i for lane i: all different
+// with that swizzle, in which column of row 5 is element (row 5, col 3) stored?
+constexpr int kStoredColumnOfRow5Col3 = 3 ^ 5;  // 011 ^ 101 = 110 = 6
+// bytes of shared memory the swizzled float tile saves over the padded tile[32][33].
+constexpr int kBytesSavedOverPadding = 32 * 4;  // 4224 - 4096: one float per row
+// wavefronts of one warp's UNSWIZZLED float4 column read (lane i reads chunk c of row i).
+constexpr int kUnswizzledChunkColumnReadWavefronts = 32;  // 4 quarter-warps x 8 (banks c*4..c*4+3)
+// wavefronts of the same float4 column read with the swizzle applied.
+constexpr int kSwizzledChunkColumnReadWavefronts = 4;  // 4 quarter-warps x 1: the minimum
 }  // namespace predict
 
 }  // namespace lab05
+
+// Code compiled after this file (a probe, a replay) sees the swizzled layout; the kernels above
+// were compiled with the stub's.
+#define tile_index(row, col) tile_index_swizzled(row, col)
+#define chunk_offset(row, chunk) chunk_offset_swizzled(row, chunk)
+namespace lab05 {
+BANKLAB_HD constexpr int tile_index_swizzled(int row, int col) { return row * TILE_DIM + (col ^ (row % TILE_DIM)); }
+BANKLAB_HD constexpr std::uint32_t chunk_offset_swizzled(int row, int chunk) {
+  return static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + ((chunk ^ (row % 8)) * kChunkBytes));
+}
+}  // namespace lab05
