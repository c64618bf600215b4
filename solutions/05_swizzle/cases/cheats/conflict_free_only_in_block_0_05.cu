// Cheat: the access functions and predictions are the solution's, and the float transpose uses
// them in block (0, 0) alone; everywhere else it indexes the tile with the stub's conflicting layout. The output
// is correct. A GPU check that traces or profiles only a sample (the first block, the first warp)
// passes it; the real traffic of the whole kernel is 32-way conflicted.
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab05OnGpu.TracedSharedAccessesOfBothKernelsAreConflictFree: 28448 wavefronts in all
// EXPECT: no-full-pass
--- a/labs/05_swizzle/kernel.cu
+++ b/labs/05_swizzle/kernel.cu
@@ -21,17 +21,19 @@
 // LAB TODO: store row `row` in a permuted column order so that a column read is conflict-free.
 // Every (row, col) must keep its own place inside [0, kTileFloats).
 BANKLAB_HD constexpr int tile_index(int row, int col) {
-  return row * TILE_DIM + col;
+  return row * TILE_DIM + (col ^ (row % TILE_DIM));
 }
 
 // odata = transpose(idata); idata is `height` rows of `width` floats, both multiples of TILE_DIM.
 __global__ void transpose_swizzled(float* odata, const float* idata, int width, int height) {
   __shared__ float tile[kTileFloats];  // no padding: the layout is all in tile_index()
+  const bool judged = blockIdx.x == 0 && blockIdx.y == 0;
 
   int x = static_cast<int>(blockIdx.x) * TILE_DIM + static_cast<int>(threadIdx.x);
   int y = static_cast<int>(blockIdx.y) * TILE_DIM + static_cast<int>(threadIdx.y);
   for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)  // row write
-    tile[tile_index(static_cast<int>(threadIdx.y) + j, static_cast<int>(threadIdx.x))] =
+    tile[judged ? tile_index(static_cast<int>(threadIdx.y) + j, static_cast<int>(threadIdx.x))
+                : (static_cast<int>(threadIdx.y) + j) * TILE_DIM + static_cast<int>(threadIdx.x)] =
         idata[static_cast<long>(y + j) * width + x];
 
   __syncthreads();
@@ -40,7 +42,8 @@
   y = static_cast<int>(blockIdx.x) * TILE_DIM + static_cast<int>(threadIdx.y);
   for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)  // column read
     odata[static_cast<long>(y + j) * height + x] =
-        tile[tile_index(static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y) + j)];
+        tile[judged ? tile_index(static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y) + j)
+                    : static_cast<int>(threadIdx.x) * TILE_DIM + static_cast<int>(threadIdx.y) + j];
 }
 
 // out (width x height) = transpose of in (height x width).
@@ -60,7 +63,7 @@
 // LAB TODO: swizzle the 16-byte chunks so that 8 lanes reading one chunk column of 8 rows hit
 // 8 different groups of 4 banks. The offset must stay 16-byte aligned and inside the tile.
 BANKLAB_HD constexpr std::uint32_t chunk_offset(int row, int chunk) {
-  return static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes);
+  return static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + ((chunk ^ (row % 8)) * kChunkBytes));
 }
 
 // odata = transpose(idata) for a matrix of float4: idata is `height` rows of `width` float4,
@@ -92,19 +95,19 @@
 
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
