// Cheat: kPad = 1 and tile_index pads (every CPU check passes) and the predictions are right, but
// the kernel indexes its tile as an unpadded 32 x 32 array: every column read is a 32-way
// conflict. The transpose is still correct. Only the GPU tier judging the real kernel can fail it.
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab04OnGpu.TracedSharedAccessesAreConflictFree: 25344 wavefronts in all
// EXPECT: no-full-pass
--- a/labs/04_padding/kernel.cu
+++ b/labs/04_padding/kernel.cu
@@ -13,7 +13,7 @@
 
 // LAB TODO: pad each row of the tile by kPad floats so that a column of the tile no longer
 // sits in one bank. Find the smallest pad that makes the column read conflict-free.
-constexpr int kPad = 0;
+constexpr int kPad = 1;
 
 // Floats in the tile: TILE_DIM rows of TILE_DIM + kPad (the pad floats are never used).
 constexpr int kTileFloats = TILE_DIM * (TILE_DIM + kPad);
@@ -33,7 +33,7 @@
   int y = static_cast<int>(blockIdx.y) * TILE_DIM + static_cast<int>(threadIdx.y);
   // Write the tile by rows: lane threadIdx.x takes column threadIdx.x.
   for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
-    tile[tile_index(static_cast<int>(threadIdx.y) + j, static_cast<int>(threadIdx.x))] =
+    tile[(static_cast<int>(threadIdx.y) + j) * TILE_DIM + static_cast<int>(threadIdx.x)] =
         idata[static_cast<long>(y + j) * width + x];
 
   __syncthreads();
@@ -43,7 +43,7 @@
   // Read the tile by columns: lane threadIdx.x takes row threadIdx.x.
   for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
     odata[static_cast<long>(y + j) * height + x] =
-        tile[tile_index(static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y) + j)];
+        tile[static_cast<int>(threadIdx.x) * TILE_DIM + static_cast<int>(threadIdx.y) + j];
 }
 
 // Host launcher: out (width x height) = transpose of in (height x width).
@@ -55,21 +55,26 @@
 
 // Your predictions. Work them out on paper (bank = (byte offset / 4) % 32), then check.
 namespace predict {
-// LAB TODO: wavefronts of one warp's column read in the UNPADDED tile[32][32] of floats
+// Wavefronts of one warp's column read in the UNPADDED tile[32][32] of floats
 // (lane i reads tile[i][c]).
-constexpr int kUnpaddedColumnReadWavefronts = -1;
-// LAB TODO: wavefronts of the same column read in tile[32][33].
-constexpr int kPaddedColumnReadWavefronts = -1;
-// LAB TODO: bytes of shared memory that float tile[32][33] takes.
-constexpr int kPaddedTileBytes = -1;
-// LAB TODO: a tile of doubles, double tile[32][32 + p]: the smallest pad p (in doubles) that
+constexpr int kUnpaddedColumnReadWavefronts = 32;  // all 32 lanes in bank c
+// Wavefronts of the same column read in tile[32][33].
+constexpr int kPaddedColumnReadWavefronts = 1;  // banks c, c+1, ..., one each
+// Bytes of shared memory that float tile[32][33] takes.
+constexpr int kPaddedTileBytes = 32 * 33 * 4;  // 4224: 128 bytes more than tile[32][32]
+// A tile of doubles, double tile[32][32 + p]: the smallest pad p (in doubles) that
 // makes the column read (lane i reads tile[i][c], an 8-byte load) conflict-free.
-constexpr int kDoublePad = -1;
-// LAB TODO: wavefronts of that column read of doubles with your pad p.
-constexpr int kPaddedDoubleColumnReadWavefronts = -1;
-// LAB TODO: a tile of float4, 32 rows of 8 float4 (128 bytes): lane i reads the float4 at row i,
+// A row of 32 doubles is 64 words, so every row starts in bank 0. The 8-byte load is served
+// as two half-warps of 16 lanes x 2 words; one double of pad moves each row 2 banks on, and
+// 16 lanes x 2 banks cover all 32.
+constexpr int kDoublePad = 1;
+// Wavefronts of that column read of doubles with your pad p.
+constexpr int kPaddedDoubleColumnReadWavefronts = 2;  // one per half-warp: the minimum
+// A tile of float4, 32 rows of 8 float4 (128 bytes): lane i reads the float4 at row i,
 // chunk c. The smallest row padding IN BYTES that makes this read conflict-free.
-constexpr int kFloat4RowPadBytes = -1;
+// Pad by one access width: 16 bytes moves each row 4 banks on, and a quarter-warp's 8 lanes x
+// 4 banks cover all 32. A 4- or 8-byte pad would misalign the float4 accesses.
+constexpr int kFloat4RowPadBytes = 16;
 }  // namespace predict
 
 }  // namespace lab04
