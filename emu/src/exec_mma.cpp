// The matrix families: ldmatrix and stmatrix (8 x 8 matrices of 16-bit elements between shared
// memory and the warp's registers, recorded as the hardware tracer records LDSM/STSM: kind
// kKindLdmatrix, 16 bytes a lane, `reserved` = the number of matrices) and mma.sync (the warp's
// fragments gathered into whole matrices, multiplied, scattered back). Layouts: PTX ISA 9.0,
// "Warp-level matrix load instruction: ldmatrix", "... store instruction: stmatrix" and "Matrix
// Fragments for mma.m16n8k16 / mma.m16n8k8 with floating point type" (9.7.14.5.8). Every lane
// of the warp must run these (.sync.aligned); part of a warp is "not judged".
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "alu.hpp"
#include "exec_families.hpp"

namespace banklab::emu {

namespace {

bool whole_warp(const Inst& in, WarpView& w) {
  if (w.exec == 0xffffffffu) return true;
  return w.not_judged("`" + in.text.substr(0, in.text.find_first_of(" \t")) + "` run by part of a warp");
}

// ldmatrix / stmatrix: lane 8 i + r gives the row address of row r of matrix i; lane t holds, in
// its register i, elements (t / 4, 2 (t % 4)) and (t / 4, 2 (t % 4) + 1) of matrix i, the first
// in the low 16 bits (.trans: elements (2 (t % 4), t / 4) and (2 (t % 4) + 1, t / 4)).
bool matrix_memory(const Inst& in, WarpView& w) {
  const bool store = in.family == Family::Stmatrix;
  const Operand& addr = in.ops[store ? 0 : 1];
  const Operand& regs = in.ops[store ? 1 : 0];
  std::uint16_t m[4][8][8];  // [matrix][row][column]
  unsigned char* row[4][8];
  trace::DeviceRecord rec{};
  bool shared = false;
  for (int i = 0; i < in.matrices; ++i)
    for (int r = 0; r < 8; ++r) {
      const int lane = 8 * i + r;
      const std::uint64_t a = w.address(addr, lane);
      row[i][r] = w.memory(lane, a, 16, store, shared);
      if (!row[i][r]) return false;
      rec.offset[lane] = static_cast<std::uint32_t>(a);
      if (!store) std::memcpy(m[i][r], row[i][r], 16);
    }
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < in.matrices; ++i) {
      const int r0 = in.trans ? 2 * (t % 4) : t / 4, c0 = in.trans ? t / 4 : 2 * (t % 4);
      const int r1 = in.trans ? r0 + 1 : r0, c1 = in.trans ? c0 : c0 + 1;
      const int reg = regs.regs[i];
      if (store) {
        const std::uint64_t v = reg >= 0 ? w.reg(reg, t) : 0;
        m[i][r0][c0] = static_cast<std::uint16_t>(v);
        m[i][r1][c1] = static_cast<std::uint16_t>(v >> 16);
      } else {
        w.set(reg, t, static_cast<std::uint64_t>(m[i][r0][c0]) | static_cast<std::uint64_t>(m[i][r1][c1]) << 16);
      }
    }
  if (store)
    for (int i = 0; i < in.matrices; ++i)
      for (int r = 0; r < 8; ++r) std::memcpy(row[i][r], m[i][r], 16);
  if (shared) {
    rec.pc = static_cast<std::uint64_t>(w.pc) * 16;
    rec.mask = w.exec;
    rec.kind = trace::kKindLdmatrix;
    rec.width = 16;
    rec.flags = store ? trace::kFlagWrite : trace::kFlagRead;
    rec.reserved = static_cast<std::uint8_t>(in.matrices);
    w.record(rec);
  }
  return true;
}

// mma.sync.aligned.m16n8k{16,8}.row.col.<d>.f16.f16.<c>: D (16 x 8) = A (16 x k) B (k x 8) + C.
// groupID = lane / 4, t = lane % 4. A's halves a_i (register i / 2, the low half first): row
// groupID (+ 8 for i % 4 >= 2), column 2 t + i % 2 (+ 8 for i >= 4; k8 has a_0..a_3). B's b_i:
// row 2 t + i % 2 (+ 8 for i >= 2), column groupID. C and D's c_i: row groupID (+ 8 for i >= 2),
// column 2 t + i % 2 (f32: one register each; f16: two halves a register).
// The products of halves are exact in double; their sum and C are added in double and rounded
// once to the accumulator's type (the hardware's order of additions is not specified: the same
// result whenever the sum is exact, as the labs' data are made to be).
bool mma(const Inst& in, WarpView& w) {
  const int k = in.matrices;
  double a[16][16] = {}, b[16][8] = {}, c[16][8] = {};
  auto half = [&](int reg, int lane, int which) {
    return static_cast<double>(half_to_float(static_cast<std::uint16_t>(w.reg(reg, lane) >> (16 * which))));
  };
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < (k == 16 ? 8 : 4); ++i)
      a[g + (i % 4 >= 2 ? 8 : 0)][2 * t + i % 2 + (i >= 4 ? 8 : 0)] = half(in.ops[1].regs[i / 2], lane, i % 2);
    for (int i = 0; i < (k == 16 ? 4 : 2); ++i) b[2 * t + i % 2 + (i >= 2 ? 8 : 0)][g] = half(in.ops[2].regs[i / 2], lane, i % 2);
    for (int i = 0; i < 4; ++i) {
      const int row = g + (i >= 2 ? 8 : 0), col = 2 * t + i % 2;
      c[row][col] = in.types[3] == Type::F32 ? static_cast<double>(as_f32(w.reg(in.ops[3].regs[i], lane)))
                                             : half(in.ops[3].regs[i / 2], lane, i % 2);
    }
  }
  float d[16][8];
  for (int row = 0; row < 16; ++row)
    for (int col = 0; col < 8; ++col) {
      double s = c[row][col];
      for (int p = 0; p < k; ++p) s += a[row][p] * b[p][col];
      d[row][col] = static_cast<float>(s);
    }
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    if (in.types[0] == Type::F32) {
      for (int i = 0; i < 4; ++i) w.set(in.ops[0].regs[i], lane, of_f32(d[g + (i >= 2 ? 8 : 0)][2 * t + i % 2]));
    } else {
      for (int r = 0; r < 2; ++r)
        w.set(in.ops[0].regs[r], lane,
              static_cast<std::uint64_t>(float_to_half(d[g + 8 * r][2 * t])) |
                  static_cast<std::uint64_t>(float_to_half(d[g + 8 * r][2 * t + 1])) << 16);
    }
  }
  return true;
}

}  // namespace

bool exec_matrix(const Inst& in, WarpView& w) {
  if (!whole_warp(in, w)) return false;
  if (in.family == Family::Mma) return mma(in, w);
  return matrix_memory(in, w);
}

}  // namespace banklab::emu
