// One lane's arithmetic (alu.cpp): the executor calls it for every family that computes a value
// from its operands.
#pragma once
#include <cstdint>
#include <cstring>

#include "banklab_emu/ptx.hpp"

namespace banklab::emu {

/// A 32-bit register's bits as a float, and a float's bits (the high half 0).
inline float as_f32(std::uint64_t v) {
  const auto u = static_cast<std::uint32_t>(v);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline std::uint64_t of_f32(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// out = the instruction's result for operands a, b, c (d unused: kept for four-source families).
/// False when the family does not define this type or modifier (the launch ends "not judged").
bool alu(const Inst& in, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d, std::uint64_t& out);

}  // namespace banklab::emu
