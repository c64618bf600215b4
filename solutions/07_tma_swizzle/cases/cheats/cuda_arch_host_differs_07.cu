// Cheat: kSwizzleBytes and tile_offset() answer the 128-byte mode on the host (what the probe
// reports: the grader encodes the tensor maps in that mode, and a CPU replay sees a conflict-free
// layout) and keep the stub's on the device (no swizzle, rows of 128 bytes), via
// #ifdef __CUDA_ARCH__. Predictions are right and every CPU check passes. On the GPU, TMA writes
// both tiles in the mode the host announced and the device reads them where the stub would: a
// wrong product, and every ldmatrix 8-way conflicted. Only a GPU tier that judges the kernel that
// runs, fed by tensor maps in the mode the probe reported, can fail it.
// PAYLOAD: cuda_arch_host_differs_07: the host says mode 128, chunk 0 of row 1 at byte 144
// MODE: patch
// TIER: gpu
// EXPECT: no-full-pass
// GPU_EVIDENCE: Lab07OnGpu.ProductIsCorrectFor128x192x256: TMA wrote both tiles in the 128-byte mode
// GPU_EVIDENCE: Lab07OnGpu.TracedSharedAccessesAreConflictFree: 49152 wavefronts in all
--- a/labs/07_tma_swizzle/kernel.cu
+++ b/labs/07_tma_swizzle/kernel.cu
@@ -23,7 +23,11 @@
 
 // LAB TODO: the TMA swizzle mode of both tiles, in bytes: 0 (none), 32, 64 or 128. Whoever calls
 // gemm() encodes the two tensor maps with this mode (the grader does, with cuTensorMapEncodeTiled).
-constexpr int kSwizzleBytes = 0;
+#ifdef __CUDA_ARCH__
+constexpr int kSwizzleBytes = 0;    // the device code's boxes and reads: the stub's
+#else
+constexpr int kSwizzleBytes = 128;  // what the probe reports, and the grader encodes the tensor maps with
+#endif
 
 // One TMA copy (a "box") is 64 rows of kBoxBytes bytes. A swizzled box row may be at most the
 // mode's span, so with a swizzle a tile arrives as 128 / kBoxBytes boxes side by side along k;
@@ -40,7 +44,12 @@
 // Choose a mode above that spreads those 8 rows over the banks and return where TMA puts each
 // chunk in that mode (banklab explain --tma-swizzle shows it; the README says how to look).
 BANKLAB_HD constexpr int tile_offset(int row, int chunk) {
+#ifdef __CUDA_ARCH__
   return row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes;
+#else
+  const int unswizzled = row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes;
+  return unswizzled ^ (((unswizzled >> 7) & 7) << 4);
+#endif
 }
 
 // ---- the plumbing: mbarrier and TMA (given; keep it) ------------------------------------------
@@ -193,25 +202,34 @@
 // --tma-swizzle none|32|64|128 to lay a box out as TMA does). ldmatrix.x4 uses the addresses of
 // all 32 lanes, 8 per matrix; the lane patterns are those of lab 06.
 namespace predict {
-// LAB TODO: wavefronts of one ldmatrix.x4 from a tile TMA wrote without swizzle in one box of
+// wavefronts of one ldmatrix.x4 from a tile TMA wrote without swizzle in one box of
 // 128-byte rows (the stub's), lane i giving the address of row i % 16, chunk i / 16.
-constexpr int kNoSwizzleX4Wavefronts = -1;
-// LAB TODO: the same load from a tile of boxes of 32-byte rows (16 halves) written WITHOUT
+constexpr int kNoSwizzleX4Wavefronts = 32;
+// the same load from a tile of boxes of 32-byte rows (16 halves) written WITHOUT
 // swizzle: lane i gives row i % 16, chunk i / 16 (both chunks in box 0, rows 32 bytes apart).
-constexpr int kNarrowBoxNoSwizzleX4Wavefronts = -1;
-// LAB TODO: the same load from the boxes of 32-byte rows written in the 32-byte mode.
-constexpr int kSwizzle32X4Wavefronts = -1;
-// LAB TODO: the same load from one box of 128-byte rows written in the 128-byte mode.
-constexpr int kSwizzle128X4Wavefronts = -1;
-// LAB TODO: a 16-byte load (ld.shared.v4) from the 128-byte-mode tile, lane i reading chunk 0
+constexpr int kNarrowBoxNoSwizzleX4Wavefronts = 8;
+// the same load from the boxes of 32-byte rows written in the 32-byte mode.
+constexpr int kSwizzle32X4Wavefronts = 4;
+// the same load from one box of 128-byte rows written in the 128-byte mode.
+constexpr int kSwizzle128X4Wavefronts = 4;
+// a 16-byte load (ld.shared.v4) from the 128-byte-mode tile, lane i reading chunk 0
 // of row i (a column of 32 rows).
-constexpr int kSwizzle128ColumnLoadWavefronts = -1;
-// LAB TODO: in a box of 64-byte rows (32 halves) written in the 64-byte mode, the byte offset
+constexpr int kSwizzle128ColumnLoadWavefronts = 4;
+// in a box of 64-byte rows (32 halves) written in the 64-byte mode, the byte offset
 // from the box's start where TMA puts half 12 of row 5.
-constexpr int kSwizzle64OffsetOfRow5Half12 = -1;
-// LAB TODO: in a box of 128-byte rows written in the 128-byte mode, the row and chunk whose
+constexpr int kSwizzle64OffsetOfRow5Half12 = 376;
+// in a box of 128-byte rows written in the 128-byte mode, the row and chunk whose
 // bytes TMA puts at byte offset 1200 of the box, as row * 8 + chunk.
-constexpr int kSwizzle128ChunkAtByte1200 = -1;
+constexpr int kSwizzle128ChunkAtByte1200 = 74;
 }  // namespace predict
 
 }  // namespace lab07
+
+#ifndef __CUDA_ARCH__
+#include <cstdio>
+// The payload's own trace: what the host side (the probe) says of the mode and of tile_offset.
+namespace banklab_cheat_arch07 {
+const int kSaid = std::printf("cuda_arch_host_differs_07: the host says mode %d, chunk 0 of row 1 at byte %d\n",
+                              lab07::kSwizzleBytes, lab07::tile_offset(1, 0));
+}  // namespace banklab_cheat_arch07
+#endif
