// Cheat: kSwizzleBytes, tile_offset() and the predictions are the solution's (every CPU check
// passes), but the kernel never loads from shared memory: when TMA has delivered both tiles, the
// bulk-copy engine (cp.async.bulk, shared to global: no load or store instruction of the threads)
// moves them into the block's own part of c, the threads multiply from there with global loads
// (each chunk where TMA put it) and overwrite that part with the product at the end. The product
// is right, and no load of the threads from shared memory is conflicted because none happens. The
// trace must fail it: it counts no ldmatrix where the work needs 1536, and the bulk copies are
// shared-memory traffic the bank model does not cover (a trace that skipped them as it skips
// TMA's tensor copies would see a kernel with no shared-memory instruction at all).
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab07OnGpu.TracedSharedAccessesAreConflictFree: bulk copy (cp.async.bulk global<->shared, not .tensor) x3072
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
@@ -123,6 +124,23 @@
 #endif
 }
 
+// Copies `bytes` (a multiple of 16) from shared to global memory with the bulk-copy (TMA) engine,
+// not through the threads' load and store instructions, and waits until they are written.
+__device__ inline void copy_out(void* dst, const void* src, std::uint32_t bytes) {
+#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
+  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n"
+               :
+               : "l"(reinterpret_cast<std::uint64_t>(dst)), "r"(shared_address(src)), "r"(bytes)
+               : "memory");
+  asm volatile("cp.async.bulk.commit_group;\n" : : : "memory");
+  asm volatile("cp.async.bulk.wait_group 0;\n" : : : "memory");
+  asm volatile("fence.proxy.async;\n" : : : "memory");
+  __threadfence();
+#else
+  __trap();
+#endif
+}
+
 // ---- the kernel ------------------------------------------------------------------------------
 
 // c (m x n floats, row-major) = a (m x k halves, row-major) times b^T (b: n x k halves,
@@ -136,10 +154,9 @@
   __shared__ __align__(8) std::uint64_t arrived;                    // the tiles' mbarrier
   unsigned char* const tile_a = tiles;
   unsigned char* const tile_b = tiles + kTileBytes;
-  const int t = static_cast<int>(threadIdx.x), lane = t % 32, warp = t / 32;
+  const int t = static_cast<int>(threadIdx.x);
   const int row0 = static_cast<int>(blockIdx.y) * kTileRows, col0 = static_cast<int>(blockIdx.x) * kTileRows;
-  const int warp_row = (warp / 2) * 32, warp_col = (warp % 2) * 32;
-  float acc[2][4][4] = {};  // [16 rows i][8 columns j][fragment]
+  float dot[32] = {};  // c[row0 + t % 64][col0 + 32 (t / 64) + j]
   (void)m;
 
   if (t == 0) mbarrier_init(&arrived);
@@ -156,30 +173,31 @@
     }
     mbarrier_wait(&arrived, phase);  // every thread: both tiles are in shared memory
 
-    for (int s = 0; s < kTileK / 16; ++s) {  // four steps of 16 along k: chunks 2 s and 2 s + 1
-      std::uint32_t fa[2][4], fb[2][4];
-      // A, rows warp_row + 16 i .. + 15: matrices (rows 0-7, chunk 2s), (rows 8-15, 2s),
-      // (rows 0-7, 2s + 1), (rows 8-15, 2s + 1).
-      for (int i = 0; i < 2; ++i)
-        ldmatrix_x4(fa[i], tile_a + tile_offset(warp_row + 16 * i + lane % 16, 2 * s + lane / 16));
-      // B, rows warp_col + 16 j .. + 15: matrices (rows 0-7, chunk 2s), (rows 0-7, 2s + 1),
-      // (rows 8-15, 2s), (rows 8-15, 2s + 1).
-      for (int j = 0; j < 2; ++j)
-        ldmatrix_x4(fb[j], tile_b + tile_offset(warp_col + 16 * j + 8 * (lane / 16) + lane % 8, 2 * s + (lane / 8) % 2));
-      for (int i = 0; i < 2; ++i)
-        for (int j = 0; j < 4; ++j) mma_16x8x16(acc[i][j], fa[i], fb[j / 2][2 * (j % 2)], fb[j / 2][2 * (j % 2) + 1]);
+    // Neither tile is read by a load instruction: the bulk-copy engine moves row q of A's tile to
+    // bytes 0-127 of row row0 + q of this block's part of c, row q of B's tile to bytes 128-255
+    // (c is the block's own output: 64 rows of 256 bytes, written with the product at the end).
+    copy_out(reinterpret_cast<unsigned char*>(c + static_cast<long>(row0 + t % 64) * n + col0) + (t < 64 ? 0 : 128),
+             (t < 64 ? tile_a : tile_b) + (t % 64) * 128, 128);
+    __syncthreads();
+    // Thread t: row t % 64 of the block's c, columns 32 (t / 64) .. + 31, from those copies (read
+    // past L1, which may hold the last step's), each row's chunks where TMA put them.
+    const unsigned char* const copies = reinterpret_cast<const unsigned char*>(c + static_cast<long>(row0) * n + col0);
+    const long pitch = 4L * n;
+    for (int chunk = 0; chunk < kChunksPerRow; ++chunk) {
+      const int ra = t % 64;
+      const uint4 va = __ldcg(reinterpret_cast<const uint4*>(copies + ra * pitch + tile_offset(ra, chunk) - ra * 128));
+      const __half* ha = reinterpret_cast<const __half*>(&va);
+      for (int j = 0; j < 32; ++j) {
+        const int rb = 32 * (t / 64) + j;
+        const uint4 vb = __ldcg(reinterpret_cast<const uint4*>(copies + rb * pitch + 128 + tile_offset(rb, chunk) - rb * 128));
+        const __half* hb = reinterpret_cast<const __half*>(&vb);
+        for (int e = 0; e < 8; ++e) dot[j] += __half2float(ha[e]) * __half2float(hb[e]);
+      }
     }
-    __syncthreads();  // every warp has read both tiles before TMA overwrites them
+    __syncthreads();  // every thread has read the copies before the next step's overwrite them
   }
 
-  // Fragment r of lane l holds row l / 4 (+ 8 for r >= 2), column 2 (l % 4) + r % 2.
-  for (int i = 0; i < 2; ++i)
-    for (int j = 0; j < 4; ++j)
-      for (int r = 0; r < 4; ++r) {
-        const int row = row0 + warp_row + 16 * i + lane / 4 + 8 * (r / 2);
-        const int col = col0 + warp_col + 8 * j + 2 * (lane % 4) + r % 2;
-        c[static_cast<long>(row) * n + col] = acc[i][j][r];
-      }
+  for (int j = 0; j < 32; ++j) c[static_cast<long>(row0 + t % 64) * n + col0 + 32 * (t / 64) + j] = dot[j];
 }
 
 // c = a * b^T on `stream` through the tensor maps of a (m x k) and b (n x k); m, n, k multiples of 64.
@@ -193,25 +211,25 @@
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
