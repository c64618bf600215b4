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
/// A 64-bit register's bits as a double, and a double's bits.
inline double as_f64(std::uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
inline std::uint64_t of_f64(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
/// The low `bits` bits of v, and the same sign-extended from bit bits - 1.
inline std::uint64_t mask_bits(std::uint64_t v, int bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }
inline std::int64_t sext(std::uint64_t v, int bits) {
  if (bits >= 64) return static_cast<std::int64_t>(v);
  const std::uint64_t m = 1ull << (bits - 1);
  return static_cast<std::int64_t>((mask_bits(v, bits) ^ m) - m);
}

/// IEEE binary16 <-> binary32: exact one way, rounded to nearest even the other (alu.cpp).
float half_to_float(std::uint16_t h);
std::uint16_t float_to_half(float f);

/// out = the instruction's result for operands a, b, c (d unused: kept for four-source families).
/// False when the family does not define this type or modifier (the launch ends "not judged").
bool alu(const Inst& in, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d, std::uint64_t& out);

}  // namespace banklab::emu
