// The reference bank model. See model.hpp for the rules and where they come from.
#include "banklab/model.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace banklab {

bool serves_every_lane(const WarpAccess& a) noexcept {
  return (a.op == Op::Atomic && a.width != 8) || a.op == Op::AtomicCas || a.op == Op::AtomicExchange;
}

bool is_cas_loop(const WarpAccess& a) noexcept {
  return (a.op == Op::Atomic && a.width == 8) || a.op == Op::AtomicCasLoop;
}

namespace {

int words_per_lane(int width) { return width <= kBankWidthBytes ? 1 : width / kBankWidthBytes; }

// Over all active lanes of the warp: is lane i^k inactive or at the same address?
bool partners_agree(const WarpAccess& a, int k) {
  for (int i = 0; i < kWarpSize; ++i) {
    if (!((a.mask >> i) & 1u)) continue;
    const int j = i ^ k;
    if (((a.mask >> j) & 1u) && a.offset[j] != a.offset[i]) return false;
  }
  return true;
}

// The groups of a width: 64-bit accesses in half-warps (or, merged, the warp), 128-bit in
// quarter-warps (or, merged, half-warps), narrower ones as the warp.
Grouping grouping_for(int width, bool merged) {
  if (width == 8) return merged ? Grouping::Warp : Grouping::HalfWarps;
  if (width == 16) return merged ? Grouping::HalfWarps : Grouping::QuarterWarps;
  return Grouping::Warp;
}

// Only loads (LDS) merge groups; every other kind is served in the groups of its width.
bool may_merge(const WarpAccess& a) { return a.op == Op::Load && (a.width == 8 || a.width == 16); }

// ATOMS.CAS serves every wavefront twice (the compare, then the swap: measured 2x).
int wavefront_factor(const WarpAccess& a) { return a.op == Op::AtomicCas ? 2 : 1; }

// The unmerged grouping of an access: the groups of its width for every kind (LDGSTS: 128 / width
// lanes per group; the CAS loop: half-warps).
Grouping base_grouping(const WarpAccess& a) { return grouping_for(a.width, false); }

int group_size(Grouping g) {
  switch (g) {
    case Grouping::Warp: return 32;
    case Grouping::HalfWarps: return 16;
    case Grouping::QuarterWarps: return 8;
  }
  return 32;
}

// Distinct words per bank for one group; at most 32 distinct words per group can occur
// (see count()), so 32 slots per bank suffice.
struct BankTable {
  std::uint8_t count[kNumBanks];
  std::uint32_t words[kNumBanks][kWarpSize];

