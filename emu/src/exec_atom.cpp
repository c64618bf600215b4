// The atomic families: atom (the old value back) and red (none), on global, shared and generic
// memory; add, min, max, and, or, xor, inc, dec, exch, cas (PTX ISA 9.0, "Parallel
// Synchronization and Communication Instructions: atom, red"). The lanes of a warp go in lane
// order (the hardware's order among a warp's lanes is not specified; the final value is the same
// for every order except exch/cas of lanes at one word, and what atom returns follows the order).
//
// Shared ones are recorded as the hardware tracer records what ptxas 13 makes of them for sm_90
// (common/data/README.md, "every other shared atomic"; the tracer's flags kFlagAtomic, read and
// write): one record for ATOMS.<op>, ATOMS.POPC.INC and ATOMS.CAS; for the compare-and-swap loop
// (a float add, a 64-bit add/min/max/and/or/xor) a load (LDS) and a pass (ATOMS.CAST.SPIN) per
// pass, each with the lanes still looping, the passes served as the model serves them
// (banklab/model.hpp, atomloop and atom 8: in lane order, in each group (the warp for 4 bytes,
// half-warps for 8) the lanes on banks no earlier served lane used; of the served lanes at one
// word only the lowest succeeds, the others retry), and a min/max lane whose word would not change
// leaves the loop at its load (as ptxas's 64-bit min/max loop does). Checked against the H200's
// trace of bench/trace_atomics.cu (trace/tests/data/trace_atomics.bltrace, emu_compare): 9 of its
// 12 kernels equal record for record; the others differ where warps of a block contend for one
// word (their order on the GPU is not the emulator's turn order) and where ptxas narrowed a
// 64-bit load whose high half is unused to 32 bits.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "alu.hpp"
#include "exec_families.hpp"

