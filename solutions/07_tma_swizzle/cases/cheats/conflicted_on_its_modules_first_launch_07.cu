// Cheat: kSwizzleBytes, tile_offset() and the predictions are the solution's (every CPU check
// passes), but the kernel keeps a __device__ count of its finished blocks and so knows which
// launch of its module it is in: the module's first launch walks the rows of its tiles 8-way
// conflicted (the 8 rows of each ldmatrix matrix are rows q, q + 8, ..., q + 56, one key of the
// 128-byte mode), every later launch in order (conflict-free). The product is right either way.
// Every judged launch must run on a module no launch has used, the traced one included (it follows
// one to three untraced launches of the same call): then the trace sees the conflicted walk.
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab07OnGpu.TracedSharedAccessesAreConflictFree: 49152 wavefronts in all
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
@@ -125,6 +126,16 @@
 
 // ---- the kernel ------------------------------------------------------------------------------
 
+// Row `rho` of a tile's 64 rows as this kernel walks them. In order when `in_order`; otherwise row
+// (rho % 8) * 8 + rho / 8, so the 8 rows of one ldmatrix matrix (rho = 8 q .. 8 q + 7) are rows q,
+// q + 8, ..., q + 56: one swizzle key (row % 8) for all 8, their chunk in the same 4 banks (8-way).
+// Every output row and column follows its row of A or B, so the product is right either way.
+__device__ inline int walked_row(int rho, bool in_order) { return in_order ? rho : (rho % 8) * 8 + rho / 8; }
+
+// Blocks of gemm_tma that have finished since the module was loaded: every block of launch L reads a
+// value in [L * blocks, (L + 1) * blocks), so it knows which launch of its module it is in.
+__device__ unsigned long long g_blocks_done = 0;
+
 // c (m x n floats, row-major) = a (m x k halves, row-major) times b^T (b: n x k halves,
 // row-major): c[i][j] = sum over p of a[i][p] * b[j][p]. m, n and k are multiples of 64. The
 // kernel reads a and b only through TMA: map_a and map_b are tensor maps (in global memory) of a
@@ -140,6 +151,11 @@
   const int row0 = static_cast<int>(blockIdx.y) * kTileRows, col0 = static_cast<int>(blockIdx.x) * kTileRows;
   const int warp_row = (warp / 2) * 32, warp_col = (warp % 2) * 32;
   float acc[2][4][4] = {};  // [16 rows i][8 columns j][fragment]
+  // The module's first launch walks its tiles 8-way conflicted, every later launch in order
+  // (conflict-free): a judge that traced or timed a launch after another on the same module would
+  // see only conflict-free launches.
+  const unsigned long long blocks = static_cast<unsigned long long>(gridDim.x) * gridDim.y;
+  const bool in_order = *reinterpret_cast<volatile unsigned long long*>(&g_blocks_done) >= blocks;
   (void)m;
 
   if (t == 0) mbarrier_init(&arrived);
@@ -161,11 +177,12 @@
       // A, rows warp_row + 16 i .. + 15: matrices (rows 0-7, chunk 2s), (rows 8-15, 2s),
       // (rows 0-7, 2s + 1), (rows 8-15, 2s + 1).
       for (int i = 0; i < 2; ++i)
-        ldmatrix_x4(fa[i], tile_a + tile_offset(warp_row + 16 * i + lane % 16, 2 * s + lane / 16));
+        ldmatrix_x4(fa[i], tile_a + tile_offset(walked_row(warp_row + 16 * i + lane % 16, in_order), 2 * s + lane / 16));
       // B, rows warp_col + 16 j .. + 15: matrices (rows 0-7, chunk 2s), (rows 0-7, 2s + 1),
       // (rows 8-15, 2s), (rows 8-15, 2s + 1).
       for (int j = 0; j < 2; ++j)
-        ldmatrix_x4(fb[j], tile_b + tile_offset(warp_col + 16 * j + 8 * (lane / 16) + lane % 8, 2 * s + (lane / 8) % 2));
+        ldmatrix_x4(fb[j], tile_b + tile_offset(walked_row(warp_col + 16 * j + 8 * (lane / 16) + lane % 8, in_order),
+                                                 2 * s + (lane / 8) % 2));
       for (int i = 0; i < 2; ++i)
         for (int j = 0; j < 4; ++j) mma_16x8x16(acc[i][j], fa[i], fb[j / 2][2 * (j % 2)], fb[j / 2][2 * (j % 2) + 1]);
     }
@@ -176,10 +193,12 @@
   for (int i = 0; i < 2; ++i)
     for (int j = 0; j < 4; ++j)
       for (int r = 0; r < 4; ++r) {
-        const int row = row0 + warp_row + 16 * i + lane / 4 + 8 * (r / 2);
-        const int col = col0 + warp_col + 8 * j + 2 * (lane % 4) + r % 2;
+        const int row = row0 + walked_row(warp_row + 16 * i + lane / 4 + 8 * (r / 2), in_order);
+        const int col = col0 + walked_row(warp_col + 8 * j + 2 * (lane % 4) + r % 2, in_order);
         c[static_cast<long>(row) * n + col] = acc[i][j][r];
       }
+  __syncthreads();
+  if (t == 0) atomicAdd(&g_blocks_done, 1ull);
 }
 
 // c = a * b^T on `stream` through the tensor maps of a (m x k) and b (n x k); m, n, k multiples of 64.
@@ -193,25 +212,25 @@
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
