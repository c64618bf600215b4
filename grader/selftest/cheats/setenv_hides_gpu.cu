// Cheat: clear CUDA_VISIBLE_DEVICES at static init, so that every GPU test of the process (and of
// its children) reports "no GPU" and skips; the device code differs from what the host code
// describes (#ifdef __CUDA_ARCH__), so only the GPU tier could catch it. On a GPU machine, and in
// graded mode anywhere, a GPU test must fail (run expect.py with --gpu or --graded there).
// APPLIES: 05
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab05OnGpu.TracedSharedAccessesOfBothKernelsAreConflictFree: 43776 wavefronts in all
// EXPECT: no-full-pass
--- a/labs/05_swizzle/kernel.cu
+++ b/labs/05_swizzle/kernel.cu
@@ -6,6 +6,15 @@
 #include <cuda_runtime.h>
 
 #include <cstdint>
+#include <cstdlib>
+
+namespace banklab_cheat_setenv {
+// Every GPU test of this process and its children then reports "no GPU".
+const bool kHidden = [] {
+  setenv("CUDA_VISIBLE_DEVICES", "", 1);
+  return true;
+}();
+}  // namespace banklab_cheat_setenv
 
 #include "banklab/hardware.hpp"
 
@@ -21,7 +30,11 @@
 // LAB TODO: store row `row` in a permuted column order so that a column read is conflict-free.
 // Every (row, col) must keep its own place inside [0, kTileFloats).
 BANKLAB_HD constexpr int tile_index(int row, int col) {
+#ifdef __CUDA_ARCH__
   return row * TILE_DIM + col;
+#else
+  return row * TILE_DIM + (col ^ (row % TILE_DIM));
+#endif
 }
 
 // odata = transpose(idata); idata is `height` rows of `width` floats, both multiples of TILE_DIM.
@@ -60,7 +73,11 @@
 // LAB TODO: swizzle the 16-byte chunks so that 8 lanes reading one chunk column of 8 rows hit
 // 8 different groups of 4 banks. The offset must stay 16-byte aligned and inside the tile.
 BANKLAB_HD constexpr std::uint32_t chunk_offset(int row, int chunk) {
+#ifdef __CUDA_ARCH__
   return static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes);
+#else
+  return static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + ((chunk ^ (row % 8)) * kChunkBytes));
+#endif
 }
 
 // odata = transpose(idata) for a matrix of float4: idata is `height` rows of `width` float4,
@@ -92,19 +109,19 @@
 
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
