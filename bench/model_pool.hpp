// The pools of valid accesses the model benchmarks run over: one home for model_bench
// (Google Benchmark, time) and model_instructions (callgrind, instructions).
//
// Three pools, reported separately because the model's cost depends on the traffic:
//  - Mixed (the pool the first figures were taken on): one third uniformly random offsets, one
//    third random strides 0-64, one third lane pairs sharing an address at a random stride;
//    a quarter of the masks random.
//  - Realistic: what traces of real kernels contain. Row and column walks of tiles (strides 1,
//    2, 4, 8, 16, 32, 33, 64, 65 elements), broadcasts, multicasts (lane i / 2, i / 4, i % 8,
//    i % 16), XOR-swizzled transposes (tile[32][32] with col ^ row, CuTe Swizzle<3,4,3> on
//    bytes), 8x4 / 4x8 lane tiles; masks mostly full, sometimes a tail (the first n lanes) or
//    one branch of a divergent if (even lanes, a half). Conflicting shapes are in it (column
//    walks of an unpadded tile, even strides) in the proportions a lab-style kernel has them.
//  - Random: every lane at a uniformly random element of a 48 KiB region, full mask: the
//    worst case (almost every 32-bit access conflicts, no structure to exploit).
//  - ConflictFree: the traffic of a kernel tuned to be free of conflicts (what a trace of a
//    well-tuned kernel mostly holds): odd strides (1, 3, 5, 33, 65 elements) and XOR-swizzled
//    tile rows and columns, masks as in the realistic pool; a draw that analyze() finds above
//    its minimum (a merged wide load with every other lane active) is drawn again.
// The pools are drawn from fixed seeds; none of them is chosen to suit the model's code.
#pragma once

#include <cstdlib>
#include <random>
#include <vector>

#include "banklab/hardware.hpp"
#include "banklab/model.hpp"

