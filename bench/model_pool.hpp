// The pools of random valid accesses the model benchmarks run over: one home for
// model_bench (Google Benchmark, time) and model_instructions (callgrind, instructions).
#pragma once

#include <cstdlib>
#include <random>
#include <vector>

#include "banklab/model.hpp"

namespace banklab::bench {

// A fixed pool of random valid accesses of one width and op (deterministic seed): a mix of
// random offsets, random strides and lane pairs sharing an address (so that 64/128-bit loads
// sometimes merge), with mostly full masks.
inline std::vector<WarpAccess> make_pool(int width, Op op) {
  std::mt19937 rng(12345u + static_cast<unsigned>(width) * 7u + (op == Op::Store ? 1u : 0u));
  std::vector<WarpAccess> pool(4096);
  const std::uint32_t elems = 48u * 1024u / static_cast<std::uint32_t>(width);  // 48 KiB region
  for (WarpAccess& a : pool) {
    a.op = op;
    a.width = width;
    a.mask = (rng() % 4 == 0) ? static_cast<std::uint32_t>(rng()) : 0xffffffffu;
    const unsigned kind = rng() % 3;
    const std::uint32_t base = rng() % (elems / 2);
    const std::uint32_t stride = rng() % 65;
    for (int i = 0; i < banklab::kWarpSize; ++i) {
      std::uint32_t e = 0;
      if (kind == 0) e = rng() % elems;                                      // random
      else if (kind == 1) e = (base + static_cast<std::uint32_t>(i) * stride) % elems;  // strided
      else e = (base + static_cast<std::uint32_t>(i / 2) * stride) % elems;  // pairs share
      a.offset[static_cast<std::size_t>(i)] = e * static_cast<std::uint32_t>(width);
    }
    if (banklab::validate(a)) std::abort();  // the pool must be valid input
  }
  return pool;
}

}  // namespace banklab::bench