  void clear() { std::memset(count, 0, sizeof count); }
  // Returns true when the word was new.
  bool insert(std::uint32_t word) {
    const int b = static_cast<int>(word % kNumBanks);
    std::uint32_t* w = words[b];
    const int n = count[b];
    for (int k = 0; k < n; ++k)
      if (w[k] == word) return false;
    if (n < kWarpSize) {  // cannot overflow for valid groups; guard anyway
      w[n] = word;
      count[b] = static_cast<std::uint8_t>(n + 1);
    }
    return true;
  }
};

struct GroupCost {
  int wavefronts = 0;
  int distinct = 0;
  int worst_bank = -1;
};

// LDGSTS (the shared side of cp.async), lanes first .. first+size-1: in lane order, each active
// lane goes into the wavefront after the last one used by an earlier lane of the group that
// writes one of its (shared) banks or reads one of its source banks, the 4-byte words
// (global address / 4) % 32 of the bytes it copies: each wavefront moves at most one word per
// source bank and one per destination bank. Fitted on 242 H200 patterns read from global
// address 16 * lane (the default when `source` is null) and checked on 42 with other sources.
// Writes each active lane's wavefront to wave[lane]; returns the group's wavefronts.
int async_copy_waves(const WarpAccess& a, int first, int size, int wpl, int* wave, const std::uint64_t* source) {
  int last_src[kNumBanks];
  int last_bank[kNumBanks];
  for (int& x : last_src) x = -1;
  for (int& x : last_bank) x = -1;
  int n = 0;
  bool readers = false, zeros = false;
  for (int i = first; i < first + size; ++i) {
    if (!((a.mask >> i) & 1u)) continue;
    const std::uint32_t w0 = word_of(a.offset[i]);
    const bool reads = !source || source[i] != kNoSource;  // a zero-filling lane reads nothing
    (reads ? readers : zeros) = true;
    const std::uint64_t s0 = (source ? source[i] : 16u * static_cast<std::uint64_t>(i)) / kBankWidthBytes;
    int t = -1;
    for (int k = 0; k < wpl; ++k) {
      t = std::max(t, last_bank[(w0 + static_cast<std::uint32_t>(k)) % kNumBanks]);
      if (reads) t = std::max(t, last_src[(s0 + static_cast<std::uint64_t>(k)) % kNumBanks]);
    }
    ++t;
    for (int k = 0; k < wpl; ++k) {
      last_bank[(w0 + static_cast<std::uint32_t>(k)) % kNumBanks] = t;
      if (reads) last_src[(s0 + static_cast<std::uint64_t>(k)) % kNumBanks] = t;
    }
    wave[i] = t;
    n = std::max(n, t + 1);
  }
  // A group that mixes zero-filling and reading lanes takes one wavefront more (measured on the
  // H200 for 4- and 16-byte copies: docs/perf/trace_cublas_hopper.md, F9).
  return n + (readers && zeros ? 1 : 0);
}

// The compare-and-swap loop of a shared atomic on sm_90 (LDS, then ATOMS.CAST.SPIN until every
// lane succeeded), fitted on 119 + 24 H200 patterns of 64 bits and 18 of 32 bits (wavefronts and
// passes). In each pass every group (half-warps for 64 bits, the warp for 32) serves, in lane
// order, the lanes none of whose banks an earlier served lane of that group used; of the served
// lanes at one word only the lowest succeeds; the lanes not served or not succeeding run the
// next pass. A pass takes 2 wavefronts per group with an active lane (cas_pass_wavefronts()).
struct CasPass {
  std::uint32_t active = 0;     // lanes that ran this pass
  std::uint32_t served = 0;     // lanes whose compare-and-swap the banks served
  std::uint32_t succeeded = 0;  // lanes that finished
};

// Runs the loop; returns the passes (at most 32: the lowest served lane always succeeds), and
// writes them to `passes` when it is not null.
int cas_loop(const WarpAccess& a, CasPass* passes) {
  std::uint32_t left = a.mask;
  int n = 0;
  const bool wide = a.width == 8;
  const int size = wide ? 16 : kWarpSize;
  while (left != 0 && n < kWarpSize) {
    CasPass p;
    p.active = left;
    for (int first = 0; first < kWarpSize; first += size) {
      std::uint32_t used = 0;  // banks taken in this group
      for (int i = first; i < first + size; ++i) {
        if (!((left >> i) & 1u)) continue;
        const std::uint32_t w0 = word_of(a.offset[i]);
        const std::uint32_t banks = (1u << (w0 % kNumBanks)) | (wide ? 1u << ((w0 + 1u) % kNumBanks) : 0u);
        if (used & banks) continue;
        used |= banks;
        p.served |= 1u << i;
      }
    }
    for (int i = 0; i < kWarpSize; ++i) {
      if (!((p.served >> i) & 1u)) continue;
      bool first = true;
      for (int j = 0; j < i && first; ++j)
        if (((p.succeeded >> j) & 1u) && a.offset[j] == a.offset[i]) first = false;
      if (first) p.succeeded |= 1u << i;
    }
    left &= ~p.succeeded;
    if (passes) passes[n] = p;
    ++n;
  }
  return n;
}

GroupCost cost_of_group(const WarpAccess& a, int first, int size, int wpl, BankTable& t,
                        const std::uint64_t* source = nullptr) {
  t.clear();
  GroupCost c;
  int lanes_in_bank[kNumBanks] = {};
  for (int i = first; i < first + size; ++i) {
    if (!((a.mask >> i) & 1u)) continue;
    const std::uint32_t w0 = word_of(a.offset[i]);
    for (int k = 0; k < wpl; ++k) {
      c.distinct += t.insert(w0 + static_cast<std::uint32_t>(k));
      ++lanes_in_bank[(w0 + static_cast<std::uint32_t>(k)) % kNumBanks];
    }
  }
  const bool every_lane = serves_every_lane(a) || a.op == Op::AsyncCopy;
  for (int b = 0; b < kNumBanks; ++b) {
    const int n = every_lane ? lanes_in_bank[b] : t.count[b];
    if (n > c.wavefronts) {
      c.wavefronts = n;
      c.worst_bank = b;
    }
  }
  if (a.op == Op::AsyncCopy) {  // the worst bank stays the one most lanes write
    int wave[kWarpSize];
    c.wavefronts = async_copy_waves(a, first, size, wpl, wave, source);
  }
  return c;
}

// --- The one-pass summary (summarize, count_wavefronts, minimum_wavefronts) -----------------
// For a valid access, a lane of width w >= 4 covers w/4 consecutive words starting at a word
// index that is a multiple of w/4, i.e. the aligned "unit" key = offset / max(w, 4). Its words
// live in the banks of one "slot" (key % (32 / (w/4))), and two lanes' words in a bank are the
// same exactly when their keys are the same. So the distinct words a bank of the slot must
// deliver to a group = the distinct keys of the group in that slot, for every bank of the slot,
// and the group's cost is the largest such count: the same numbers cost_of_group() computes,
// without a per-bank word table.
//
// Every lane gets one 16-bit id: the row (offset / 128: 128 bytes are one word in every bank)
// above a 5-bit "bin" = (group << slot bits) | slot. Two active lanes count once when their ids
// are the same (same key, same group); the bin is the low 5 bits, so a group's slots are a run
// of 32 >> group bits bins. Valid offsets keep every id below 58112; inactive lanes get the
// spare id kIdleId. "Seen in this call" is a table of stamps (stamp == this call's generation):
// nothing to clear after a call, and lanes with nearby ids never wait for each other's store.
// The table is wiped once every 65535 calls, when the generation wraps. Counts per bin go to
// four interleaved histograms (lane % 4), so that lanes hitting one bank do not form one long
// chain of read-modify-writes.
constexpr std::uint32_t kSeenIds = 1u << 16;
constexpr std::uint32_t kIdleId = kSeenIds - 1u;
static_assert((kMaxSharedBytesPerBlock / kWavefrontBytes) * kNumBanks <= kIdleId,
              "every valid id must fit below the idle id");
thread_local std::uint16_t tl_stamp[kSeenIds];
thread_local std::uint16_t tl_generation = 0;

inline std::uint16_t next_generation() noexcept {
  std::uint16_t gen = ++tl_generation;
  if (gen == 0) {
    std::memset(tl_stamp, 0, sizeof tl_stamp);
    gen = tl_generation = 1;
  }
  tl_stamp[kIdleId] = gen;  // inactive lanes are never new
  return gen;
}

// Same answer as grouping_of(): for 64/128-bit loads, does every active lane i have lane i^1
// (or, for all lanes, lane i^2) inactive or at the same address? Branch-free: one bit per lane
// for "differs from lane i^k", then a mask test.
template <bool kSimd>
inline bool merges(const WarpAccess& a) noexcept {
  std::uint32_t diff1 = 0, diff2 = 0;
#if defined(__SSE2__)
  if constexpr (kSimd) {
    // 16 lanes at a time: compare with lanes i^1 and i^2, narrow the all-ones / all-zeros
    // results to bytes (signed saturation keeps them) and take one bit per lane.
    std::uint32_t eq1 = 0, eq2 = 0;
    for (int half = 0; half < 2; ++half) {
      __m128i e1[4], e2[4];
      for (int q = 0; q < 4; ++q) {
        const __m128i v =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.offset.data() + 16 * half + 4 * q));
        e1[q] = _mm_cmpeq_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));  // lanes i^1
        e2[q] = _mm_cmpeq_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));  // lanes i^2
      }
      const __m128i b1 = _mm_packs_epi16(_mm_packs_epi32(e1[0], e1[1]), _mm_packs_epi32(e1[2], e1[3]));
      const __m128i b2 = _mm_packs_epi16(_mm_packs_epi32(e2[0], e2[1]), _mm_packs_epi32(e2[2], e2[3]));
      eq1 |= static_cast<std::uint32_t>(_mm_movemask_epi8(b1)) << (16 * half);
      eq2 |= static_cast<std::uint32_t>(_mm_movemask_epi8(b2)) << (16 * half);
    }
    diff1 = ~eq1;
    diff2 = ~eq2;
  } else
