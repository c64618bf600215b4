// The terminal picture and the hints of `banklab explain`.
#include "banklab_cli/explain_render.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>

namespace banklab::cli {
namespace {

std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::vector<int> active_lanes(std::uint32_t mask) {
  std::vector<int> v;
  for (int i = 0; i < kWarpSize; ++i)
    if ((mask >> i) & 1u) v.push_back(i);
  return v;
}

// Byte distance d with offset[i] = offset[first] + (i - first) * d for every active lane, if any.
bool affine_stride(const WarpAccess& a, std::int64_t& d) {
  const std::vector<int> lanes = active_lanes(a.mask);
  if (lanes.size() < 2) return false;
  const std::int64_t o0 = a.offset[static_cast<std::size_t>(lanes[0])];
  const std::int64_t diff = static_cast<std::int64_t>(a.offset[static_cast<std::size_t>(lanes[1])]) - o0;
  const std::int64_t steps = lanes[1] - lanes[0];
  if (diff % steps != 0) return false;
  d = diff / steps;
  for (int i : lanes)
    if (static_cast<std::int64_t>(a.offset[static_cast<std::size_t>(i)]) - o0 != (i - lanes[0]) * d)
      return false;
  return true;
}

std::string group_name(const Analysis& r, int g) {
  return group_lanes(r.groups[static_cast<std::size_t>(g)]);
}

const char* grouping_words(Grouping g) {
  switch (g) {
    case Grouping::Warp: return "one group of 32 lanes";
    case Grouping::HalfWarps: return "two half-warps of 16 lanes";
    case Grouping::QuarterWarps: return "four quarter-warps of 8 lanes";
  }
  return "";
}

}  // namespace

std::vector<Row> layout(const Analysis& r) {
  std::vector<Row> rows;
  rows.reserve(r.wavefront_detail.size());
  int prev_group = -1, in_group = 0;
  for (const Wavefront& w : r.wavefront_detail) {
    in_group = w.group == prev_group ? in_group + 1 : 0;
    prev_group = w.group;
    Row row;
    row.group = w.group;
    row.in_group = in_group;
    for (const LaneWord& x : w.served) {
      if (x.bank < 0 || x.bank >= kNumBanks) continue;
      Cell& c = row.cells[static_cast<std::size_t>(x.bank)];
      c.used = true;
      c.word = x.word;
      c.lanes.push_back(x.lane);
    }
    for (Cell& c : row.cells) {
      std::sort(c.lanes.begin(), c.lanes.end());
      c.lanes.erase(std::unique(c.lanes.begin(), c.lanes.end()), c.lanes.end());
      c.broadcast = c.lanes.size() > 1;
      c.conflict = c.used && in_group > 0;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string describe_access(const WarpAccess& a) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s, %d-byte lanes, mask %08x (%d active)",
                describe(a.op), a.width, a.mask,
                __builtin_popcount(a.mask));
  return buf;
}

std::string count_line(const Analysis& r) {
  return plural(r.wavefronts, "wavefront", "wavefronts") + " (minimum " + std::to_string(r.minimum) + ")";
}

std::string hint_for(const WarpAccess& a, const Analysis& r) {
  std::string h;
  if (r.wavefronts == 0) return "No lane is active: the instruction moves no data.";
  if (r.conflicts() == 0) {
    h = "No bank conflict: this access already takes its minimum of " +
        plural(r.minimum, "wavefront.", "wavefronts.");
  } else {
    std::int64_t d = 0;
    if (affine_stride(a, d) && d != 0) {
      const std::int64_t ad = d < 0 ? -d : d;
      const std::int64_t elems = ad % a.width == 0 ? ad / a.width : 0;
      const std::int64_t word_stride = ad / kBankWidthBytes;
      h = "Lanes are " + std::to_string(ad) + " bytes apart";
      if (elems > 0) h += " (a stride of " + std::to_string(elems) + " elements of " + std::to_string(a.width) + " bytes)";
      if (ad % kBankWidthBytes == 0 && word_stride > 0) {
        const std::int64_t g = std::gcd(word_stride, static_cast<std::int64_t>(kNumBanks));
        if (g > 1)
          h += ": " + std::to_string(word_stride) + " words between lanes share the factor " +
               std::to_string(g) + " with the 32 banks, so the lanes fall into only " +
               plural(static_cast<int>(kNumBanks / g), "bank", "banks") + " of 32";
      }
      h += ". ";
      if (is_pow2(elems) && elems >= 2) {
        h += "A power-of-two stride is the classic conflict: pad each row by one element "
             "(stride " + std::to_string(elems) + " + 1 = " + std::to_string(elems + 1) +
             (elems == 32 && a.width == 4 ? ", e.g. tile[32][33] instead of tile[32][32]" : "") +
             ") or XOR-swizzle the column index, a different permutation of the columns in each row, so that "
             "consecutive lanes land in different banks.";
      } else {
        h += "Make the stride in 4-byte words odd (pad the row by one element), or XOR-swizzle "
             "the index, so that the lanes spread over all 32 banks.";
      }
    } else if (is_cas_loop(a)) {
      h = a.width == 8 ? "Lanes of one half-warp on the same banks, or at the same 8-byte word anywhere in the warp, "
                         "cannot finish in the same pass."
                       : "Lanes on the same bank, whether at one word or at different words, cannot finish in the "
                         "same pass.";
    } else {
      int worst_group = 0;
      for (std::size_t g = 0; g < r.groups.size(); ++g)
        if (r.groups[g].wavefronts - r.groups[g].minimum >
            r.groups[static_cast<std::size_t>(worst_group)].wavefronts -
                r.groups[static_cast<std::size_t>(worst_group)].minimum)
          worst_group = static_cast<int>(g);
      const Group& g = r.groups[static_cast<std::size_t>(worst_group)];
      if (serves_every_lane(a))  // one-instruction ATOMS: a bank serves its lanes one by one, same word or not
        h = "Bank " + std::to_string(g.worst_bank) + " serves " +
            std::to_string(a.op == Op::AtomicCas ? g.wavefronts / 2 : g.wavefronts) + " of " +
            group_name(r, worst_group) +
            " one by one (a shared atomic serves every lane apart, even lanes at one word): give the lanes' "
            "words different banks, or combine the lanes of one word within the warp first.";
      else
        h = "Bank " + std::to_string(g.worst_bank) + " must deliver " + std::to_string(g.wavefronts) +
            " distinct words to " + group_name(r, worst_group) +
            ": give those words different banks (pad rows by one element, or XOR-swizzle the "
            "index with the row) and the access drops towards its minimum.";
    }
  }
  if (a.op == Op::Atomic && a.width == 8) {
    h += " A 64-bit shared atomic is a compare-and-swap loop on sm_90 (" + std::to_string(r.instructions) +
         (r.instructions == 1 ? " pass" : " passes") +
         " here): lanes at one word retry one by one, and lanes whose banks an earlier lane of their "
         "half-warp took retry too. Aggregate within the warp first, or use 32-bit counters.";
  } else if (a.op == Op::AtomicCasLoop) {
    h += std::string(" This atomic is a compare-and-swap loop on sm_90 (") + std::to_string(r.instructions) +
         (r.instructions == 1 ? " pass" : " passes") + " here, each with its LDS): " +
         (a.width == 8 ? "lanes at one word retry one by one, and lanes whose banks an earlier lane of their "
                         "half-warp took retry too."
                       : "a float (or half2) atomicAdd; each pass serves one lane per bank, so lanes at one "
                         "word, or on one bank, retry one by one.") +
         " Aggregate within the warp first (__shfl_xor_sync / __reduce_add_sync), or give each warp its own "
         "copy.";
  } else if (a.op == Op::AtomicCas) {
    h += " A compare-and-swap takes every wavefront twice: twice the cost of an exchange at the same "
         "addresses, and lanes at one word are served one by one.";
  } else if (a.op == Op::AsyncCopy && a.width < 16) {
    h += " cp.async of " + std::to_string(a.width) + " bytes is served lane by lane in lane order, " +
         (a.width == 4 ? "the warp as one group" : "one half-warp after the other") +
         ": a lane waits for the last earlier lane on its banks and on its source banks of global memory "
         "(taken as lane i reading at 16 * i: lane i - 8); lanes writing one word are not merged.";
  } else if (a.width == 8 && !r.merged) {
    h += " 64-bit accesses are served per half-warp: 16 lanes x 8 bytes = 128 bytes, one "
         "wavefront when conflict-free, so a full warp needs at least 2; only lanes of the same "
         "half-warp (0-15 or 16-31) can conflict with each other.";
  } else if (a.width == 16 && !r.merged) {
    h += " 128-bit accesses are served per quarter-warp: 8 lanes x 16 bytes = 128 bytes, one "
         "wavefront when conflict-free, so a full warp needs at least 4; only lanes of the same "
         "quarter-warp (0-7, 8-15, 16-23, 24-31) can conflict with each other.";
  } else if (r.merged) {
    h += " This load merged into larger groups because lane pairs share addresses: each pair "
         "needs its words only once.";
  }
  if (a.width >= 8 && a.op == Op::Load && !r.merged) {
    h += " A 64/128-bit load is served in larger groups only when lane i^1 (or lane i^2) is "
         "inactive or reads the same address, for every active lane i.";
  }
  if (a.width < 4) {
    h += " 1- and 2-byte lanes are served as accesses to their whole 4-byte word: lanes in the "
         "same word share it.";
  }
  return h;
}

std::string render_explanation(const WarpAccess& a, const Analysis& r, const RenderOptions& opt) {
  const char* red = opt.color ? "\x1b[1;31m" : "";
  const char* cyan = opt.color ? "\x1b[1;36m" : "";
  const char* dim = opt.color ? "\x1b[2m" : "";
  const char* bold = opt.color ? "\x1b[1m" : "";
  const char* reset = opt.color ? "\x1b[0m" : "";

  std::string o;
  if (!opt.title.empty()) o += std::string(bold) + opt.title + reset + "\n";
  o += describe_access(a) + "\n";
  o += std::string(bold) + count_line(r) + reset;
  if (r.conflicts() > 0)
    o += ": " + std::string(red) + plural(r.conflicts(), "extra wavefront", "extra wavefronts") +
         " from bank conflicts" + reset + ".\n";
  else
    o += ": no bank conflict.\n";
  o += "\n";

  const std::vector<Row> rows = layout(r);
  char buf[64];
  o += "  bank         | ";
  for (int b = 0; b < kNumBanks; ++b) {
    std::snprintf(buf, sizeof buf, "%2d ", b);
    o += buf;
  }
  o += "\n";
  int shown_group = -1;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& row = rows[k];
    if (row.group != shown_group) {
      shown_group = row.group;
      const Group& g = r.groups[static_cast<std::size_t>(row.group)];
      o += "  group " + std::to_string(row.group + 1) + " of " + std::to_string(r.groups.size()) +
           ": " + group_name(r, row.group) + " (" + std::to_string(__builtin_popcount(g.active)) +
           " active), " + plural(g.distinct_words, "distinct word", "distinct words") + ": " +
           plural(g.wavefronts, "wavefront", "wavefronts") + " (minimum " + std::to_string(g.minimum) + ")\n";
    }
    std::snprintf(buf, sizeof buf, "  wavefront %2d | ", static_cast<int>(k) + 1);
    o += buf;
    for (const Cell& c : row.cells) {
      if (!c.used) {
        o += std::string(dim) + " . " + reset;
        continue;
      }
      std::snprintf(buf, sizeof buf, "%2d", c.lanes.empty() ? 0 : c.lanes.front());
      const char mark = c.conflict ? '!' : c.broadcast ? '*' : ' ';
      const char* col = c.conflict ? red : c.broadcast ? cyan : "";
      // cell = 2-digit lane + marker, under the bank number of the header.
      o += std::string(col) + buf + mark + reset;
    }
    o += "\n";
  }
  if (rows.empty()) o += "  (no wavefront: no lane is active)\n";
  o += "  legend: NN = lane served by that bank in that wavefront (the lowest one when several);\n"
       "          " + std::string(red) + "!" + reset +
       " = conflict: the bank serves a second distinct word to its group;\n"
       "          " + std::string(cyan) + "*" + reset +
       " = broadcast: several lanes get the same word; . = idle bank\n\n";

  o += "Groups: " + std::string(to_string(r.grouping)) + " (" + grouping_words(r.grouping) +
       "), merged: " + (r.merged ? "yes" : "no") + ". " + r.why + "\n";

  // Conflicts: for every group above its minimum, the worst bank and its words.
  for (const BankConflict& c : bank_conflicts(r)) {
    std::string words;
    for (std::size_t k = 0; k < c.words.size() && k <= 6; ++k)
      words += k == 6 ? ", ..." : (k ? ", " : "") + std::to_string(c.words[k].word);
    o += std::string("Conflict: ") + red + "bank " + std::to_string(c.bank) + reset + " serves " +
         plural(static_cast<int>(c.words.size()), "distinct word", "distinct words") + " (words " +
         words + ") to " + lane_list(c.lanes) + " of group " + std::to_string(c.group + 1) + ": " +
         plural(c.wavefronts, "wavefront", "wavefronts") + " where " + std::to_string(c.minimum) +
         " would do.\n";
  }
  // Broadcasts: the words several lanes share (a few of them).
  const bool reads = a.op == Op::Load || a.op == Op::LoadMatrix;
  int nb = 0;
  for (const Row& row : rows) {
    for (int b = 0; b < kNumBanks; ++b) {
      const Cell& c = row.cells[static_cast<std::size_t>(b)];
      if (!c.broadcast) continue;
      if (nb < 8)
        o += std::string(reads ? "Broadcast: " : "Same word: ") + cyan + "word " +
             std::to_string(c.word) + reset + " (bank " + std::to_string(b) + ") to " +
             lane_list(c.lanes) + (reads ? ", read once" : ", written once") + ".\n";
      ++nb;
    }
  }
  if (nb > 8) o += "  ... and " + std::to_string(nb - 8) + " more shared words.\n";
  o += "Hint: " + hint_for(a, r) + "\n";
  return o;
}

}  // namespace banklab::cli
