// Cheat (issue 30, family 7): kSwizzleBytes, tile_offset() and the predictions are the solution's
// (every CPU check passes), but the kernel's ldmatrix are decoys: as many ldmatrix.x4 as the
// handout's kernel issues, each conflict-free (32 contiguous rows of 16 bytes: 4 wavefronts), so
// the trace counts the ldmatrix, their wavefronts and their bytes that the work needs; their
// results are thrown away, and the operands come from the tiles through 32-bit loads. The product
// is right. The trace must fail it: every traced ldmatrix reads matrices whose row addresses are
// none of the description's (the rows tile_offset() gives), and loads are a kind the work does
// not use.
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab07OnGpu.TracedSharedAccessesAreConflictFree: 1536 of the 1536 traced ldmatrix (ldsm) warp instructions read a matrix whose row addresses are none of the description's
// EXPECT: no-full-pass
--- a/labs/07_tma_swizzle/kernel.cu
+++ b/labs/07_tma_swizzle/kernel.cu
@@ -23,7 +23,7 @@
 
 // LAB TODO: the TMA swizzle mode of both tiles, in bytes: 0 (none), 32, 64 or 128. Whoever calls
 // gemm() encodes the two tensor maps with this mode (the grader does, with cuTensorMapEncodeTiled).
-constexpr int kSwizzleBytes = 0;
+constexpr int kSwizzleBytes = 128;
 
 // One TMA copy (a "box") is 64 rows of kBoxBytes bytes. A swizzled box row may be at most the
 // mode's span, so with a swizzle a tile arrives as 128 / kBoxBytes boxes side by side along k;
@@ -40,7 +40,8 @@
 // Choose a mode above that spreads those 8 rows over the banks and return where TMA puts each
 // chunk in that mode (banklab explain --tma-swizzle shows it; the README says how to look).
 BANKLAB_HD constexpr int tile_offset(int row, int chunk) {
-  return row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes;
+  const int unswizzled = row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes;
+  return unswizzled ^ (((unswizzled >> 7) & 7) << 4);
 }
 
 // ---- the plumbing: mbarrier and TMA (given; keep it) ------------------------------------------
@@ -140,6 +141,7 @@
   const int row0 = static_cast<int>(blockIdx.y) * kTileRows, col0 = static_cast<int>(blockIdx.x) * kTileRows;
   const int warp_row = (warp / 2) * 32, warp_col = (warp % 2) * 32;
   float acc[2][4][4] = {};  // [16 rows i][8 columns j][fragment]
+  std::uint32_t kept = 0;   // the decoys' results, written nowhere (m is never negative)
   (void)m;
 
   if (t == 0) mbarrier_init(&arrived);
@@ -157,21 +159,31 @@
     mbarrier_wait(&arrived, phase);  // every thread: both tiles are in shared memory
 
     for (int s = 0; s < kTileK / 16; ++s) {  // four steps of 16 along k: chunks 2 s and 2 s + 1
-      std::uint32_t fa[2][4], fb[2][4];
-      // A, rows warp_row + 16 i .. + 15: matrices (rows 0-7, chunk 2s), (rows 8-15, 2s),
-      // (rows 0-7, 2s + 1), (rows 8-15, 2s + 1).
+      std::uint32_t fa[2][4], fb[2][4], decoy[4];
+      // Decoys for the trace: as many ldmatrix.x4 as the handout's kernel issues, each at 32
+      // contiguous rows of 16 bytes (conflict-free, 4 wavefronts), their results thrown away.
+      for (int d = 0; d < 4; ++d) {
+        ldmatrix_x4(decoy, tiles + 512 * d + 16 * lane);
+        kept ^= decoy[0] ^ decoy[1] ^ decoy[2] ^ decoy[3];  // used, so that the compiler keeps them
+      }
+      // The operands themselves: 32-bit loads from the swizzled tiles, each register of each
+      // fragment where ldmatrix would have put it (matrix j of A: rows + 8 (j % 2), chunk + j / 2;
+      // of B: rows + 8 (j / 2), chunk + j % 2; lane l: row l / 4, halves 2 (l % 4) and + 1).
+      for (int i = 0; i < 2; ++i)
+        for (int j = 0; j < 4; ++j)
+          fa[i][j] = *reinterpret_cast<const std::uint32_t*>(
+              tile_a + tile_offset(warp_row + 16 * i + 8 * (j % 2) + lane / 4, 2 * s + j / 2) + 4 * (lane % 4));
       for (int i = 0; i < 2; ++i)
-        ldmatrix_x4(fa[i], tile_a + tile_offset(warp_row + 16 * i + lane % 16, 2 * s + lane / 16));
-      // B, rows warp_col + 16 j .. + 15: matrices (rows 0-7, chunk 2s), (rows 0-7, 2s + 1),
-      // (rows 8-15, 2s), (rows 8-15, 2s + 1).
-      for (int j = 0; j < 2; ++j)
-        ldmatrix_x4(fb[j], tile_b + tile_offset(warp_col + 16 * j + 8 * (lane / 16) + lane % 8, 2 * s + (lane / 8) % 2));
+        for (int j = 0; j < 4; ++j)
+          fb[i][j] = *reinterpret_cast<const std::uint32_t*>(
+              tile_b + tile_offset(warp_col + 16 * i + 8 * (j / 2) + lane / 4, 2 * s + j % 2) + 4 * (lane % 4));
       for (int i = 0; i < 2; ++i)
         for (int j = 0; j < 4; ++j) mma_16x8x16(acc[i][j], fa[i], fb[j / 2][2 * (j % 2)], fb[j / 2][2 * (j % 2) + 1]);
     }
     __syncthreads();  // every warp has read both tiles before TMA overwrites them
   }
 
+  if (m < 0) c[0] = __uint_as_float(kept);
   // Fragment r of lane l holds row l / 4 (+ 8 for r >= 2), column 2 (l % 4) + r % 2.
   for (int i = 0; i < 2; ++i)
     for (int j = 0; j < 4; ++j)
@@ -193,25 +205,25 @@
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