#endif
  {
    for (int i = 0; i < kWarpSize; ++i) {
      diff1 |= static_cast<std::uint32_t>(a.offset[i] != a.offset[i ^ 1]) << i;
      diff2 |= static_cast<std::uint32_t>(a.offset[i] != a.offset[i ^ 2]) << i;
    }
  }
  const std::uint32_t m = a.mask;
  const std::uint32_t partner1 = ((m & 0x55555555u) << 1) | ((m >> 1) & 0x55555555u);
  const std::uint32_t partner2 = ((m & 0x33333333u) << 2) | ((m >> 2) & 0x33333333u);
  return (diff1 & m & partner1) == 0 || (diff2 & m & partner2) == 0;
}

// Each lane's id (see above), inactive lanes kIdleId.
template <int U, int G, bool kSimd>
inline void lane_ids(const WarpAccess& a, std::uint32_t* id) noexcept {
  constexpr int kSlotShift = 5 - (U - 2);  // log2 of the slots (32, 16 or 8)
  constexpr std::uint32_t kSlotMask = (1u << kSlotShift) - 1u;
  constexpr int kRowShift = 7;  // log2(kWavefrontBytes): one row of 32 banks
  static_assert((1 << kRowShift) == kWavefrontBytes, "a row is one word in every bank");
#if defined(__SSE2__)
  if constexpr (kSimd) {
    const __m128i slot_mask = _mm_set1_epi32(static_cast<int>(kSlotMask));
    const __m128i lane_bit = _mm_set_epi32(8, 4, 2, 1);
    const __m128i idle = _mm_set1_epi32(static_cast<int>(kIdleId));
    const bool full = a.mask == 0xffffffffu;
    for (int q = 0; q < kWarpSize / 4; ++q) {
      const __m128i off = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.offset.data() + 4 * q));
      const int group = (4 * q) >> G;
      __m128i v;
      if constexpr (U == 2) {
        v = _mm_srli_epi32(off, 2);  // the word index: row and bank
      } else {
        v = _mm_or_si128(_mm_slli_epi32(_mm_srli_epi32(off, kRowShift), 5),
                         _mm_and_si128(_mm_srli_epi32(off, U), slot_mask));
      }
      if (group) v = _mm_or_si128(v, _mm_set1_epi32(group << kSlotShift));
      if (!full) {
        const __m128i bits = _mm_and_si128(_mm_set1_epi32(static_cast<int>((a.mask >> (4 * q)) & 0xfu)), lane_bit);
        const __m128i on = _mm_cmpeq_epi32(bits, lane_bit);
        v = _mm_or_si128(_mm_and_si128(on, v), _mm_andnot_si128(on, idle));
      }
      _mm_store_si128(reinterpret_cast<__m128i*>(id + 4 * q), v);
    }
    return;
  }
#endif
  for (int i = 0; i < kWarpSize; ++i) {
    const std::uint32_t off = a.offset[i];
    const std::uint32_t v = ((off >> kRowShift) << 5) | ((off >> U) & kSlotMask) |
                            (static_cast<std::uint32_t>(i >> G) << kSlotShift);
    id[i] = ((a.mask >> i) & 1u) ? v : kIdleId;
  }
}

