// Cheat: coef_index is the solution's term-major layout (every CPU check passes) and the
// predictions are right, but the kernel stores and reads the table channel by channel, never
// calling coef_index: every Horner step is a 4-way conflict. The results are right. Only the GPU
// tier judging the kernel that runs can fail it.
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab02OnGpu.TracedSharedAccessesAreConflictFree: 270336 wavefronts in all
// EXPECT: no-full-pass
--- a/labs/02_broadcast/kernel.cu
+++ b/labs/02_broadcast/kernel.cu
@@ -27,7 +27,7 @@
 // LAB TODO: the table is stored channel by channel, each channel's kTerms coefficients together.
 // Find where the kChannels words read at one step land, and store the table so that they land
 // in different banks.
-BANKLAB_HD constexpr int coef_index(int channel, int term) { return channel * kTerms + term; }
+BANKLAB_HD constexpr int coef_index(int channel, int term) { return term * kChannels + channel; }
 
 // y[s] = sum over t of coefs[c][t] * x[s]^t, where c = channel_of(s % 32). coefs is
 // kChannels x kTerms floats in global memory, channel by channel. n is a multiple of kBlockThreads.
@@ -38,7 +38,7 @@
 
   // Stage the table: thread i copies term i / kChannels of channel i % kChannels.
   const int i = static_cast<int>(threadIdx.x);
-  table[coef_index(i % kChannels, i / kChannels)] = coefs[(i % kChannels) * kTerms + i / kChannels];
+  table[(i % kChannels) * kTerms + i / kChannels] = coefs[(i % kChannels) * kTerms + i / kChannels];
   __syncthreads();
 
   // Horner's rule, highest term first: one shared load per step; the lanes of a channel all
@@ -47,7 +47,7 @@
   const int c = channel_of(i % banklab::kWarpSize);
   const float xs = x[s];
   float acc = 0.0f;
-  for (int t = kTerms - 1; t >= 0; --t) acc = fmaf(acc, xs, table[coef_index(c, t)]);
+  for (int t = kTerms - 1; t >= 0; --t) acc = fmaf(acc, xs, table[c * kTerms + t]);
   y[s] = acc;
 }
 
@@ -59,20 +59,20 @@
 
 // Your predictions: wavefronts of one warp-wide 4-byte shared-memory instruction.
 namespace predict {
-// LAB TODO: all 32 lanes LOAD the same word.
-constexpr int kAllLanesLoadOneWord = -1;
-// LAB TODO: all 32 lanes STORE to the same word.
-constexpr int kAllLanesStoreOneWord = -1;
-// LAB TODO: lane i loads word i / 4 (groups of 4 lanes share a word).
-constexpr int kGroupsOf4LoadConsecutiveWords = -1;
-// LAB TODO: lanes 0-15 load word 0, lanes 16-31 load word 32.
-constexpr int kTwoWordsInOneBank = -1;
-// LAB TODO: lane i loads word (i / 4) * 32 (groups of 4 lanes share a word, 32 words apart).
-constexpr int kGroupsOf4LoadWords32Apart = -1;
-// LAB TODO: lane i STORES to word i * 32.
-constexpr int kStoresToWordsStride32 = -1;
-// LAB TODO: one step of the stub's Horner loop: lanes of channel c load word c * kTerms + t.
-constexpr int kStubTableLoad = -1;
+// all 32 lanes LOAD the same word.
+constexpr int kAllLanesLoadOneWord = 1;  // a broadcast
+// all 32 lanes STORE to the same word.
+constexpr int kAllLanesStoreOneWord = 1;  // one write, not a conflict
+// lane i loads word i / 4 (groups of 4 lanes share a word).
+constexpr int kGroupsOf4LoadConsecutiveWords = 1;  // 8 words, 8 banks
+// lanes 0-15 load word 0, lanes 16-31 load word 32.
+constexpr int kTwoWordsInOneBank = 2;  // bank 0 must deliver 2 words
+// lane i loads word (i / 4) * 32 (groups of 4 lanes share a word, 32 words apart).
+constexpr int kGroupsOf4LoadWords32Apart = 8;  // 8 words, all in bank 0
+// lane i STORES to word i * 32.
+constexpr int kStoresToWordsStride32 = 32;  // 32 words in bank 0
+// one step of the stub's Horner loop: lanes of channel c load word c * kTerms + t.
+constexpr int kStubTableLoad = 4;  // words t, 32+t, 64+t, 96+t: bank t
 }  // namespace predict
 
 }  // namespace lab02
