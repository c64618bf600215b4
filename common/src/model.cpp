// The reference bank model. See model.hpp for the rules and where they come from.
#include "banklab/model.hpp"

#include <algorithm>
#include <cstring>

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
