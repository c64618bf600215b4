// One lane's arithmetic, logic, comparison and conversion, on registers' raw bits: every read
// takes the instruction's type out of the bits (sign- or zero-extended, or a float), every result
// is written back at its type's width. PTX ISA 9.0's semantics for what nvcc emits; a type or
// modifier a family does not define here gives false (the launch ends "not judged").
#include "alu.hpp"

#include <cmath>
#include <limits>

namespace banklab::emu {

// IEEE binary16 <-> binary32 (the conversion is exact one way; rounded to nearest even the other).
float half_to_float(std::uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31) v = man ? std::nanf("") : INFINITY;
  else v = std::ldexp(static_cast<float>(man | 1024), exp - 25);
  return sign ? -v : v;
}
std::uint16_t float_to_half(float f) {
  const auto x = static_cast<std::uint32_t>(of_f32(f));
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  if (std::isnan(f)) return static_cast<std::uint16_t>(sign | 0x7e00u);
  const float a = std::fabs(f);
  if (a >= 65520.0f) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds past the largest half
  if (a < std::ldexp(1.0f, -14)) {  // subnormal: a multiple of 2^-24, rounded to nearest even
    const float q = std::nearbyint(a * std::ldexp(1.0f, 24));
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(q));
  }
  int e = 0;
  const float m = std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
  float q = std::nearbyint(std::ldexp(m, 11));  // 11 significant bits
  if (q >= 2048.0f) { q /= 2; ++e; }
  return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>((e + 14) << 10) | (static_cast<std::uint16_t>(q) & 1023u));
}

namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// A value of type t as a double (floats) or as a 64-bit integer (ints, sign-extended when signed).
double fval(Type t, std::uint64_t v) { return t == Type::F32 ? static_cast<double>(as_f32(v)) : as_f64(v); }
std::uint64_t fout(Type t, double d) { return t == Type::F32 ? of_f32(static_cast<float>(d)) : of_f64(d); }
std::int64_t ival(Type t, std::uint64_t v) {
  return is_signed(t) ? sext(v, bits_of(t)) : static_cast<std::int64_t>(mask_bits(v, bits_of(t)));
}

// float -> integer of `to`, rounded by `r`, saturated as the hardware does (NaN -> 0).
std::uint64_t f2i(double d, Round r, Type to) {
  switch (r) {
    case Round::Rzi: case Round::None: d = std::trunc(d); break;
    case Round::Rni: d = std::nearbyint(d); break;
    case Round::Rmi: d = std::floor(d); break;
    case Round::Rpi: d = std::ceil(d); break;
    default: d = std::trunc(d); break;
  }
  const int bits = bits_of(to);
  if (std::isnan(d)) return 0;
  if (is_signed(to)) {
    const double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1) - 1;
    const std::int64_t v = d <= lo ? static_cast<std::int64_t>(lo) : d >= hi ? static_cast<std::int64_t>(hi)
                                                                              : static_cast<std::int64_t>(d);
    return mask_bits(static_cast<std::uint64_t>(v), bits);
  }
  const double hi = std::ldexp(1.0, bits) - 1;
  if (d <= 0) return 0;
  if (d >= hi) return mask_bits(~0ull, bits);
  return static_cast<std::uint64_t>(d);
}

bool compare(Cmp c, Type t, std::uint64_t a, std::uint64_t b) {
  if (is_float(t)) {
    const double x = fval(t, a), y = fval(t, b);
    const bool un = std::isnan(x) || std::isnan(y);
    switch (c) {
      case Cmp::Eq: return !un && x == y;
      case Cmp::Ne: return !un && x != y;
      case Cmp::Lt: return !un && x < y;
      case Cmp::Le: return !un && x <= y;
      case Cmp::Gt: return !un && x > y;
      case Cmp::Ge: return !un && x >= y;
      case Cmp::Equ: return un || x == y;
      case Cmp::Neu: return un || x != y;
      case Cmp::Ltu: return un || x < y;
      case Cmp::Leu: return un || x <= y;
      case Cmp::Gtu: return un || x > y;
      case Cmp::Geu: return un || x >= y;
      case Cmp::Num: return !un;
      case Cmp::Nan: return un;
      default: return false;
    }
  }
  const int bits = bits_of(t);
  const std::int64_t x = sext(a, bits), y = sext(b, bits);
  const std::uint64_t u = mask_bits(a, bits), v = mask_bits(b, bits);
  const bool s = is_signed(t);
  switch (c) {
    case Cmp::Eq: return u == v;
    case Cmp::Ne: return u != v;
    case Cmp::Lt: return s ? x < y : u < v;
    case Cmp::Le: return s ? x <= y : u <= v;
    case Cmp::Gt: return s ? x > y : u > v;
    case Cmp::Ge: return s ? x >= y : u >= v;
    case Cmp::Lo: return u < v;
    case Cmp::Ls: return u <= v;
    case Cmp::Hi: return u > v;
    case Cmp::Hs: return u >= v;
    default: return false;
  }
}

