// The reference bank model. See model.hpp for the rules and where they come from.
#include "banklab/model.hpp"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace banklab {
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

GroupCost cost_of_group(const WarpAccess& a, int first, int size, int wpl, BankTable& t) {
  t.clear();
  GroupCost c;
  for (int i = first; i < first + size; ++i) {
    if (!((a.mask >> i) & 1u)) continue;
    const std::uint32_t w0 = word_of(a.offset[i]);
    for (int k = 0; k < wpl; ++k) c.distinct += t.insert(w0 + static_cast<std::uint32_t>(k));
  }
  for (int b = 0; b < kNumBanks; ++b) {
    if (t.count[b] > c.wavefronts) {
      c.wavefronts = t.count[b];
      c.worst_bank = b;
    }
  }
  return c;
}

// --- The fast count path (count_wavefronts, minimum_wavefronts) ---------------------------
// For a valid access, a lane of width w >= 4 covers w/4 consecutive words starting at a word
// index that is a multiple of w/4, i.e. the aligned "unit" key = offset / max(w, 4). Its words
// live in the banks of one "slot" (key % (32 / (w/4))), and two lanes' words in a bank are the
// same exactly when their keys are the same. So the distinct words a bank of the slot must
// deliver to a group = the distinct keys of the group in that slot, for every bank of the slot,
// and the group's cost is the largest such count: the same numbers cost_of_group() computes,
// without a per-bank word table. Distinct keys are found with a table of (key, group) ids that
// was marked in this call (stamp == this call's generation); valid offsets keep every id below
// 2^16. Stamps instead of bits: nothing to clear after a call, and lanes with nearby ids never
// wait for each other's store. The table is wiped once every 65535 calls, when the generation
// wraps.
constexpr std::uint32_t kSeenIds = 1u << 16;
thread_local std::uint16_t tl_stamp[kSeenIds];
thread_local std::uint16_t tl_generation = 0;

struct FastCounts {
  int wavefronts = 0;
  int minimum = 0;
};

// Same answer as grouping_of(): for 64/128-bit loads, does every active lane i have lane i^1
// (or, for all lanes, lane i^2) inactive or at the same address? Branch-free: one bit per lane
// for "differs from lane i^k", then a mask test.
inline bool merges(const WarpAccess& a) noexcept {
  std::uint32_t diff1 = 0, diff2 = 0;
#if defined(__SSE2__)
  for (int q = 0; q < kWarpSize / 4; ++q) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.offset.data() + 4 * q));
    const __m128i x1 = _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1));  // lanes i^1
    const __m128i x2 = _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2));  // lanes i^2
    const auto eq1 = static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, x1))));
    const auto eq2 = static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, x2))));
    diff1 |= (~eq1 & 0xfu) << (4 * q);
    diff2 |= (~eq2 & 0xfu) << (4 * q);
  }
#else
  for (int i = 0; i < kWarpSize; ++i) {
    diff1 |= static_cast<std::uint32_t>(a.offset[i] != a.offset[i ^ 1]) << i;
    diff2 |= static_cast<std::uint32_t>(a.offset[i] != a.offset[i ^ 2]) << i;
  }
#endif
  const std::uint32_t m = a.mask;
  const std::uint32_t partner1 = ((m & 0x55555555u) << 1) | ((m >> 1) & 0x55555555u);
  const std::uint32_t partner2 = ((m & 0x33333333u) << 2) | ((m >> 2) & 0x33333333u);
  return (diff1 & m & partner1) == 0 || (diff2 & m & partner2) == 0;
}

// The counts for one shape, with every shift a constant: U = log2 of the bytes per key
// (2, 3, 4), G = log2 of the lanes per group (5, 4, 3).
template <int U, int G>
FastCounts counts_for(const WarpAccess& a) noexcept {
  constexpr int kWplShift = U - 2;           // log2 of the words per lane
  constexpr int kSlotShift = 5 - kWplShift;  // log2 of the slots (32, 16 or 8)
  constexpr int kGroupBits = 5 - G;          // log2 of the groups (1, 2 or 4)
  constexpr std::uint32_t kSlotMask = (1u << kSlotShift) - 1u;

  std::uint16_t gen = ++tl_generation;
  if (gen == 0) {
    std::memset(tl_stamp, 0, sizeof tl_stamp);
    gen = tl_generation = 1;
  }
  std::uint16_t* stamp = tl_stamp;
  std::uint8_t total[kNumBanks] = {};  // groups x slots <= 32
  auto visit = [&](int i) {
    const std::uint32_t key = a.offset[i] >> U;
    const std::uint32_t g = static_cast<std::uint32_t>(i) >> G;
    const std::uint32_t id = (key << kGroupBits) | g;
    total[(g << kSlotShift) | (key & kSlotMask)] += static_cast<std::uint8_t>(stamp[id] != gen);
    stamp[id] = gen;
  };
  if (a.mask == 0xffffffffu) {
    for (int i = 0; i < kWarpSize; ++i) visit(i);
  } else {
    for (std::uint32_t m = a.mask; m; m &= m - 1) visit(__builtin_ctz(m));
  }

  FastCounts out;
  for (int g = 0; g < (1 << kGroupBits); ++g) {
    const std::uint8_t* c = total + (g << kSlotShift);
    int mx = 0, sum = 0;
    for (int s = 0; s < (1 << kSlotShift); ++s) {
      mx = c[s] > mx ? c[s] : mx;
      sum += c[s];
    }
    out.wavefronts += mx;
    out.minimum += ((sum << kWplShift) + kNumBanks - 1) / kNumBanks;
  }
  return out;
}