// Largest count and sum of counts of each run of 8 bins: quarter q covers bins 8q .. 8q+7.
template <bool kSimd>
inline void quarter_stats(const std::uint8_t (&hist)[4 * kNumBanks], int (&max)[4], int (&sum)[4]) noexcept {
#if defined(__SSE2__)
  if constexpr (kSimd) {
    const auto* h = reinterpret_cast<const __m128i*>(hist);
    const __m128i lo = _mm_add_epi8(_mm_add_epi8(_mm_load_si128(h + 0), _mm_load_si128(h + 2)),
                                    _mm_add_epi8(_mm_load_si128(h + 4), _mm_load_si128(h + 6)));
    const __m128i hi = _mm_add_epi8(_mm_add_epi8(_mm_load_si128(h + 1), _mm_load_si128(h + 3)),
                                    _mm_add_epi8(_mm_load_si128(h + 5), _mm_load_si128(h + 7)));
    auto fold = [](__m128i v) {  // the max of each 8-byte half, in bytes 0 and 8
      v = _mm_max_epu8(v, _mm_srli_epi64(v, 32));
      v = _mm_max_epu8(v, _mm_srli_epi64(v, 16));
      return _mm_max_epu8(v, _mm_srli_epi64(v, 8));
    };
    const __m128i mlo = fold(lo), mhi = fold(hi);
    const __m128i zero = _mm_setzero_si128();
    const __m128i slo = _mm_sad_epu8(lo, zero), shi = _mm_sad_epu8(hi, zero);
    max[0] = _mm_extract_epi16(mlo, 0) & 0xff;
    max[1] = _mm_extract_epi16(mlo, 4) & 0xff;
    max[2] = _mm_extract_epi16(mhi, 0) & 0xff;
    max[3] = _mm_extract_epi16(mhi, 4) & 0xff;
    sum[0] = _mm_extract_epi16(slo, 0);
    sum[1] = _mm_extract_epi16(slo, 4);
    sum[2] = _mm_extract_epi16(shi, 0);
    sum[3] = _mm_extract_epi16(shi, 4);
    return;
  }
#endif
  for (int q = 0; q < 4; ++q) {
    max[q] = sum[q] = 0;
    for (int b = 8 * q; b < 8 * q + 8; ++b) {
      const int c = hist[b] + hist[kNumBanks + b] + hist[2 * kNumBanks + b] + hist[3 * kNumBanks + b];
      max[q] = c > max[q] ? c : max[q];
      sum[q] += c;
    }
  }
}

// The fast path: true when no two active lanes fall in the same bin (one bank slot of one
// group). Then every bin serves at most one word, and each group with an active lane takes one
// wavefront, which is also its minimum (one key per slot: at most 32 words per group). Most
// conflict-free traffic is like this (row walks, odd strides, swizzles, padded tiles); lanes that
// share a bin, with the same word (broadcast) or not (a conflict), go to the table.
// One bit per bin, 1 << bin, comes from the float exponent (2^bin as a float, truncated back to
// an integer; 2^31 truncates to 0x80000000, which is 1 << 31 again). Inactive lanes (kIdleId)
// are left out.
template <bool kSimd>
inline bool bins_all_different(const std::uint32_t* id) noexcept {
#if defined(__SSE2__)
  if constexpr (kSimd) {
    const __m128i idle = _mm_set1_epi32(static_cast<int>(kIdleId));
    const __m128i bin_mask = _mm_set1_epi32(kNumBanks - 1);
    const __m128i bias = _mm_set1_epi32(127);  // the float exponent bias
    const __m128i zero = _mm_setzero_si128();
    __m128i seen = zero, twice = zero;
    for (int q = 0; q < kWarpSize / 4; ++q) {
      const __m128i x = _mm_load_si128(reinterpret_cast<const __m128i*>(id + 4 * q));
      const __m128i exponent = _mm_slli_epi32(_mm_add_epi32(_mm_and_si128(x, bin_mask), bias), 23);
      const __m128i bit = _mm_andnot_si128(_mm_cmpeq_epi32(x, idle), _mm_cvttps_epi32(_mm_castsi128_ps(exponent)));
      twice = _mm_or_si128(twice, _mm_and_si128(seen, bit));
      seen = _mm_or_si128(seen, bit);
      if (q == 3) {  // the first 16 lanes already collide: most conflicting traffic stops here
        const __m128i s2 = _mm_shuffle_epi32(seen, _MM_SHUFFLE(1, 0, 3, 2));
        __m128i tw = _mm_or_si128(twice, _mm_and_si128(seen, s2));
        const __m128i s4 = _mm_or_si128(seen, s2);
        tw = _mm_or_si128(tw, _mm_and_si128(s4, _mm_shuffle_epi32(s4, _MM_SHUFFLE(2, 3, 0, 1))));
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(tw, zero)) != 0xffff) return false;
      }
    }
    __m128i t = _mm_shuffle_epi32(seen, _MM_SHUFFLE(1, 0, 3, 2));
    twice = _mm_or_si128(twice, _mm_and_si128(seen, t));
    seen = _mm_or_si128(seen, t);
    twice = _mm_or_si128(twice, _mm_and_si128(seen, _mm_shuffle_epi32(seen, _MM_SHUFFLE(2, 3, 0, 1))));
    return _mm_movemask_epi8(_mm_cmpeq_epi32(twice, zero)) == 0xffff;
  }
#endif
  std::uint32_t seen = 0;
  for (int i = 0; i < kWarpSize; ++i) {
    if (id[i] == kIdleId) continue;
    const std::uint32_t bit = 1u << (id[i] % kNumBanks);
    if (seen & bit) return false;
    seen |= bit;
  }
  return true;
}

