// Cheat: cell_of is the solution's (lane = column: every CPU check passes) and the predictions
// are right, but the kernel builds its cells itself with the stub's walk (lane = row): every
// shared access is a 32-way conflict. The output is correct. Only the GPU tier judging the
// kernel that runs can fail it.
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab00OnGpu.TracedSharedAccessesAreConflictFree: 524288 wavefronts in all
// EXPECT: no-full-pass
--- a/labs/00_bank_mapping/kernel.cu
+++ b/labs/00_bank_mapping/kernel.cu
@@ -24,7 +24,7 @@
 // lane handles 32 elements, and the warp handles every element of the tile once.
 // LAB TODO: this walk makes each lane own one row of the tile. Look at what one step of the
 // warp touches, then choose which index should be the lane.
-BANKLAB_HD constexpr Cell cell_of(int lane, int step) { return Cell{lane, step}; }
+BANKLAB_HD constexpr Cell cell_of(int lane, int step) { return Cell{step, lane}; }
 
 // The access function: where tile[row][col] lives in the flat shared array. It is the layout
 // C++ gives `float tile[32][32]`: row-major. The kernel and the grader both use it.
@@ -46,14 +46,14 @@
 
   // Stage the tile: one shared store per step.
   for (int step = 0; step < TILE_DIM; ++step) {
-    const Cell e = cell_of(lane, step);
+    const Cell e{lane, step};  // the stub's walk: lane = row
     tile[tile_index(e.row, e.col)] = in[base + e.row * TILE_DIM + e.col];
   }
   __syncwarp();
 
   // Read the partner (column col ^ 1: re <-> im) of each element: one shared load per step.
   for (int step = 0; step < TILE_DIM; ++step) {
-    const Cell e = cell_of(lane, step);
+    const Cell e{lane, step};
     const float partner = tile[tile_index(e.row, e.col ^ 1)];
     out[base + e.row * TILE_DIM + e.col] = (e.col & 1) ? partner : -partner;
   }
@@ -88,25 +88,25 @@
 // Your predictions. Work them out on paper: bank = (byte offset / 4) % 32, word = byte offset / 4.
 // Every array starts at byte 0 of shared memory (so at bank 0).
 namespace predict {
-// LAB TODO: the bank of element [5][7] of float a[32][32].
-constexpr int kBankOfFloat_5_7 = -1;
-// LAB TODO: the word (byte offset / 4) where element 13 of double d[100] starts.
-constexpr int kWordOfDouble13 = -1;
-// LAB TODO: the two banks that element 13 of double d[100] covers (first, second).
-constexpr int kFirstBankOfDouble13 = -1;
-constexpr int kSecondBankOfDouble13 = -1;
-// LAB TODO: the bank of element 130 of char c[256].
-constexpr int kBankOfChar130 = -1;
-// LAB TODO: the bank of element 70 of short h[128].
-constexpr int kBankOfShort70 = -1;
-// LAB TODO: how many banks one float4 covers.
-constexpr int kBanksPerFloat4 = -1;
-// LAB TODO: wavefronts of a warp reading a ROW of float a[32][32] (lane i reads a[r][i]).
-constexpr int kRowReadWavefronts = -1;
-// LAB TODO: wavefronts of a warp reading a COLUMN of float a[32][32] (lane i reads a[i][c]).
-constexpr int kColumnReadWavefronts = -1;
-// LAB TODO: wavefronts of a warp reading char c[256] with lane i reading c[i].
-constexpr int kCharReadWavefronts = -1;
+// the bank of element [5][7] of float a[32][32].
+constexpr int kBankOfFloat_5_7 = 7;  // word 5*32+7 = 167, 167 % 32 = 7
+// the word (byte offset / 4) where element 13 of double d[100] starts.
+constexpr int kWordOfDouble13 = 26;  // byte 13*8 = 104, word 26
+// the two banks that element 13 of double d[100] covers (first, second).
+constexpr int kFirstBankOfDouble13 = 26;  // words 26 and 27
+constexpr int kSecondBankOfDouble13 = 27;
+// the bank of element 130 of char c[256].
+constexpr int kBankOfChar130 = 0;  // byte 130, word 32, bank 0
+// the bank of element 70 of short h[128].
+constexpr int kBankOfShort70 = 3;  // byte 140, word 35, bank 3
+// how many banks one float4 covers.
+constexpr int kBanksPerFloat4 = 4;  // 16 bytes = 4 words
+// wavefronts of a warp reading a ROW of float a[32][32] (lane i reads a[r][i]).
+constexpr int kRowReadWavefronts = 1;  // 32 words in 32 banks
+// wavefronts of a warp reading a COLUMN of float a[32][32] (lane i reads a[i][c]).
+constexpr int kColumnReadWavefronts = 32;  // words 32*i + c: all in bank c
+// wavefronts of a warp reading char c[256] with lane i reading c[i].
+constexpr int kCharReadWavefronts = 1;  // 4 lanes share each word: 8 words, 8 banks
 }  // namespace predict
 
 }  // namespace lab00