// False when the access is not valid input: then the callers use the general path, which
// defines the answer for any input.
bool fast_counts(const WarpAccess& a, FastCounts& out) noexcept {
  const int width = a.width;
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16) return false;
  const std::uint32_t align = static_cast<std::uint32_t>(width) - 1u;
  const std::uint32_t limit = kMaxSharedBytesPerBlock - static_cast<std::uint32_t>(width);
  std::uint32_t bad = 0;
  for (int i = 0; i < kWarpSize; ++i)
    bad |= (a.offset[i] & align) | static_cast<std::uint32_t>(a.offset[i] > limit);
  if (bad) return false;

  if (width <= 4) {
    out = counts_for<2, 5>(a);
  } else {
    const bool m = a.op == Op::Load && merges(a);
    if (width == 8) out = m ? counts_for<3, 5>(a) : counts_for<3, 4>(a);
    else out = m ? counts_for<4, 4>(a) : counts_for<4, 3>(a);
  }
  return true;
}

}  // namespace

const char* to_string(Op op) { return op == Op::Load ? "ld" : "st"; }

const char* to_string(Grouping g) {
  switch (g) {
    case Grouping::Warp: return "warp";
    case Grouping::HalfWarps: return "half-warps";
    case Grouping::QuarterWarps: return "quarter-warps";
  }
  return "?";
}

std::optional<std::string> validate(const WarpAccess& a) {
  if (a.width != 1 && a.width != 2 && a.width != 4 && a.width != 8 && a.width != 16)
    return "width must be 1, 2, 4, 8 or 16 bytes, not " + std::to_string(a.width);
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

Grouping grouping_of(const WarpAccess& a, bool* merged) {
  bool m = false;
  Grouping g = Grouping::Warp;
  if (a.width == 8) {
    m = a.op == Op::Load && (partners_agree(a, 1) || partners_agree(a, 2));
    g = m ? Grouping::Warp : Grouping::HalfWarps;
  } else if (a.width == 16) {
    m = a.op == Op::Load && (partners_agree(a, 1) || partners_agree(a, 2));
    g = m ? Grouping::HalfWarps : Grouping::QuarterWarps;
  }
  if (merged) *merged = m;
  return g;
}

int count_wavefronts(const WarpAccess& a) noexcept {
  FastCounts f;
  if (fast_counts(a, f)) return f.wavefronts;
  // Every group holds at most 32 distinct words: 32 lanes x 1 word, 16 x 2, 8 x 4, or a merged
  // group whose lanes come in pairs sharing an address (16 addresses x 2, 8 x 4).
  BankTable t;
  const int size = group_size(grouping_of(a));
  const int wpl = words_per_lane(a.width);
  int total = 0;
  for (int first = 0; first < kWarpSize; first += size)
    total += cost_of_group(a, first, size, wpl, t).wavefronts;
  return total;
}

int minimum_wavefronts(const WarpAccess& a) noexcept {
  FastCounts f;
  if (fast_counts(a, f)) return f.minimum;
  BankTable t;
  const int size = group_size(grouping_of(a));
  const int wpl = words_per_lane(a.width);
  int total = 0;
  for (int first = 0; first < kWarpSize; first += size) {
    const int d = cost_of_group(a, first, size, wpl, t).distinct;
    total += (d + kNumBanks - 1) / kNumBanks;
  }
  return total;
}

Analysis analyze(const WarpAccess& a) {
  Analysis r;
  r.grouping = grouping_of(a, &r.merged);
  const int size = group_size(r.grouping);
  const int wpl = words_per_lane(a.width);

  const char* partner = partners_agree(a, 1) ? "i^1" : "i^2";
  if (a.width <= 4) {
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

  BankTable t;
  for (int first = 0, gi = 0; first < kWarpSize; first += size, ++gi) {
    Group g;
    g.first_lane = first;
    g.lane_count = size;
    for (int i = first; i < first + size; ++i)
      if ((a.mask >> i) & 1u) g.active |= 1u << i;
    const GroupCost c = cost_of_group(a, first, size, wpl, t);
    g.wavefronts = c.wavefronts;
    g.distinct_words = c.distinct;
    g.minimum = (c.distinct + kNumBanks - 1) / kNumBanks;
    g.worst_bank = c.worst_bank;
    r.wavefronts += g.wavefronts;
    r.minimum += g.minimum;

    // Wavefront k of this group serves, in every bank, the k-th distinct word that bank was asked
    // for (in order of first request). Each lane's word goes to the wavefront holding that word.
    std::vector<Wavefront> waves(static_cast<std::size_t>(g.wavefronts));
    for (auto& w : waves) w.group = gi;
    for (int i = first; i < first + size; ++i) {
      if (!((a.mask >> i) & 1u)) continue;
      for (int k = 0; k < wpl; ++k) {
        const std::uint32_t word = word_of(a.offset[i]) + static_cast<std::uint32_t>(k);
        const int b = static_cast<int>(word % kNumBanks);
        const std::uint32_t* list = t.words[b];
        const int pos = static_cast<int>(std::find(list, list + t.count[b], word) - list);
        waves[static_cast<std::size_t>(pos)].served.push_back(LaneWord{i, b, word, false});
      }
    }
    for (auto& w : waves) {
      for (auto& x : w.served)
        x.shared = std::count_if(w.served.begin(), w.served.end(),
                                 [&](const LaneWord& y) { return y.word == x.word; }) > 1;
      r.wavefront_detail.push_back(std::move(w));
    }
    r.groups.push_back(g);
  }
  return r;
}

}  // namespace banklab
