// Lab 02: broadcast. Lanes that read the SAME word share it: one bank delivers one word to any
// number of lanes in one wavefront (and a store of many lanes to one word is one write). Only
// DIFFERENT words in the same bank cost extra wavefronts.
//
// The kernel evaluates a polynomial per channel. A warp serves kChannels channels, each of
// kLanesPerChannel consecutive lanes: lanes c * kLanesPerChannel onwards take samples of channel c.
// Each channel has its own kTerms coefficients, kept in a shared table. At each step of Horner's
// rule, the lanes of a channel read the same coefficient (a broadcast), so the warp reads
// kChannels different words.
// This file is the only one you edit: look for LAB TODO.
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
// LAB TODO: the table is stored channel by channel, each channel's kTerms coefficients together.
// Find where the kChannels words read at one step land, and store the table so that they land
// in different banks.
BANKLAB_HD constexpr int coef_index(int channel, int term) { return channel * kTerms + term; }

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
// LAB TODO: all 32 lanes LOAD the same word.
constexpr int kAllLanesLoadOneWord = -1;
// LAB TODO: all 32 lanes STORE to the same word.
constexpr int kAllLanesStoreOneWord = -1;
// LAB TODO: lane i loads word i / 4 (groups of 4 lanes share a word).
constexpr int kGroupsOf4LoadConsecutiveWords = -1;
// LAB TODO: lanes 0-15 load word 0, lanes 16-31 load word 32.
constexpr int kTwoWordsInOneBank = -1;
// LAB TODO: lane i loads word (i / 4) * 32 (groups of 4 lanes share a word, 32 words apart).
constexpr int kGroupsOf4LoadWords32Apart = -1;
// LAB TODO: lane i STORES to word i * 32.
constexpr int kStoresToWordsStride32 = -1;
// LAB TODO: one step of the stub's Horner loop: lanes of channel c load word c * kTerms + t.
constexpr int kStubTableLoad = -1;
}  // namespace predict

}  // namespace lab02