// The high half of a full product of two `bits`-wide values.
std::uint64_t mul_hi(Type t, std::uint64_t a, std::uint64_t b) {
  const int bits = bits_of(t);
  if (bits == 64) {
    if (is_signed(t)) return static_cast<std::uint64_t>((static_cast<i128>(sext(a, 64)) * sext(b, 64)) >> 64);
    return static_cast<std::uint64_t>((static_cast<u128>(a) * b) >> 64);
  }
  const std::int64_t p = is_signed(t) ? sext(a, bits) * sext(b, bits)
                                      : static_cast<std::int64_t>(mask_bits(a, bits) * mask_bits(b, bits));
  return mask_bits(static_cast<std::uint64_t>(p >> bits), bits);
}

}  // namespace

bool alu(const Inst& in, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d, std::uint64_t& out) {
  const Type t = in.type;
  const int bits = bits_of(t);
  const bool fl = is_float(t);
  if (bits == 0) return false;
  switch (in.family) {
    case Family::Mov: out = mask_bits(a, bits); return true;
    case Family::Add: out = fl ? fout(t, fval(t, a) + fval(t, b)) : mask_bits(a + b, bits); return t != Type::Pred;
    case Family::Sub: out = fl ? fout(t, fval(t, a) - fval(t, b)) : mask_bits(a - b, bits); return t != Type::Pred;
    case Family::Mul:
    case Family::Mad: {
      if (t == Type::Pred) return false;
      if (fl) {
        out = in.family == Family::Mul ? fout(t, fval(t, a) * fval(t, b))
              : t == Type::F32 ? of_f32(std::fma(as_f32(a), as_f32(b), as_f32(c)))
                               : of_f64(std::fma(as_f64(a), as_f64(b), as_f64(c)));
        return true;
      }
      std::uint64_t p;
      int out_bits = bits;
      if (in.wide) {
        if (bits == 64) return false;
        p = static_cast<std::uint64_t>(ival(t, a) * ival(t, b));
        out_bits = 2 * bits;
      } else if (in.hi) {
        p = mul_hi(t, a, b);
      } else {
        p = a * b;
      }
      out = mask_bits(in.family == Family::Mad ? p + c : p, out_bits);
      return true;
    }
    case Family::Fma:
      if (t == Type::F32) out = of_f32(std::fma(as_f32(a), as_f32(b), as_f32(c)));
      else if (t == Type::F64) out = of_f64(std::fma(as_f64(a), as_f64(b), as_f64(c)));
      else return false;
      return true;
    case Family::Div:
    case Family::Rem: {
      if (t == Type::Pred) return false;
      if (fl) {
        if (in.family == Family::Rem) return false;
        out = fout(t, fval(t, a) / fval(t, b));
        return true;
      }
      // Division by zero has no defined result in PTX; the emulator gives all ones (div) or a (rem).
      const bool div = in.family == Family::Div;
      if (mask_bits(b, bits) == 0) { out = div ? mask_bits(~0ull, bits) : mask_bits(a, bits); return true; }
      if (is_signed(t)) {
        const std::int64_t x = sext(a, bits), y = sext(b, bits);
        if (y == -1) { out = mask_bits(div ? static_cast<std::uint64_t>(0) - static_cast<std::uint64_t>(x) : 0, bits); return true; }
        out = mask_bits(static_cast<std::uint64_t>(div ? x / y : x % y), bits);
      } else {
        const std::uint64_t x = mask_bits(a, bits), y = mask_bits(b, bits);
        out = div ? x / y : x % y;
      }
      return true;
    }
    case Family::Min:
    case Family::Max: {
      const bool mn = in.family == Family::Min;
      if (t == Type::Pred) return false;
      if (fl) { out = fout(t, mn ? std::fmin(fval(t, a), fval(t, b)) : std::fmax(fval(t, a), fval(t, b))); return true; }
      const std::int64_t x = ival(t, a), y = ival(t, b);
      const bool first = is_signed(t) ? (mn ? x <= y : x >= y)
                                      : (mn ? static_cast<std::uint64_t>(x) <= static_cast<std::uint64_t>(y)
                                            : static_cast<std::uint64_t>(x) >= static_cast<std::uint64_t>(y));
      out = mask_bits(first ? a : b, bits);
      return true;
    }
    case Family::Abs:
      if (fl) { out = fout(t, std::fabs(fval(t, a))); return true; }
      if (!is_signed(t)) return false;
      out = mask_bits(static_cast<std::uint64_t>(sext(a, bits) < 0 ? -sext(a, bits) : sext(a, bits)), bits);
      return true;
    case Family::Neg:
      if (fl) { out = fout(t, -fval(t, a)); return true; }
      if (t == Type::Pred) return false;
      out = mask_bits(0 - a, bits);
      return true;
    case Family::And: out = mask_bits(a & b, bits); return !fl;
    case Family::Or: out = mask_bits(a | b, bits); return !fl;
    case Family::Xor: out = mask_bits(a ^ b, bits); return !fl;
    case Family::Not: out = mask_bits(~a, bits); return !fl;
    case Family::Shl:
    case Family::Shr: {
      if (fl || t == Type::Pred) return false;
      const std::uint64_t n = static_cast<std::uint32_t>(b);
      if (in.family == Family::Shl) out = n >= static_cast<std::uint64_t>(bits) ? 0 : mask_bits(a << n, bits);
      else if (is_signed(t)) out = mask_bits(static_cast<std::uint64_t>(sext(a, bits) >> (n >= static_cast<std::uint64_t>(bits) ? bits - 1 : n)), bits);
      else out = n >= static_cast<std::uint64_t>(bits) ? 0 : mask_bits(a, bits) >> n;
      return true;
    }
    case Family::Popc:
      if (bits != 32 && bits != 64) return false;
      out = static_cast<std::uint64_t>(__builtin_popcountll(mask_bits(a, bits)));
      return true;
    case Family::Clz:
      if (bits != 32 && bits != 64) return false;
      out = mask_bits(a, bits) == 0 ? static_cast<std::uint64_t>(bits)
                                    : static_cast<std::uint64_t>(__builtin_clzll(mask_bits(a, bits)) - (64 - bits));
      return true;
    case Family::Brev: {
      if (bits != 32 && bits != 64) return false;
      std::uint64_t r = 0, v = mask_bits(a, bits);
      for (int i = 0; i < bits; ++i) r |= ((v >> i) & 1u) << (bits - 1 - i);
      out = r;
      return true;
    }
    case Family::Bfi:    // PTX ISA 9.0, Integer Arithmetic Instructions: bfi (a's low len bits into b at pos)
    case Family::Bfe: {  // and bfe (len bits of a from pos, zero- or sign-extended)
      if (bits != 32 && bits != 64) return false;
      const bool bfi = in.family == Family::Bfi;
      const int pos = static_cast<int>((bfi ? c : b) & 0xff), len = static_cast<int>((bfi ? d : c) & 0xff);
      std::uint64_t f = bfi ? mask_bits(b, bits) : 0;
      if (bfi) {
        for (int i = 0; i < len && pos + i < bits; ++i) f = (f & ~(1ull << (pos + i))) | (((a >> i) & 1u) << (pos + i));
      } else if (len > 0) {
        const int top = pos + len - 1 < bits - 1 ? pos + len - 1 : bits - 1;
        const std::uint64_t sbit = is_signed(t) ? (a >> top) & 1u : 0;
        for (int i = 0; i < bits; ++i) f |= ((i < len && pos + i < bits) ? (a >> (pos + i)) & 1u : sbit) << i;
      }
      out = f;
      return true;
    }
    case Family::Setp: {
      bool r = compare(in.cmp, t, a, b);
      const bool q = (c & 1u) != 0;
      if (in.boolop == BoolOp::And) r = r && q;
      if (in.boolop == BoolOp::Or) r = r || q;
      if (in.boolop == BoolOp::Xor) r = r != q;
      out = r;
      return in.cmp != Cmp::None && t != Type::Pred;
    }
    case Family::Selp: out = mask_bits((c & 1u) ? a : b, bits); return t != Type::Pred;
    case Family::Cvt: {
      const Type s = in.type2;
      if (bits_of(s) == 0 || s == Type::Pred || t == Type::Pred) return false;
      if (is_float(s) && is_float(t) && (s == Type::F16 || t == Type::F16)) {  // half precision (cuda_fp16.hpp)
        if (s == t) return false;
        if (s == Type::F16) {  // exact, no rounding to ask for
          if (in.round != Round::None) return false;
          const float x = half_to_float(static_cast<std::uint16_t>(a));
          out = t == Type::F32 ? of_f32(x) : of_f64(static_cast<double>(x));
          return true;
        }
        if (s != Type::F32 || in.round != Round::Rn) return false;  // f32 -> f16 rounded to nearest even
        out = float_to_half(as_f32(a));
        return true;
      }
      if (is_float(s) && is_float(t)) {
        if (s == t) {  // round to an integer in the same type
          const double x = fval(s, a);
          double y = x;
          if (in.round == Round::Rni) y = std::nearbyint(x);
          else if (in.round == Round::Rzi) y = std::trunc(x);
          else if (in.round == Round::Rmi) y = std::floor(x);
          else if (in.round == Round::Rpi) y = std::ceil(x);
          out = fout(t, y);
          return true;
        }
        if (in.round != Round::None && in.round != Round::Rn) return false;
        out = fout(t, fval(s, a));  // f32 -> f64 exact; f64 -> f32 rounded to nearest
        return true;
      }
      if (is_float(s)) { out = f2i(fval(s, a), in.round, t); return true; }
      if (is_float(t)) {
        if (in.round != Round::None && in.round != Round::Rn) return false;
        const std::int64_t v = ival(s, a);
        out = is_signed(s) ? fout(t, static_cast<double>(v)) : fout(t, static_cast<double>(static_cast<std::uint64_t>(v)));
        if (t == Type::F32) out = is_signed(s) ? of_f32(static_cast<float>(v)) : of_f32(static_cast<float>(static_cast<std::uint64_t>(v)));
        return true;
      }
      out = mask_bits(static_cast<std::uint64_t>(ival(s, a)), bits);  // extend by the source's sign, cut to the destination
      return true;
    }
    default: break;
  }
  (void)d;
  return false;
}

}  // namespace banklab::emu
