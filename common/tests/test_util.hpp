// Small builders for warp accesses in tests.
#pragma once
#include <functional>

#include "banklab/model.hpp"

namespace banklab::test {

// An access whose lane i is at byte offset f(i).
inline WarpAccess make(Op op, int width, const std::function<std::uint32_t(int)>& f,
                       std::uint32_t mask = 0xffffffffu) {
  WarpAccess a;
  a.op = op;
  a.width = width;
  a.mask = mask;
  for (int i = 0; i < kWarpSize; ++i) a.offset[static_cast<std::size_t>(i)] = f(i);
  return a;
}

// Lane i reads element i * stride of an array of `width`-byte elements.
inline WarpAccess strided(Op op, int width, std::uint32_t stride, std::uint32_t mask = 0xffffffffu) {
  return make(op, width, [=](int i) { return static_cast<std::uint32_t>(i) * stride * width; }, mask);
}

}  // namespace banklab::test