// Groups of 1 << G lanes with at least one active lane.
template <int G>
inline int active_groups(std::uint32_t mask) noexcept {
  if constexpr (G == 5) {
    return mask != 0;
  } else if constexpr (G == 4) {
    return ((mask & 0xffffu) != 0) + ((mask >> 16) != 0);
  } else {
    static_assert(G == 3, "groups of 32, 16 or 8 lanes");
    return ((mask & 0xffu) != 0) + (((mask >> 8) & 0xffu) != 0) + (((mask >> 16) & 0xffu) != 0) + ((mask >> 24) != 0);
  }
}

// The summary for one shape, with every shift a constant: U = log2 of the bytes per key
// (2, 3, 4), G = log2 of the lanes per group (5, 4, 3).
template <int U, int G, bool kSimd>
Summary summary_for(const WarpAccess& a, Grouping grouping, bool merged) noexcept {
  constexpr int kWplShift = U - 2;           // log2 of the words per lane
  constexpr int kGroupBits = 5 - G;          // log2 of the groups (1, 2 or 4)
  constexpr int kSlotShift = 5 - kWplShift;  // log2 of the slots (32, 16 or 8): a group's bins
  constexpr int kQuartersPerGroup = (1 << kSlotShift) / 8;
  static_assert(kGroupBits >= 0 && kGroupBits <= 2, "1, 2 or 4 groups");
  static_assert((kQuartersPerGroup << kGroupBits) <= 4, "the groups' bins fit in 32");

  alignas(16) std::uint32_t id[kWarpSize];
  lane_ids<U, G, kSimd>(a, id);
  if (bins_all_different<kSimd>(id)) {
    Summary fast;
    fast.grouping = grouping;
    fast.merged = merged;
    fast.wavefronts = fast.minimum = active_groups<G>(a.mask);
    return fast;
  }
  const std::uint16_t gen = next_generation();
  std::uint16_t* stamp = tl_stamp;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __asm__("" : "+r"(stamp));  // keep the table's address in a register, not re-derived per lane
#endif
  alignas(16) std::uint8_t hist[4 * kNumBanks];  // four histograms of the 32 bins, lane % 4
#if defined(__SSE2__)
  if constexpr (kSimd) {
    // An opaque zero: the compiler would otherwise turn these stores into `rep stos`, whose
    // start-up and failed store forwarding cost more than the whole count.
    __m128i zero = _mm_setzero_si128();
    __asm__("" : "+x"(zero));
    for (int k = 0; k < 8; ++k) _mm_store_si128(reinterpret_cast<__m128i*>(hist) + k, zero);
  } else
#endif
  {
    std::memset(hist, 0, sizeof hist);
  }
  auto visit = [&](std::uint8_t* h, std::uint32_t x) {
    const std::uint16_t seen = stamp[x];
    stamp[x] = gen;
    // stamps never exceed gen: "seen < gen" is "not seen in this call" (one add-with-carry)
    h[x & (kNumBanks - 1)] += static_cast<std::uint8_t>(seen < gen);
  };
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
  for (int i = 0; i < kWarpSize; i += 4) {
    visit(hist, id[i]);
    visit(hist + kNumBanks, id[i + 1]);
    visit(hist + 2 * kNumBanks, id[i + 2]);
    visit(hist + 3 * kNumBanks, id[i + 3]);
  }

  int qmax[4], qsum[4];
  quarter_stats<kSimd>(hist, qmax, qsum);
  Summary out;
  out.grouping = grouping;
  out.merged = merged;
  for (int g = 0; g < (1 << kGroupBits); ++g) {
    int mx = 0, distinct = 0;
    for (int q = g * kQuartersPerGroup; q < (g + 1) * kQuartersPerGroup; ++q) {
      mx = qmax[q] > mx ? qmax[q] : mx;
      distinct += qsum[q];
    }
    out.wavefronts += mx;
    out.minimum += ((distinct << kWplShift) + kNumBanks - 1) / kNumBanks;
  }
  return out;
}

Summary summarize_general(const WarpAccess& a) noexcept;

template <bool kSimd>
Summary summarize_valid(const WarpAccess& a) noexcept {
  if (serves_every_lane(a) || is_cas_loop(a) || a.op == Op::AsyncCopy)
    return summarize_general(a);  // ATOMS, LDGSTS: lane by lane
  switch (a.width) {
    case 8:
      if (a.op == Op::Load && merges<kSimd>(a)) return summary_for<3, 5, kSimd>(a, grouping_for(8, true), true);
      return summary_for<3, 4, kSimd>(a, grouping_for(8, false), false);
    case 16:
      if (a.op == Op::Load && merges<kSimd>(a)) return summary_for<4, 4, kSimd>(a, grouping_for(16, true), true);
      return summary_for<4, 3, kSimd>(a, grouping_for(16, false), false);
    default:
      return summary_for<2, 5, kSimd>(a, Grouping::Warp, false);
  }
}

// The grouping as analyze() derives it, written independently of merges() (lane by lane, from
// the rule's words) so that the tests that compare summarize() with analyze() check the rule
// twice.
Grouping explained_grouping(const WarpAccess& a, bool* merged) {
  const bool m = may_merge(a) && (partners_agree(a, 1) || partners_agree(a, 2));
  if (merged) *merged = m;
  return m ? grouping_for(a.width, m) : base_grouping(a);
}

