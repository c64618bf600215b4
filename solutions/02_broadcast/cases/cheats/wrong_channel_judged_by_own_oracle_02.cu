// Cheat: channel_of sends the lanes of channel c to channel c + 1 (a permutation: every access is
// still a conflict-free broadcast), so every output is computed with another channel's
// coefficients. A GPU check whose expected output is computed with the student's own channel_of
// accepts it; an oracle of the grader's own (channel = lane / 8) fails it.
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab02OnGpu.ChannelPolynomialsAreCorrect: 65536 of 65536 elements are wrong
// EXPECT: no-full-pass
--- a/labs/02_broadcast/kernel.cu
+++ b/labs/02_broadcast/kernel.cu
@@ -20,14 +20,14 @@
 constexpr int kBlockThreads = kTableFloats;  // one thread stages one coefficient
 
 // Channel of a lane: lanes 0-7 take channel 0, 8-15 channel 1, ...
-BANKLAB_HD constexpr int channel_of(int lane) { return lane / kLanesPerChannel; }
+BANKLAB_HD constexpr int channel_of(int lane) { return (lane / kLanesPerChannel + 1) % kChannels; }
 
 // The access function: where coefficient `term` of channel `channel` lives in the shared table.
 // The kernel and the grader both use it.
 // LAB TODO: the table is stored channel by channel, each channel's kTerms coefficients together.
 // Find where the kChannels words read at one step land, and store the table so that they land
 // in different banks.
-BANKLAB_HD constexpr int coef_index(int channel, int term) { return channel * kTerms + term; }
+BANKLAB_HD constexpr int coef_index(int channel, int term) { return term * kChannels + channel; }
 
 // y[s] = sum over t of coefs[c][t] * x[s]^t, where c = channel_of(s % 32). coefs is
 // kChannels x kTerms floats in global memory, channel by channel. n is a multiple of kBlockThreads.
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