namespace banklab::emu {

namespace {

// The word's new value after one lane's operation.
std::uint64_t apply(const Inst& in, std::uint64_t old, std::uint64_t b, std::uint64_t c) {
  const int bits = bits_of(in.type);
  const bool s = is_signed(in.type);
  const std::uint64_t bm = mask_bits(b, bits);
  const bool below = s ? sext(b, bits) < sext(old, bits) : bm < mask_bits(old, bits);
  const bool above = s ? sext(b, bits) > sext(old, bits) : bm > mask_bits(old, bits);
  switch (in.sub) {
    case SubOp::Add:
      if (in.type == Type::F32) return of_f32(as_f32(old) + as_f32(b));
      if (in.type == Type::F64) return of_f64(as_f64(old) + as_f64(b));
      return mask_bits(old + b, bits);
    case SubOp::Min: return below ? bm : old;
    case SubOp::Max: return above ? bm : old;
    case SubOp::And: return old & bm;
    case SubOp::Or: return old | bm;
    case SubOp::Xor: return old ^ bm;
    case SubOp::Inc: return old >= bm ? 0 : mask_bits(old + 1, bits);
    case SubOp::Dec: return (old == 0 || old > bm) ? bm : old - 1;
    case SubOp::Exch: return bm;
    case SubOp::Cas: return old == bm ? mask_bits(c, bits) : old;
    default: return old;
  }
}

bool is_loop(trace::AtomsKind k) { return k == trace::AtomsKind::CasSpin; }

}  // namespace

trace::AtomsKind atoms_kind_of(const Inst& in) {
  using K = trace::AtomsKind;
  if (in.family != Family::Atom && in.family != Family::Red) return K::NotAtoms;
  if (in.sub == SubOp::Cas) return K::Cas;
  if (is_float(in.type)) return K::CasSpin;  // no float ATOMS on sm_90
  if (bits_of(in.type) == 64) return in.sub == SubOp::Exch ? K::Operation : K::CasSpin;  // EXCH.64, else the loop
  const Operand& v = in.ops[in.family == Family::Red ? 1 : 2];
  const bool unused = in.family == Family::Red || in.result_unused;
  if (in.sub == SubOp::Add && unused && v.kind == Operand::Kind::Imm && v.imm == 1) return K::PopcInc;
  return K::Operation;
}

void mark_unused_results(Kernel& k) {
  std::vector<bool> read(static_cast<std::size_t>(k.registers) + 1, false);
  auto mark = [&](int r) {
    if (r >= 0 && r < k.registers) read[static_cast<std::size_t>(r)] = true;
  };
  for (const Inst& in : k.code) {
    mark(in.guard);
    // ops[0] is what these write; of the others it is read too.
    const bool writes_first = !(in.family == Family::St || in.family == Family::Red || in.family == Family::Stmatrix ||
                                in.family == Family::Bra || in.family == Family::BarSync || in.family == Family::BarWarpSync);
    for (int i = writes_first ? 1 : 0; i < in.nops; ++i) {
      const Operand& o = in.ops[i];
      mark(o.reg);
      for (int e = 0; e < o.count; ++e) mark(o.regs[e]);
    }
    if (in.family == Family::Unsupported)  // what it reads is unknown: everything it names counts
      for (int i = 0; i < in.nops; ++i) mark(in.ops[i].reg);
  }
  for (Inst& in : k.code)
    if (in.family == Family::Atom && in.nops > 0 && in.ops[0].reg >= 0)
      in.result_unused = !read[static_cast<std::size_t>(in.ops[0].reg)];
  // Registers that may differ between threads: written from a thread's own special register, from
  // memory other than params, by a warp-wide or atomic instruction, or from (or under a guard of)
  // such a register; every write of a register counts (flow-insensitive, so a safe over-estimate).
  std::vector<bool> varying(static_cast<std::size_t>(k.registers) + 1, false);
  auto is_varying = [&](int r) { return r >= 0 && r < k.registers && varying[static_cast<std::size_t>(r)]; };
  for (bool changed = true; changed;) {
    changed = false;
    for (const Inst& in : k.code) {
      const bool writes_first = !(in.family == Family::St || in.family == Family::Red || in.family == Family::Stmatrix ||
                                  in.family == Family::Bra || in.family == Family::BarSync || in.family == Family::BarWarpSync);
      if (!writes_first || in.nops == 0) continue;
      bool v = is_varying(in.guard) || in.family == Family::Unsupported || in.family == Family::Atom ||
               in.family == Family::Shfl || in.family == Family::Match || in.family == Family::Ldmatrix ||
               in.family == Family::Mma || in.family == Family::Vote || in.family == Family::Redux ||
               (in.family == Family::Ld && in.space != Space::Param);
      for (int i = 1; i < in.nops && !v; ++i) {
        const Operand& o = in.ops[i];
        if (o.kind == Operand::Kind::Special)
          v = o.special == Special::TidX || o.special == Special::TidY || o.special == Special::TidZ ||
              o.special == Special::LaneId || o.special == Special::LanemaskEq || o.special == Special::LanemaskLt ||
              o.special == Special::LanemaskLe || o.special == Special::LanemaskGt || o.special == Special::LanemaskGe;
        v = v || is_varying(o.reg);
        for (int e = 0; e < o.count; ++e) v = v || is_varying(o.regs[e]);
      }
      if (!v) continue;
      auto mark_varying = [&](int r) {
        if (r >= 0 && r < k.registers && !varying[static_cast<std::size_t>(r)]) varying[static_cast<std::size_t>(r)] = changed = true;
      };
      mark_varying(in.ops[0].reg);
      mark_varying(in.ops[0].pred);
      for (int e = 0; e < in.ops[0].count; ++e) mark_varying(in.ops[0].regs[e]);
    }
  }
  for (Inst& in : k.code)
    if (in.family == Family::Atom || in.family == Family::Red) {
      const Operand& a = in.ops[in.family == Family::Atom ? 1 : 0];
      in.address_uniform = !is_varying(a.reg);
    }
}

bool exec_atomic(const Inst& in, WarpView& w) {
  const bool atom = in.family == Family::Atom;
  const Operand& a = in.ops[atom ? 1 : 0];
  const Operand& vb = in.ops[atom ? 2 : 1];
  const unsigned width = static_cast<unsigned>(bits_of(in.type) / 8);
  const trace::AtomsKind kind = atoms_kind_of(in);
  unsigned char* p[32] = {};
  std::uint64_t addr[32] = {};
  bool shared = false;
  for (std::uint32_t m = w.exec; m; m &= m - 1) {
    const int lane = __builtin_ctz(m);
    addr[lane] = w.address(a, lane);
    bool sh = false;
    p[lane] = w.memory(lane, addr[lane], width, true, sh);
    if (!p[lane]) return false;
    shared = shared || sh;
  }
  auto one = [&](int lane) {
    std::uint64_t old = 0;
    std::memcpy(&old, p[lane], width);
    const std::uint64_t c = atom && in.nops == 4 ? w.get(in.ops[3], lane) : 0;
    const std::uint64_t now = apply(in, old, w.get(vb, lane), c);
    std::memcpy(p[lane], &now, width);
    if (atom) w.set(in.ops[0].reg, lane, old);
  };
  auto record = [&](std::uint32_t mask, std::uint8_t flags) {
    trace::DeviceRecord rec{};
    rec.pc = static_cast<std::uint64_t>(w.pc) * 16;
    rec.mask = mask;
    rec.kind = trace::kKindAccess;
    rec.width = static_cast<std::uint8_t>(width);
    rec.flags = flags;
    for (std::uint32_t m = mask; m; m &= m - 1) rec.offset[__builtin_ctz(m)] = static_cast<std::uint32_t>(addr[__builtin_ctz(m)]);
    w.record(rec);
  };
  if (!shared || !is_loop(kind)) {
    for (std::uint32_t m = w.exec; m; m &= m - 1) one(__builtin_ctz(m));
    // A 32-bit add whose result is used, at an address the same in every thread: ptxas sums the
    // warp's values and one lane, the last, runs the ATOMS (the H200's trace of trace_ops.cu's
    // atom32_sameword_value: mask 0x80000000). Every lane still gets its own old value.
    const bool aggregated = atom && in.address_uniform && in.sub == SubOp::Add && !in.result_unused &&
                            (in.type == Type::U32 || in.type == Type::S32);
    if (shared) record(aggregated ? 1u << (31 - __builtin_clz(w.exec)) : w.exec, trace::kFlagAtomic);
    return true;
  }
  // The compare-and-swap loop: a load and a pass while lanes are left.
  const int group = width == 8 ? 16 : 32;
  const bool min_max = in.sub == SubOp::Min || in.sub == SubOp::Max;
  for (std::uint32_t left = w.exec; left;) {
    record(left, trace::kFlagRead);
    if (min_max)  // the loop of a min/max leaves at its load when the word would not change
      for (std::uint32_t m = left; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        std::uint64_t old = 0;
        std::memcpy(&old, p[lane], width);
        if (apply(in, old, w.get(vb, lane), 0) != old) continue;
        if (atom) w.set(in.ops[0].reg, lane, old);
        left &= ~(1u << lane);
      }
    if (!left) break;
    record(left, trace::kFlagAtomic);
    std::uint32_t served = 0;
    for (int g = 0; g < 32; g += group) {
      std::uint32_t banks = 0;
      for (int lane = g; lane < g + group; ++lane) {
        if (!(left >> lane & 1u)) continue;
        std::uint32_t mine = 0;
        for (unsigned word = 0; word < width / 4; ++word) mine |= 1u << ((addr[lane] / 4 + word) % 32);
        if (banks & mine) continue;
        banks |= mine;
        served |= 1u << lane;
      }
    }
    std::uint32_t done = 0;
    for (std::uint32_t m = served; m; m &= m - 1) {
      const int lane = __builtin_ctz(m);
      bool lowest = true;
      for (std::uint32_t e = done; e; e &= e - 1) lowest = lowest && addr[__builtin_ctz(e)] / width != addr[lane] / width;
      if (!lowest) continue;
      one(lane);
      done |= 1u << lane;
    }
    left &= ~done;
  }
  return true;
}

}  // namespace banklab::emu
