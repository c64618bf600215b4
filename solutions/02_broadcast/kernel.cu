// Lab 02 (solution): broadcast. Lanes that read the SAME word share it: one bank delivers one word to any
// number of lanes in one wavefront (and a store of many lanes to one word is one write). Only
// DIFFERENT words in the same bank cost extra wavefronts.
//
// The kernel evaluates a polynomial per channel. A warp serves kChannels channels, each of
// kLanesPerChannel consecutive lanes: lanes c * kLanesPerChannel onwards take samples of channel c.
// Each channel has its own kTerms coefficients, kept in a shared table. At each step of Horner's
// rule, the lanes of a channel read the same coefficient (a broadcast), so the warp reads
// kChannels different words.
// The solution: same interface as labs/02_broadcast/kernel.cu.
#include <cuda_runtime.h>

#include "banklab/hardware.hpp"

namespace lab02 {

constexpr int kChannels = 4;                                       // channels per warp
constexpr int kLanesPerChannel = banklab::kWarpSize / kChannels;  // 8 lanes share a channel
constexpr int kTerms = 32;                                         // coefficients per channel
constexpr int kTableFloats = kChannels * kTerms;                   // the shared table
constexpr int kBlockThreads = kTableFloats;  // one thread stages one coefficient

// Channel of a lane: the first kLanesPerChannel lanes take channel 0, the next ones channel 1, ...
BANKLAB_HD constexpr int channel_of(int lane) { return lane / kLanesPerChannel; }

// The access function: where coefficient `term` of channel `channel` lives in the shared table.
// The kernel and the grader both use it.
// Solution: store the table term by term (table[term][channel]). One step reads term t of the
// kChannels channels: kChannels consecutive words from kChannels * t on, in as many different
// banks, each broadcast to the kLanesPerChannel lanes of its channel: 1 wavefront. Channel by
// channel (channel * kTerms + term) put them kTerms words apart, few banks for many words. The
// staging store becomes word i: conflict-free as well.
BANKLAB_HD constexpr int coef_index(int channel, int term) { return term * kChannels + channel; }

// y[s] = sum over t of coefs[c][t] * x[s]^t, where c = channel_of(s % 32). coefs is
// kChannels x kTerms floats in global memory, channel by channel. n is a multiple of kBlockThreads.
__global__ void eval_channels(const float* x, const float* coefs, float* y) {
  // volatile: every access below stays one 4-byte shared access, exactly as written (else the
  // compiler may merge 4 neighbouring coefficients into one 16-byte access: lab 03).
  __shared__ volatile float table[kTableFloats];

  // Stage the table: thread i copies term i / kChannels of channel i % kChannels.
  const int i = static_cast<int>(threadIdx.x);
  table[coef_index(i % kChannels, i / kChannels)] = coefs[(i % kChannels) * kTerms + i / kChannels];
  __syncthreads();

  // Horner's rule, highest term first: one shared load per step; the lanes of a channel all
  // read the same word.
  const long s = static_cast<long>(blockIdx.x) * kBlockThreads + i;
  const int c = channel_of(i % banklab::kWarpSize);
  const float xs = x[s];
  float acc = 0.0f;
  for (int t = kTerms - 1; t >= 0; --t) acc = fmaf(acc, xs, table[coef_index(c, t)]);
  y[s] = acc;
}

// Host launcher: n samples, n a multiple of kBlockThreads.
inline void eval_channels_launch(const float* x, const float* coefs, float* y, int n,
                                 cudaStream_t stream = 0) {
  eval_channels<<<n / kBlockThreads, kBlockThreads, 0, stream>>>(x, coefs, y);
}

// Your predictions: wavefronts of one warp-wide 4-byte shared-memory instruction.
namespace predict {
// all 32 lanes LOAD the same word.
constexpr int kAllLanesLoadOneWord = 1;  // a broadcast
// all 32 lanes STORE to the same word.
constexpr int kAllLanesStoreOneWord = 1;  // one write, not a conflict
// lane i loads word i / 4 (groups of 4 lanes share a word).
constexpr int kGroupsOf4LoadConsecutiveWords = 1;  // 8 words, 8 banks
// lanes 0-15 load word 0, lanes 16-31 load word 32.
constexpr int kTwoWordsInOneBank = 2;  // bank 0 must deliver 2 words
// lane i loads word (i / 4) * 32 (groups of 4 lanes share a word, 32 words apart).
constexpr int kGroupsOf4LoadWords32Apart = 8;  // 8 words, all in bank 0
// lane i STORES to word i * 32.
constexpr int kStoresToWordsStride32 = 32;  // 32 words in bank 0
// one step of the stub's Horner loop: lanes of channel c load word c * kTerms + t.
constexpr int kStubTableLoad = 4;  // words t, 32+t, 64+t, 96+t: bank t
}  // namespace predict

}  // namespace lab02
