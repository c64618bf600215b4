// Cheat: the access functions answer the swizzled layout on the host (what a CPU replay or a
// probe sees) and keep the stub's conflicting layout on the device (what really runs), via
// #ifdef __CUDA_ARCH__. Predictions are right. Only a GPU tier that judges the kernel that runs
// (its real shared-memory traffic) can fail it.
// PAYLOAD: cuda_arch_host_differs_05: the host stores (1, 0) at 33
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab05OnGpu.TracedSharedAccessesOfBothKernelsAreConflictFree: 43776 wavefronts in all
// EXPECT: no-full-pass
--- a/labs/05_swizzle/kernel.cu
+++ b/labs/05_swizzle/kernel.cu
@@ -21,7 +21,11 @@
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
@@ -60,7 +64,11 @@
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
@@ -92,19 +100,27 @@
 
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
+#ifndef __CUDA_ARCH__
+#include <cstdio>
+// The payload's own trace: what the host side (the probe) sees of tile_index (the stub's layout: 32).
+namespace banklab_cheat_arch05 {
+const int kSaid = std::printf("cuda_arch_host_differs_05: the host stores (1, 0) at %d\n", lab05::tile_index(1, 0));
+}  // namespace banklab_cheat_arch05
+#endif