// The general path, defined for any input (also invalid ones): group by group with a word
// table per bank.
Summary summarize_general(const WarpAccess& a) noexcept {
  Summary s;
  s.grouping = explained_grouping(a, &s.merged);
  if (is_cas_loop(a)) {
    CasPass passes[kWarpSize];
    s.instructions = cas_loop(a, passes);
    for (int p = 0; p < s.instructions; ++p) s.wavefronts += cas_pass_wavefronts(passes[p].active, a.width);
    s.minimum = cas_pass_wavefronts(a.mask, a.width);
    return s;
  }
  BankTable t;
  const int size = group_size(s.grouping);
  const int wpl = words_per_lane(a.width);
  for (int first = 0; first < kWarpSize; first += size) {
    const GroupCost c = cost_of_group(a, first, size, wpl, t);
    s.wavefronts += c.wavefronts;
    s.minimum += (c.distinct + kNumBanks - 1) / kNumBanks;
  }
  s.wavefronts *= wavefront_factor(a);
  s.minimum *= wavefront_factor(a);
  return s;
}

// analyze() of a CAS loop: its groups (half-warps for 64 bits, the warp for 32); for every pass
// and every group with an active lane, two wavefronts serving the group's lanes the banks served
// in that pass.
void analyze_cas_loop(const WarpAccess& a, Analysis& r) {
  CasPass passes[kWarpSize];
  r.instructions = cas_loop(a, passes);
  BankTable t;
  const int wpl = words_per_lane(a.width);
  const int size = a.width == 8 ? 16 : kWarpSize;
  const int ngroups = kWarpSize / size;
  auto lanes_of = [&](int g) { return size == kWarpSize ? 0xffffffffu : 0xffffu << (16 * g); };
  for (int gi = 0; gi < ngroups; ++gi) {
    Group g;
    g.first_lane = size * gi;
    g.lane_count = size;
    g.active = a.mask & lanes_of(gi);
    const GroupCost c = cost_of_group(a, size * gi, size, wpl, t);
    g.distinct_words = c.distinct;
    g.worst_bank = g.active ? c.worst_bank : -1;
    g.minimum = cas_pass_wavefronts(g.active, a.width);
    r.groups.push_back(g);
  }
  for (int p = 0; p < r.instructions; ++p) {
    for (int half = 0; half < ngroups; ++half) {
      const std::uint32_t active = passes[p].active & lanes_of(half);
      if (!active) continue;
      Wavefront w;
      w.group = half;
      for (int i = size * half; i < size * half + size; ++i) {
        if (!((passes[p].served >> i) & 1u)) continue;
        const std::uint32_t w0 = word_of(a.offset[i]);
        for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(wpl); ++k)
          w.served.push_back(LaneWord{i, static_cast<int>((w0 + k) % kNumBanks), w0 + k, false});
      }
      r.groups[static_cast<std::size_t>(half)].wavefronts += cas_pass_wavefronts(active, a.width);
      r.wavefront_detail.push_back(w);
      r.wavefront_detail.push_back(std::move(w));
    }
  }
  for (const Group& g : r.groups) {
    r.wavefronts += g.wavefronts;
    r.minimum += g.minimum;
  }
}

}  // namespace

// The op table (common/data/ops.toml, generated into banklab/model_table.hpp) holds every Op in
// declaration order, each once: row i is the enumerator of value i, and the last row the last one.
static_assert([] {
  for (std::size_t i = 0; i < std::size(kOpTable); ++i)
    if (static_cast<std::size_t>(kOpTable[i].op) != i || kAllOps[i] != kOpTable[i].op) return false;
  return std::size(kAllOps) == std::size(kOpTable);
}(), "common/data/ops.toml: its [[op]] rows must be banklab::Op's enumerators in order");

const char* to_string(Op op) {
  for (const OpInfo& row : kOpTable)
    if (row.op == op) return row.name;
  return "?";
}

const char* describe(Op op) {
  switch (op) {
    case Op::Load: return "load (ld)";
    case Op::Store: return "store (st)";
    case Op::LoadMatrix: return "ldmatrix (ldsm)";
    case Op::StoreMatrix: return "stmatrix (stsm)";
    case Op::AsyncCopy: return "cp.async, shared side (cpasync)";
    case Op::Atomic: return "shared atomic (atom)";
    case Op::AtomicIncrement: return "shared atomic increment, result unused (atominc)";
    case Op::AtomicCas: return "shared compare-and-swap (atomcas)";
    case Op::AtomicExchange: return "shared 64-bit exchange (atomexch)";
    case Op::AtomicCasLoop: return "shared atomic as a compare-and-swap loop (atomloop)";
  }
  return "?";
}

const char* to_string(Grouping g) {
  switch (g) {
    case Grouping::Warp: return "warp";
    case Grouping::HalfWarps: return "half-warps";
    case Grouping::QuarterWarps: return "quarter-warps";
  }
  return "?";
}

std::string legal_widths_text() { return legal_widths_text(Op::Load); }

std::string legal_widths_text(Op op) {
  std::string s;
  for (int w : kLegalWidths) {
    if (!is_legal_width(op, w)) continue;
    if (!s.empty()) s += ", ";
    s += std::to_string(w);
  }
  return s;
}

