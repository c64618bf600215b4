// The pattern sets of the instruction families beyond LDS/STS: ldmatrix, stmatrix, the shared
// side of cp.async, shared atomics. Ids: `<family>_<n|r><seed>_<index>_<how>_..._<op>[_variant]`.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <stdexcept>

#include "patterns.hpp"

namespace banklab::calibrate {
namespace {

using OffsetFn = std::function<std::uint32_t(int)>;

std::string hex8(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

Pattern build(const std::string& id, Op op, int width, std::uint32_t mask, const OffsetFn& f, bool keep_inactive) {
  Pattern p;
  p.id = id;
  p.access.op = op;
  p.access.width = width;
  p.access.mask = mask;
  for (int i = 0; i < kWarpSize; ++i) {
    const bool on = (mask >> i) & 1u;
    p.access.offset[static_cast<std::size_t>(i)] = on || keep_inactive ? f(i) : 0u;
  }
  return p;
}

std::uint32_t matrix_mask(int x) { return x == 1 ? 0x000000ffu : x == 2 ? 0x0000ffffu : 0xffffffffu; }

std::string suffix(Op op, const std::string& variant) {
  return std::string("_") + to_string(op) + (variant.empty() ? "" : "_" + variant);
}

// ldmatrix / stmatrix: lane i gives row i % 8 of matrix i / 8.
std::vector<Pattern> matrix_family(Op op, int random, std::uint64_t seed) {
  std::vector<Pattern> v;
  const std::string fam = to_string(op);
  for (int x : {1, 2, 4}) {
    for (const std::string var : {"", "trans"}) {
      const std::string tail = "_x" + std::to_string(x) + suffix(op, var);
      const std::uint32_t m = matrix_mask(x);
      for (std::uint32_t pitch : {16u, 32u, 64u, 80u, 128u, 144u, 256u, 528u}) {
        v.push_back(build(fam + "_n_side_p" + std::to_string(pitch) + tail, op, 16, m, [=](int i) {
          return static_cast<std::uint32_t>(i % 8) * pitch + static_cast<std::uint32_t>(i / 8) * 16u; }, false));
        v.push_back(build(fam + "_n_stack_p" + std::to_string(pitch) + tail, op, 16, m, [=](int i) {
          return static_cast<std::uint32_t>(i % 8) * pitch + static_cast<std::uint32_t>(i / 8) * 8u * pitch; }, false));
      }
      // Swizzle<3,4,3> on rows of 128 bytes: chunk m of row r at chunk m ^ r.
      v.push_back(build(fam + "_n_swizzle343" + tail, op, 16, m, [](int i) {
        const std::uint32_t r = static_cast<std::uint32_t>(i % 8), c = static_cast<std::uint32_t>(i / 8);
        return r * 128u + ((c ^ r) & 7u) * 16u; }, false));
      v.push_back(build(fam + "_n_same" + tail, op, 16, m, [](int) { return 256u; }, false));
      v.push_back(build(fam + "_n_rowsame" + tail, op, 16, m, [](int i) { return static_cast<std::uint32_t>(i / 8) * 16u; }, false));
      if (x < 4)  // the lanes whose addresses are unused hold conflicting ones: are they ignored?
        v.push_back(build(fam + "_n_unused_conflict" + tail, op, 16, m, [](int i) {
          return static_cast<std::uint32_t>(i) * 128u; }, true));
    }
  }
  Rng r(seed);
  for (int k = 0; k < random; ++k) {
    static const int kX[] = {1, 2, 4, 4, 4};
    const int x = kX[r.below(5)];
    const std::string var = r.chance(50) ? "trans" : "";
    const std::uint32_t m = matrix_mask(x);
    static const std::uint32_t kRanges[] = {128u, 512u, 2048u, 16384u, 65536u};
    const std::uint32_t range = kRanges[r.below(5)];
    const std::uint32_t base = r.below((kMaxSharedBytesPerBlock - range) / 16u) * 16u;
    std::array<std::uint32_t, kWarpSize> off{};
    std::string how;
    switch (r.below(4)) {
      case 0:
        how = "rand";
        for (auto& o : off) o = base + r.below(range / 16u) * 16u;
        break;
      case 1: {
        how = "pitch";
        const std::uint32_t pitch = 16u * (1u + r.below(40));
        const std::uint32_t mstep = 16u * r.below(range / 16u);
        for (int i = 0; i < kWarpSize; ++i)
          off[static_cast<std::size_t>(i)] = base + (static_cast<std::uint32_t>(i % 8) * pitch + static_cast<std::uint32_t>(i / 8) * mstep) % range / 16u * 16u;
        break;
      }
      case 2: {
        how = "swz";
        const std::uint32_t key = r.below(8);
        for (int i = 0; i < kWarpSize; ++i) {
          const std::uint32_t row = static_cast<std::uint32_t>(i % 8), c = static_cast<std::uint32_t>(i / 8);
          off[static_cast<std::size_t>(i)] = base % 16384u + row * 128u + ((c ^ row ^ key) & 7u) * 16u;
        }
        break;
      }
      default: {
        const int s = 1 << r.below(4);
        how = "pair" + std::to_string(s);
        for (int i = 0; i < kWarpSize; ++i) off[static_cast<std::size_t>(i)] = base + r.below(range / 16u) * 16u;
        for (int i = 0; i < kWarpSize; ++i)
          if (i & s) off[static_cast<std::size_t>(i)] = off[static_cast<std::size_t>(i ^ s)];
        break;
      }
    }
    char num[16];
    std::snprintf(num, sizeof num, "%04d", k);
    v.push_back(build(fam + "_r" + std::to_string(seed) + "_" + num + "_" + how + "_x" + std::to_string(x) + suffix(op, var),
                      op, 16, m, [&](int i) { return off[static_cast<std::size_t>(i)]; }, false));
  }
  return v;
}

// Lane offsets for the element-wise families (cpasync, atom) of width w.
std::vector<std::pair<std::string, OffsetFn>> element_layouts(int w) {
  const std::uint32_t uw = static_cast<std::uint32_t>(w);
  std::vector<std::pair<std::string, OffsetFn>> l;
  for (std::uint32_t s : {0u, 1u, 2u, 3u, 4u, 8u, 16u, 17u, 32u, 33u})
    l.emplace_back("stride" + std::to_string(s), [=](int i) { return static_cast<std::uint32_t>(i) * s * uw; });
  for (std::uint32_t k : {1u, 2u, 4u, 8u, 16u})
    l.emplace_back("pairxor" + std::to_string(k), [=](int i) { return (static_cast<std::uint32_t>(i) & ~k) * uw; });
  for (std::uint32_t g : {2u, 4u, 8u, 16u})  // g lanes per word, words in distinct banks
    l.emplace_back("share" + std::to_string(g), [=](int i) { return static_cast<std::uint32_t>(i) / g * uw; });
  for (std::uint32_t g : {2u, 4u, 8u})  // g lanes per word, the words all in bank 0
    l.emplace_back("share" + std::to_string(g) + "_onebank", [=](int i) { return static_cast<std::uint32_t>(i) / g * 128u; });
  l.emplace_back("rev", [=](int i) { return static_cast<std::uint32_t>(31 - i) * uw; });
  l.emplace_back("halves_same", [=](int i) { return static_cast<std::uint32_t>(i % 16) * uw; });
  l.emplace_back("col32x32", [](int i) { return static_cast<std::uint32_t>(i) * 128u; });
  l.emplace_back("col32x33", [=](int i) { return static_cast<std::uint32_t>(i) * (128u + uw); });
  return l;
}

Pattern random_element(Rng& r, const std::string& fam, Op op, int w, const std::string& var, std::uint64_t seed, int k) {
  const std::uint32_t uw = static_cast<std::uint32_t>(w);
  const std::uint32_t mask = random_mask(r);
  static const std::uint32_t kRanges[] = {32u, 256u, 2048u, 32768u, kMaxSharedBytesPerBlock};
  const std::uint32_t range = std::max(uw, kRanges[r.below(5)]);
  const std::uint32_t base = r.below((kMaxSharedBytesPerBlock - range) / uw + 1u) * uw;
  const std::uint32_t slots = range / uw;
  std::array<std::uint32_t, kWarpSize> off{};
  std::string how;
  switch (r.below(4)) {
    case 0:
    case 1:
      how = "rand";
      for (auto& o : off) o = base + r.below(slots) * uw;
      break;
    case 2: {
      how = "stride";
      const std::uint32_t s = r.below(70);
      for (int i = 0; i < kWarpSize; ++i) off[static_cast<std::size_t>(i)] = base + static_cast<std::uint32_t>(i) * s % slots * uw;
      break;
    }
    default: {
      const int s = 1 << r.below(5);
      how = "pair" + std::to_string(s);
      for (int i = 0; i < kWarpSize; ++i) off[static_cast<std::size_t>(i)] = base + r.below(slots) * uw;
      for (int i = 0; i < kWarpSize; ++i)
        if (i & s) off[static_cast<std::size_t>(i)] = off[static_cast<std::size_t>(i ^ s)];
      break;
    }
  }
  for (auto& o : off) o = std::min(o, kMaxSharedBytesPerBlock - uw);
  char num[16];
  std::snprintf(num, sizeof num, "%04d", k);
  return build(fam + "_r" + std::to_string(seed) + "_" + num + "_" + how + "_m" + hex8(mask) + "_w" + std::to_string(w) +
                   suffix(op, var),
               op, w, mask, [&](int i) { return off[static_cast<std::size_t>(i)]; }, false);
}

// The op the model applies to a pattern of the family's op, width and variant: a 32-bit `red` of
// 1 compiles to ATOMS.POPC.INC.32 (Op::AtomicIncrement); the id keeps the family's op name.
Pattern with_model_op(Pattern p, int w, const std::string& var) {
  if (p.access.op == Op::Atomic && w == 4 && var == "red") p.access.op = Op::AtomicIncrement;
  return p;
}

std::vector<Pattern> element_family(const std::string& fam, Op op, const std::vector<std::pair<int, std::string>>& kinds,
                                    int random, std::uint64_t seed) {
  std::vector<Pattern> v;
  for (const auto& [w, var] : kinds) {
    for (const auto& [name, f] : element_layouts(w)) {
      v.push_back(with_model_op(build(fam + "_n_" + name + "_w" + std::to_string(w) + suffix(op, var), op, w, 0xffffffffu, f, false), w, var));
    }
    for (std::uint32_t m : {0x0000ffffu, 0x55555555u, 0x00000001u, 0x80000001u})
      v.push_back(with_model_op(build(fam + "_n_stride1_m" + hex8(m) + "_w" + std::to_string(w) + suffix(op, var), op, w, m,
                                      [=](int i) { return static_cast<std::uint32_t>(i * w); }, false),
                                w, var));
  }
  Rng r(seed);
  for (int k = 0; k < random; ++k) {
    const auto& [w, var] = kinds[r.below(kinds.size())];
    v.push_back(with_model_op(random_element(r, fam, op, w, var, seed, k), w, var));
  }
  return v;
}

// The shared atomics beyond add (family atomop): every operation kind of kAtomOpKinds, each with
// a subset of the element layouts (same word, same bank, distinct banks, sharing, masks), then
// `random` random patterns drawn over the kinds from its own generator (the atom family's draw is
// untouched).
std::vector<Pattern> atomop_family(int random, std::uint64_t seed) {
  static const char* const kLayouts[] = {"stride0", "stride1", "stride2", "stride32", "share2", "share4",
                                         "share16", "share2_onebank", "pairxor1", "halves_same", "col32x33"};
  std::vector<Pattern> v;
  for (const AtomOpKind& k : kAtomOpKinds) {
    const std::string var = k.variant;
    for (const auto& [name, f] : element_layouts(k.width))
      if (std::find(std::begin(kLayouts), std::end(kLayouts), name) != std::end(kLayouts))
        v.push_back(build("atomop_n_" + name + "_w" + std::to_string(k.width) + suffix(Op::Atomic, var), k.op,
                          k.width, 0xffffffffu, f, false));
    for (std::uint32_t m : {0x0000ffffu, 0x80000001u})
      v.push_back(build("atomop_n_stride1_m" + hex8(m) + "_w" + std::to_string(k.width) + suffix(Op::Atomic, var),
                        k.op, k.width, m, [w = k.width](int i) { return static_cast<std::uint32_t>(i * w); }, false));
  }
  Rng r(seed ^ 0x61746f6d6f70ull);  // "atomop"
  for (int k = 0; k < random; ++k) {
    const AtomOpKind& kind = kAtomOpKinds[r.below(std::size(kAtomOpKinds))];
    Pattern p = random_element(r, "atomop", Op::Atomic, kind.width, kind.variant, seed, k);  // ids say "atom"
    p.access.op = kind.op;
    v.push_back(std::move(p));
  }
  return v;
}

}  // namespace

std::string variant_of(const std::string& id) {
  const auto us = id.rfind('_');
  const std::string last = us == std::string::npos ? id : id.substr(us + 1);
  if (last == "trans" || last == "cg" || last == "red") return last;
  for (const AtomOpKind& k : kAtomOpKinds)
    if (last == k.variant) return last;
  return std::string();
}

std::vector<Pattern> family_patterns(const std::string& family, int random, std::uint64_t seed) {
  if (family == "ldst") return pattern_set(random, seed);
  if (family == "ldsm") return matrix_family(Op::LoadMatrix, random, seed);
  if (family == "stsm") return matrix_family(Op::StoreMatrix, random, seed);
  if (family == "cpasync")
    return element_family(family, Op::AsyncCopy, {{4, ""}, {8, ""}, {16, ""}, {16, "cg"}}, random, seed);
  if (family == "atom")
    return element_family(family, Op::Atomic, {{4, ""}, {8, ""}, {4, "red"}, {8, "red"}}, random, seed);
  if (family == "atomop") return atomop_family(random, seed);
  throw std::invalid_argument("unknown family '" + family + "' (expected ldst, ldsm, stsm, cpasync, atom or atomop)");
}

}  // namespace banklab::calibrate