namespace banklab::bench {

/// Which traffic a pool holds (see the file comment).
enum class Pool : int { Mixed = 0, Realistic = 1, Random = 2, ConflictFree = 3 };

inline const char* pool_name(Pool p) {
  switch (p) {
    case Pool::Mixed: return "mixed";
    case Pool::Realistic: return "realistic";
    case Pool::Random: return "random";
    case Pool::ConflictFree: return "conflict-free";
  }
  return "?";
}

namespace detail {

inline constexpr std::uint32_t kRegionBytes = 48u * 1024u;  // a 48 KiB shared array

// One warp instruction of a real kernel's shape: element index of each lane, in elements of
// `width` bytes, then possibly a byte-level swizzle.
inline void realistic_access(std::mt19937& rng, WarpAccess& a) {
  const auto w = static_cast<std::uint32_t>(a.width);
  const std::uint32_t elems = kRegionBytes / w;
  const std::uint32_t base = rng() % (elems / 2);
  static constexpr std::uint32_t kStrides[] = {1, 1, 1, 1, 2, 4, 8, 16, 32, 32, 33, 33, 64, 65};
  const std::uint32_t stride = kStrides[rng() % (sizeof kStrides / sizeof kStrides[0])];
  const std::uint32_t row = rng() % 32;  // which row / column of a tile this warp walks
  const unsigned kind = rng() % 10;
  for (int i = 0; i < kWarpSize; ++i) {
    const auto u = static_cast<std::uint32_t>(i);
    std::uint32_t e = 0;
    std::uint32_t byte = 0;
    bool bytes = false;
    switch (kind) {
      case 0: case 1: case 2: e = base + u * stride; break;                 // row / column walks
      case 3: e = base; break;                                              // broadcast
      case 4:                                                               // multicast
        switch (row % 4) {
          case 0: e = base + u / 2; break;
          case 1: e = base + u / 4; break;
          case 2: e = base + u % 8; break;
          default: e = base + u % 16; break;
        }
        break;
      case 5: e = (row * 32u + (u ^ row)) % elems; break;                   // xor tile, row read
      case 6: e = (u * 32u + (row ^ u)) % elems; break;                     // xor tile, column read
      case 7:  // Swizzle<3,4,3> on bytes: lane u at row u % 8, 16-byte chunk (u / 8 + row) % 8
        byte = Swizzle<3, 4, 3>{}((base * w) / 1024u * 1024u + (u % 8u) * 128u + ((u / 8u + row) % 8u) * 16u);
        byte = byte / w * w;
        bytes = true;
        break;
      case 8: e = base + (u / 8u) * (32u + stride % 2u) + u % 8u; break;     // 4 x 8 lane tile
      default: e = base + (u / 4u) * 33u + u % 4u; break;                   // 8 x 4 lane tile, padded
    }
    a.offset[static_cast<std::size_t>(i)] = bytes ? byte % kRegionBytes : (e % elems) * w;
  }
  switch (rng() % 8) {
    case 0: a.mask = 0xffffffffu >> (rng() % 32); break;  // a tail: the first n lanes
    case 1: a.mask = rng() % 2 ? 0x55555555u : 0x0000ffffu; break;  // one branch of an if
    default: a.mask = 0xffffffffu; break;
  }
}

// Odd strides and XOR-swizzled tiles: conflict-free for every width (see Pool::ConflictFree).
inline void conflict_free_access(std::mt19937& rng, WarpAccess& a) {
  const auto w = static_cast<std::uint32_t>(a.width);
  const std::uint32_t elems = kRegionBytes / w;
  const std::uint32_t base = rng() % (elems / 2);
  static constexpr std::uint32_t kOddStrides[] = {1, 1, 1, 3, 5, 33, 65};
  const std::uint32_t stride = kOddStrides[rng() % (sizeof kOddStrides / sizeof kOddStrides[0])];
  const std::uint32_t row = rng() % 32;
  const unsigned kind = rng() % 4;
  for (int i = 0; i < kWarpSize; ++i) {
    const auto u = static_cast<std::uint32_t>(i);
    std::uint32_t e = 0;
    switch (kind) {
      case 0: case 1: e = base + u * stride; break;           // row walk, odd stride
      case 2: e = row * 32u + (u ^ row); break;               // xor tile, row read
      default: e = u * 32u + (row ^ u); break;                // xor tile, column read
    }
    a.offset[static_cast<std::size_t>(i)] = (e % elems) * w;
  }
  switch (rng() % 8) {
    case 0: a.mask = 0xffffffffu >> (rng() % 32); break;
    case 1: a.mask = rng() % 2 ? 0x55555555u : 0x0000ffffu; break;
    default: a.mask = 0xffffffffu; break;
  }
}

}  // namespace detail

// A fixed pool of 4096 valid accesses of one width and op (deterministic seed).
inline std::vector<WarpAccess> make_pool(int width, Op op, Pool kind = Pool::Mixed) {
  std::mt19937 rng(12345u + static_cast<unsigned>(width) * 7u + (op == Op::Store ? 1u : 0u) +
                   1000u * static_cast<unsigned>(kind));
  std::vector<WarpAccess> pool(4096);
  const std::uint32_t elems = detail::kRegionBytes / static_cast<std::uint32_t>(width);
  for (WarpAccess& a : pool) {
    a.op = op;
    a.width = width;
    if (kind == Pool::Realistic) {
      detail::realistic_access(rng, a);
    } else if (kind == Pool::ConflictFree) {
      // Redrawn until analyze() says it is at its minimum: a merged 64/128-bit load (every
      // other lane active) can conflict where its unmerged shape would not.
      do {
        detail::conflict_free_access(rng, a);
      } while (analyze(a).conflicts() != 0);
    } else if (kind == Pool::Random) {
      a.mask = 0xffffffffu;
      for (int i = 0; i < banklab::kWarpSize; ++i)
        a.offset[static_cast<std::size_t>(i)] = (rng() % elems) * static_cast<std::uint32_t>(width);
    } else {
      a.mask = (rng() % 4 == 0) ? static_cast<std::uint32_t>(rng()) : 0xffffffffu;
      const unsigned shape = rng() % 3;
      const std::uint32_t base = rng() % (elems / 2);
      const std::uint32_t stride = rng() % 65;
      for (int i = 0; i < banklab::kWarpSize; ++i) {
        std::uint32_t e = 0;
        if (shape == 0) e = rng() % elems;                                      // random
        else if (shape == 1) e = (base + static_cast<std::uint32_t>(i) * stride) % elems;  // strided
        else e = (base + static_cast<std::uint32_t>(i / 2) * stride) % elems;  // pairs share
        a.offset[static_cast<std::size_t>(i)] = e * static_cast<std::uint32_t>(width);
      }
    }
    if (banklab::validate(a)) std::abort();  // the pool must be valid input
  }
  return pool;
}

}  // namespace banklab::bench
