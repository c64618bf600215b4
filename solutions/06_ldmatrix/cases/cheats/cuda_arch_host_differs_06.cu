// Cheat: tile_offset() answers a swizzled layout on the host (what the probe and a CPU replay see) and
// keeps the stub's 128-byte rows on the device (what really runs), via #ifdef __CUDA_ARCH__.
// Predictions are right and the product is right (both sides of the device code use the same
// layout). Only a GPU tier that judges the kernel that runs (its traced ldmatrix traffic, its time)
// can fail it.
// PAYLOAD: cuda_arch_host_differs_06: the host puts chunk 0 of row 1 at byte 144
// MODE: patch
// TIER: gpu
// EXPECT: no-full-pass
// GPU_EVIDENCE: Lab06OnGpu.TracedSharedAccessesAreConflictFree: 78336 wavefronts in all
// EMULATED: ci
// STUB_WALK: yes
--- a/labs/06_ldmatrix/kernel.cu
+++ b/labs/06_ldmatrix/kernel.cu
@@ -30,7 +30,11 @@
 // chunk column. Make those 8 rows keep that chunk in 8 different groups of 4 banks. Every offset
 // must stay 16-byte aligned (ldmatrix reads whole 16-byte rows) and every chunk keep its own place.
 BANKLAB_HD constexpr std::uint32_t tile_offset(int row, int chunk) {
+#ifdef __CUDA_ARCH__
   return static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes);
+#else
+  return static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + ((chunk ^ (row % 8)) * kChunkBytes));
+#endif
 }
 
 // ldmatrix.x4: lane l gives the shared-memory address of row l % 8 of matrix l / 8; r[j] of
@@ -121,21 +125,29 @@
 namespace predict {
 // LAB TODO: wavefronts of one ldmatrix.x4 from the stub's tile (rows of 128 bytes, no swizzle),
 // lane i giving the address of row i % 16, chunk i / 16.
-constexpr int kRowMajorX4Wavefronts = -1;
+constexpr int kRowMajorX4Wavefronts = 32;
 // LAB TODO: wavefronts of ldmatrix.x1 from the same tile (lanes 0-7: rows 0-7, chunk 0).
-constexpr int kRowMajorX1Wavefronts = -1;
+constexpr int kRowMajorX1Wavefronts = 8;
 // LAB TODO: wavefronts of the x4 load of the first question from a tile swizzled with
 // banklab::Swizzle<3, 4, 3> on the byte offset.
-constexpr int kSwizzledX4Wavefronts = -1;
+constexpr int kSwizzledX4Wavefronts = 4;
 // LAB TODO: wavefronts of ldmatrix.x2 from the swizzled tile (lanes 0-15: rows i % 8, chunk i / 8).
-constexpr int kSwizzledX2Wavefronts = -1;
+constexpr int kSwizzledX2Wavefronts = 2;
 // LAB TODO: with Swizzle<3, 4, 3>, the byte offset at which chunk 3 of row 5 is stored.
-constexpr int kSwizzledOffsetOfRow5Chunk3 = -1;
+constexpr int kSwizzledOffsetOfRow5Chunk3 = 736;
 // LAB TODO: wavefronts of the x4 load of the first question when rows are padded to 144 bytes
 // (row r, chunk c at r * 144 + c * 16).
-constexpr int kPadded144X4Wavefronts = -1;
+constexpr int kPadded144X4Wavefronts = 4;
 // LAB TODO: the same with rows padded to 160 bytes (r * 160 + c * 16).
-constexpr int kPadded160X4Wavefronts = -1;
+constexpr int kPadded160X4Wavefronts = 8;
 }  // namespace predict
 
 }  // namespace lab06
+
+#ifndef __CUDA_ARCH__
+#include <cstdio>
+// The payload's own trace: what the host side (the probe) sees of tile_offset (the stub's rows: 128).
+namespace banklab_cheat_arch06 {
+const int kSaid = std::printf("cuda_arch_host_differs_06: the host puts chunk 0 of row 1 at byte %u\n", lab06::tile_offset(1, 0));
+}  // namespace banklab_cheat_arch06
+#endif
