// The pattern set of `banklab calibrate`.
#include "patterns.hpp"

#include <algorithm>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "banklab/pattern_io.hpp"

namespace banklab::calibrate {
namespace {

using OffsetFn = std::function<std::uint32_t(int)>;

const char* op_name(Op op) { return to_string(op); }

Pattern make(const std::string& name, Op op, int width, const OffsetFn& f,
             std::uint32_t mask = 0xffffffffu) {
  Pattern p;
  p.id = "n_" + name + "_w" + std::to_string(width) + "_" + op_name(op);
  p.access.op = op;
  p.access.width = width;
  p.access.mask = mask;
  for (int i = 0; i < kWarpSize; ++i) p.access.offset[static_cast<std::size_t>(i)] = f(i);
  return p;
}

std::string hex8(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

}  // namespace

std::uint32_t random_mask(Rng& r) {
  static const std::uint32_t kStructured[] = {0x0000ffffu, 0xffff0000u, 0x00ff00ffu, 0x0f0f0f0fu,
                                              0x55555555u, 0xaaaaaaaau, 0x33333333u, 0x000000ffu,
                                              0xff000000u, 0x11111111u, 0x0000000fu, 0x80000001u};
  std::uint32_t m = 0;
  switch (r.below(6)) {
    case 0:
    case 1: m = 0xffffffffu; break;
    case 2:  // dense: each lane with probability 3/4
      for (int i = 0; i < kWarpSize; ++i)
        if (r.below(4) != 0) m |= 1u << i;
      break;
    case 3:  // sparse: 1 to 4 lanes
      for (int k = 0, n = 1 + static_cast<int>(r.below(4)); k < n; ++k) m |= 1u << r.below(32);
      break;
    case 4:  // half of the lanes at random
      m = static_cast<std::uint32_t>(r.next());
      break;
    default:
      m = kStructured[r.below(sizeof kStructured / sizeof kStructured[0])];
      break;
  }
  return m == 0 ? 1u << r.below(32) : m;
}

namespace {

Pattern random_pattern(Rng& r, std::uint64_t seed, int index) {
  static const int kWidths[] = {1, 2, 4, 4, 4, 8, 8, 8, 16, 16, 16};
  WarpAccess a;
  a.op = r.chance(50) ? Op::Load : Op::Store;
  a.width = kWidths[r.below(sizeof kWidths / sizeof kWidths[0])];
  a.mask = random_mask(r);
  const std::uint32_t w = static_cast<std::uint32_t>(a.width);
  const std::uint32_t limit = kMaxSharedBytesPerBlock - w;  // largest valid offset

  // The address range: a few words (many lanes share words: broadcasts, merged writes), a few
  // rows of 128 bytes, a few KiB, or all of shared memory.
  std::uint32_t range = 0;
  const char* kind = "";
  switch (r.below(4)) {
    case 0: range = 16u + r.below(240); kind = "small"; break;
    case 1: range = 256u + r.below(1792); kind = "rows"; break;
    case 2: range = 2048u + r.below(30720); kind = "kib"; break;
    default: range = kMaxSharedBytesPerBlock; kind = "full"; break;
  }
  range = std::max(range, w);
  const std::uint32_t base_slots = (kMaxSharedBytesPerBlock - range) / w + 1;
  const std::uint32_t base = r.below(base_slots) * w;
  const std::uint32_t slots = (range - w) / w + 1;  // offsets base + k*w, k < slots, stay in range
  auto any = [&] { return std::min(base + r.below(slots) * w, limit); };

  std::string how;
  switch (r.below(5)) {
    case 0:
    case 1:  // independent random offsets
      how = "rand";
      for (auto& off : a.offset) off = any();
      break;
    case 2: {  // a stride (in elements) with a random start, maybe permuted
      how = "stride";
      const std::uint32_t stride = r.below(70);
      for (int i = 0; i < kWarpSize; ++i)
        a.offset[static_cast<std::size_t>(i)] =
            std::min(base + (static_cast<std::uint32_t>(i) * stride % slots) * w, limit);
      if (r.chance(50)) {
        how = "stride_perm";
        for (int i = kWarpSize - 1; i > 0; --i)
          std::swap(a.offset[static_cast<std::size_t>(i)], a.offset[r.below(static_cast<std::uint64_t>(i) + 1)]);
      }
      break;
    }
    default: {  // lane i^k shares lane i's address (the 64/128-bit merge condition), sometimes broken
      const int k = r.chance(50) ? 1 : (r.chance(70) ? 2 : 1 << r.below(5));
      how = "pair" + std::to_string(k);
      for (int i = 0; i < kWarpSize; ++i)
        if ((i & k) == 0) a.offset[static_cast<std::size_t>(i)] = any();
      for (int i = 0; i < kWarpSize; ++i)
        if ((i & k) != 0) a.offset[static_cast<std::size_t>(i)] = a.offset[static_cast<std::size_t>(i ^ k)];
      if (r.chance(30)) {
        how += "_broken";
        a.offset[r.below(32)] = any();
      }
      break;
    }
  }
  for (int i = 0; i < kWarpSize; ++i)
    if (!((a.mask >> i) & 1u)) a.offset[static_cast<std::size_t>(i)] = 0;

  Pattern p;
  char num[16];
  std::snprintf(num, sizeof num, "%04d", index);
  p.id = "r" + std::to_string(seed) + "_" + num + "_" + how + "_" + kind + "_m" + hex8(a.mask) +
         "_w" + std::to_string(a.width) + "_" + op_name(a.op);
  p.access = a;
  return p;
}

}  // namespace

std::vector<Pattern> named_patterns() {
  std::vector<Pattern> v;
  for (Op op : {Op::Load, Op::Store}) {
    for (int w : {4, 8, 16}) {
      const std::uint32_t uw = static_cast<std::uint32_t>(w);
      for (std::uint32_t s : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 16u, 17u, 31u, 32u, 33u})
        v.push_back(make("stride" + std::to_string(s), op, w, [=](int i) { return static_cast<std::uint32_t>(i) * s * uw; }));
      for (std::uint32_t k : {1u, 2u, 4u, 8u, 16u}) {
        v.push_back(make("pairxor" + std::to_string(k), op, w,
                         [=](int i) { return (static_cast<std::uint32_t>(i) & ~k) * uw; }));
        v.push_back(make("pairxor" + std::to_string(k) + "_spread", op, w,
                         [=](int i) { return (static_cast<std::uint32_t>(i) & ~k) * 2u * uw; }));
      }
      v.push_back(make("rev", op, w, [=](int i) { return static_cast<std::uint32_t>(31 - i) * uw; }));
      v.push_back(make("group8same", op, w, [=](int i) { return static_cast<std::uint32_t>(i % 8) * uw; }));
      v.push_back(make("half_rows", op, w, [=](int i) { return static_cast<std::uint32_t>(i % 16) * uw + static_cast<std::uint32_t>(i / 16) * 4096u; }));
      v.push_back(make("quarter_rows", op, w, [=](int i) { return static_cast<std::uint32_t>(i % 8) * uw + static_cast<std::uint32_t>(i / 8) * 4096u; }));
      for (std::uint32_t m : {0x0000ffffu, 0xffff0000u, 0x00ff00ffu, 0x0f0f0f0fu, 0x55555555u, 0x00000001u, 0x000000ffu})
        for (std::uint32_t s : {1u, 2u})
          v.push_back(make("stride" + std::to_string(s) + "_mask" + hex8(m), op, w,
                           [=](int i) { return static_cast<std::uint32_t>(i) * s * uw; }, m));
    }
    // float tile[32][32] and [32][33]: a column; the XOR-swizzled tile's column 5.
    v.push_back(make("col32x32", op, 4, [](int i) { return static_cast<std::uint32_t>(i) * 128u; }));
    v.push_back(make("col32x33", op, 4, [](int i) { return static_cast<std::uint32_t>(i) * 132u; }));
    v.push_back(make("xorswz_col", op, 4, [](int i) { return static_cast<std::uint32_t>(xor_swizzle_index(i, 5)) * 4u; }));
    v.push_back(make("v4_interleave", op, 16, [](int i) { return static_cast<std::uint32_t>(i) * 16u; }));

    // Merge cases of 64/128-bit accesses (loads merge; stores never do).
    for (int w : {8, 16}) {
      const std::uint32_t uw = static_cast<std::uint32_t>(w);
      auto pair1 = [=](int i) { return (static_cast<std::uint32_t>(i) & ~1u) * 2u * uw; };
      // Must merge: i^1 shares, except lane 31, whose partner 30 is inactive.
      v.push_back(make("merge_i1_partner_off", op, w, [=](int i) { return i == 31 ? 999u * uw : pair1(i); }, 0xbfffffffu));
      // Must merge: i^2 shares in a warp where the i^1 partners differ.
      v.push_back(make("merge_i2_masked", op, w, [=](int i) { return (static_cast<std::uint32_t>(i) & ~2u) * 2u * uw; }, 0x0f0ff0f0u));
      // Must NOT merge: lanes 0-15 share with i^1, lanes 16-31 with i^2.
      v.push_back(make("nomerge_mixed", op, w, [=](int i) {
        const std::uint32_t u = static_cast<std::uint32_t>(i);
        return (i < 16 ? (u & ~1u) : (u & ~2u)) * 2u * uw; }));
      // Must NOT merge: i^1 shares everywhere but lane 31.
      v.push_back(make("nomerge_onepair", op, w, [=](int i) { return i == 31 ? 999u * uw : pair1(i); }));
      // Must NOT merge: i^4 sharing (neither i^1 nor i^2).
      v.push_back(make("nomerge_xor4_conflict", op, w, [=](int i) { return (static_cast<std::uint32_t>(i) & ~4u) * 8u * uw; }));
      // Halves never merge even when all 32 lanes pair up: half 0 and half 1 in the same banks.
      v.push_back(make("halves_same_banks", op, w, [=](int i) {
        const std::uint32_t u = static_cast<std::uint32_t>(i);
        return ((u % 16) & ~1u) * uw + (u / 16) * 1024u; }));
      // Lanes 0-7 and 8-15 with the same words as 16-23 and 24-31: quarter groups that share.
      v.push_back(make("quarters_same_words", op, w, [=](int i) { return static_cast<std::uint32_t>(i % 16) * uw; }));
      v.push_back(make("all_same_but_one", op, w, [=](int i) { return i == 7 ? 32u * uw : 0u; }));
    }
    // 1- and 2-byte accesses (the model treats them as accesses to their whole word).
    for (int w : {1, 2}) {
      const std::uint32_t uw = static_cast<std::uint32_t>(w);
      for (std::uint32_t s : {0u, 1u, 2u, 3u, 4u, 8u, 32u, 64u, 128u, 129u})
        v.push_back(make("stride" + std::to_string(s), op, w, [=](int i) { return static_cast<std::uint32_t>(i) * s * uw; }));
      v.push_back(make("word_stride32", op, w, [=](int i) { return static_cast<std::uint32_t>(i) * 128u + static_cast<std::uint32_t>(i % 4) * uw; }));
    }
  }
  // Offsets of inactive lanes do not matter; keep them as written (as in the H200 file).
  return v;
}

std::vector<Pattern> random_patterns(int n, std::uint64_t seed) {
  std::vector<Pattern> v;
  v.reserve(static_cast<std::size_t>(std::max(n, 0)));
  Rng r(seed);
  for (int i = 0; i < n; ++i) v.push_back(random_pattern(r, seed, i));
  return v;
}

std::vector<Pattern> pattern_set(int random, std::uint64_t seed) {
  std::vector<Pattern> v = named_patterns();
  std::vector<Pattern> r = random_patterns(random, seed);
  v.insert(v.end(), r.begin(), r.end());
  return v;
}

std::string format_pattern_list(const std::vector<Pattern>& patterns) {
  std::string s;
  for (const Pattern& p : patterns) {
    s += "# " + p.id + "\n";
    s += format_access_line(p.access) + "\n";
  }
  return s;
}

std::vector<Pattern> parse_pattern_list(const std::string& text, const std::string& source) {
  std::vector<Pattern> v;
  std::istringstream in(text);
  std::string line, pending_id;
  long n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (is_blank_or_comment(line)) {
      const auto hash = line.find('#');
      if (hash != std::string::npos) {
        std::string id = line.substr(hash + 1);
        id.erase(0, id.find_first_not_of(" \t"));
        id.erase(id.find_last_not_of(" \t\r") + 1);
        pending_id = id;
      }
      continue;
    }
    Pattern p;
    if (auto err = parse_access_line(line, p.access)) throw ParseError(source, n, *err);
    p.id = pending_id.empty() ? "p" + std::to_string(n) : pending_id;
    pending_id.clear();
    v.push_back(std::move(p));
  }
  return v;
}

}  // namespace banklab::calibrate