bool is_valid(const WarpAccess& a) noexcept {
  if (!is_legal_width(a.op, a.width)) return false;
  const std::uint32_t align = static_cast<std::uint32_t>(a.width) - 1u;
  const std::uint32_t limit = kMaxSharedBytesPerBlock - static_cast<std::uint32_t>(a.width);
  std::uint32_t any = 0;
#if defined(__SSE2__)
  __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.offset.data()));
  for (int q = 1; q < kWarpSize / 4; ++q)
    v = _mm_or_si128(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.offset.data() + 4 * q)));
  v = _mm_or_si128(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = _mm_or_si128(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
  any = static_cast<std::uint32_t>(_mm_cvtsi128_si32(v));
#else
  for (std::uint32_t off : a.offset) any |= off;
#endif
  if (any & align) return false;          // some offset is misaligned
  if (any <= limit) return true;          // every offset is at most `any`
  for (std::uint32_t off : a.offset)
    if (off > limit) return false;
  return true;
}

std::optional<std::string> validate(const WarpAccess& a) {
  if (!is_legal_width(a.op, a.width))
    return std::string(a.op == Op::Load || a.op == Op::Store ? "width" : std::string(to_string(a.op)) + " width") +
           " must be " + legal_widths_text(a.op) + " bytes, not " + std::to_string(a.width);
  for (int i = 0; i < kWarpSize; ++i) {
    const std::uint32_t off = a.offset[i];
    if (off % static_cast<std::uint32_t>(a.width) != 0)
      return "lane " + std::to_string(i) + ": offset " + std::to_string(off) +
             " is not a multiple of the width " + std::to_string(a.width);
    if (off > kMaxSharedBytesPerBlock - static_cast<std::uint32_t>(a.width))
      return "lane " + std::to_string(i) + ": offset " + std::to_string(off) +
             " is beyond the largest shared memory of a block (" +
             std::to_string(kMaxSharedBytesPerBlock) + " bytes)";
  }
  return std::nullopt;
}

Summary summarize(const WarpAccess& a) noexcept {
  if (!is_valid(a)) return summarize_general(a);
  return summarize_valid<true>(a);
}

namespace detail {
Summary summarize_portable(const WarpAccess& a) noexcept {
  if (!is_valid(a)) return summarize_general(a);
  return summarize_valid<false>(a);
}
}  // namespace detail

Grouping grouping_of(const WarpAccess& a, bool* merged) {
  // The rule summarize() applies (one home: merges()).
  const bool m = may_merge(a) && merges<true>(a);
  if (merged) *merged = m;
  return m ? grouping_for(a.width, m) : base_grouping(a);
}

int count_wavefronts(const WarpAccess& a) noexcept { return summarize(a).wavefronts; }

Summary summarize_async_copy(const WarpAccess& a, const std::array<std::uint64_t, kWarpSize>& source) noexcept {
  if (a.op != Op::AsyncCopy) return summarize(a);
  Summary s;
  s.grouping = base_grouping(a);
  BankTable t;
  const int size = group_size(s.grouping);
  const int wpl = words_per_lane(a.width);
  for (int first = 0; first < kWarpSize; first += size) {
    const GroupCost c = cost_of_group(a, first, size, wpl, t, source.data());
    s.wavefronts += c.wavefronts;
    s.minimum += (c.distinct + kNumBanks - 1) / kNumBanks;
  }
  return s;
}

int cas_pass_wavefronts(std::uint32_t mask, int width) noexcept {
  return width == 8 ? 2 * (((mask & 0xffffu) != 0) + ((mask >> 16) != 0)) : mask != 0 ? 2 : 0;
}

Counters expected_counters(const WarpAccess& a) noexcept {
  const Summary s = summarize(a);
  Counters c;
  c.wavefronts = s.wavefronts;
  c.bank_conflicts = is_cas_loop(a) ? 0 : s.conflicts() / wavefront_factor(a);
  c.instructions = s.instructions;
  return c;
}

int minimum_wavefronts(const WarpAccess& a) noexcept { return summarize(a).minimum; }

Analysis analyze(const WarpAccess& a) {
  Analysis r;
  r.grouping = explained_grouping(a, &r.merged);
  const int size = group_size(r.grouping);
  const int wpl = words_per_lane(a.width);

  const char* partner = partners_agree(a, 1) ? "i^1" : "i^2";
  if (a.op == Op::LoadMatrix || a.op == Op::StoreMatrix) {
    r.why = std::string(a.op == Op::LoadMatrix ? "ldmatrix" : "stmatrix") +
            ": served as four quarter-warps, one 8x8 matrix each (lanes 8m..8m+7 give the 8 "
            "16-byte row addresses of matrix m), like a 128-bit store.";
  } else if (a.op == Op::AsyncCopy) {
    r.why = std::string("cp.async, shared side (LDGSTS): served as ") +
            (a.width == 4 ? "one group of 32 lanes"
             : a.width == 8 ? "two half-warps, one after the other"
                            : "four quarter-warps, one after the other") +
            " (128 bytes of lanes each), lane by lane in lane order: each lane goes into the wavefront after the "
            "last one used by an earlier lane of its group on one of its banks, or reading the same source bank "
            "of global memory (taken as 16 bytes per lane, lane i at 16 * i: then lane i - 8); lanes writing the "
            "same word each take a wavefront.";
  } else if (a.op == Op::AtomicIncrement) {
    r.why = "atomic increment with its result unused (ATOMS.POPC.INC.32): served exactly like a 32-bit store, the "
            "whole warp as one group; lanes at the same word share it.";
  } else if (a.op == Op::AtomicCas) {
    r.why = std::string(a.width == 8 ? "64-bit shared compare-and-swap (ATOMS.CAS.64): two half-warps"
                                     : "32-bit shared compare-and-swap (ATOMS.CAS): the whole warp as one group") +
            ", every lane apart (lanes at the same word are serialised), and every wavefront twice: a CAS costs "
            "2x the wavefronts of an exchange at the same addresses.";
  } else if ((a.op == Op::Atomic || a.op == Op::AtomicExchange) && a.width <= 4) {
    r.why = "32-bit shared atomic (ATOMS: add, exch, min, max, and, or, xor, inc, dec): the whole warp as one "
            "group, every lane apart: lanes at the same word are serialised, they do not share it.";
  } else if (a.op == Op::AtomicExchange) {
    r.why = "64-bit shared exchange (ATOMS.EXCH.64): two half-warps, every lane apart: lanes at the same word are "
            "serialised, they do not share it.";
  } else if (a.op == Op::AtomicCasLoop && a.width == 4) {
    r.why = "32-bit shared atomic sm_90 has no instruction for (a float add): a compare-and-swap loop (LDS, "
            "ATOMS.CAST.SPIN). Each pass takes 2 wavefronts; in a pass the warp serves, in lane order, only lanes "
            "on banks no earlier served lane used, and of served lanes at one word only the lowest succeeds; the "
            "rest retry in the next pass.";
  } else if (a.op == Op::Atomic || a.op == Op::AtomicCasLoop) {
    r.why = "64-bit shared atomic: sm_90 runs a compare-and-swap loop (ATOMS.CAST.SPIN.64). Each pass takes 2 "
            "wavefronts per half-warp with an active lane; in a pass each half-warp serves, in lane order, only "
            "lanes on banks no earlier served lane used, and of served lanes at one word only the lowest succeeds; "
            "the rest retry in the next pass.";
  } else if (a.width <= 4) {
    r.why = "32-bit (or narrower) access: the whole warp is served as one group.";
  } else if (a.op == Op::Store) {
    r.why = a.width == 8 ? "64-bit store: served as two half-warps (stores never merge)."
                         : "128-bit store: served as four quarter-warps (stores never merge).";
  } else if (r.merged) {
    r.why = std::string(a.width == 8 ? "64-bit load merged into one warp-wide group"
                                     : "128-bit load merged into two half-warps") +
            ": for every active lane i, lane " + partner +
            " is inactive or reads the same address.";
  } else {
    r.why = a.width == 8
                ? "64-bit load served as two half-warps: some lane i has an active lane i^1 and an "
                  "active lane i^2 at other addresses, so the warp cannot merge."
                : "128-bit load served as four quarter-warps: some lane i has an active lane i^1 "
                  "and an active lane i^2 at other addresses, so the quarters cannot merge.";
  }

  if (is_cas_loop(a)) {
    analyze_cas_loop(a, r);
    return r;
  }
  BankTable t;
  for (int first = 0, gi = 0; first < kWarpSize; first += size, ++gi) {
    Group g;
    g.first_lane = first;
    g.lane_count = size;
    for (int i = first; i < first + size; ++i)
      if ((a.mask >> i) & 1u) g.active |= 1u << i;
    const GroupCost c = cost_of_group(a, first, size, wpl, t);
    g.wavefronts = c.wavefronts * wavefront_factor(a);
    g.distinct_words = c.distinct;
    g.minimum = (c.distinct + kNumBanks - 1) / kNumBanks * wavefront_factor(a);
    g.worst_bank = c.worst_bank;
    r.wavefronts += g.wavefronts;
    r.minimum += g.minimum;

    // Wavefront k of this group serves, in every bank, the k-th distinct word that bank was asked
    // for (in order of first request). Each lane's word goes to the wavefront holding that word.
    // ATOMS.ADD serves every lane apart: the k-th request of a bank, whatever its word, goes to
    // wavefront k. LDGSTS: each lane goes to the wavefront async_copy_waves() gives it.
    std::vector<Wavefront> waves(static_cast<std::size_t>(c.wavefronts));
    for (auto& w : waves) w.group = gi;
    int served_in_bank[kNumBanks] = {};
    int copy_wave[kWarpSize] = {};
    if (a.op == Op::AsyncCopy) async_copy_waves(a, first, size, wpl, copy_wave, nullptr);
    const bool every_lane = serves_every_lane(a);
    for (int i = first; i < first + size; ++i) {
      if (!((a.mask >> i) & 1u)) continue;
      for (int k = 0; k < wpl; ++k) {
        const std::uint32_t word = word_of(a.offset[i]) + static_cast<std::uint32_t>(k);
        const int b = static_cast<int>(word % kNumBanks);
        const std::uint32_t* list = t.words[b];
        const int pos = a.op == Op::AsyncCopy ? copy_wave[i]
                        : every_lane          ? served_in_bank[b]++
                                              : static_cast<int>(std::find(list, list + t.count[b], word) - list);
        waves[static_cast<std::size_t>(pos)].served.push_back(LaneWord{i, b, word, false});
      }
    }
    for (auto& w : waves) {
      for (auto& x : w.served)
        x.shared = std::count_if(w.served.begin(), w.served.end(),
                                 [&](const LaneWord& y) { return y.word == x.word; }) > 1;
      for (int k = 1; k < wavefront_factor(a); ++k) r.wavefront_detail.push_back(w);  // ATOMS.CAS: twice
      r.wavefront_detail.push_back(std::move(w));
    }
    r.groups.push_back(g);
  }
  return r;
}

}  // namespace banklab
