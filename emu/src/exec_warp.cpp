// The warp-wide families: shfl.sync, vote.sync, match.sync, activemask, redux.sync. The warp runs
// in lockstep, so an instruction sees every member lane's operands at once; the emulator asks that
// the member mask name exactly the lanes that run the instruction (live lanes outside this path of
// a divergent warp would wait for each other on the GPU, which a SIMT stack cannot do), and says
// "not judged" otherwise. Semantics: PTX ISA 9.0, "Data Movement and Conversion Instructions:
// shfl.sync" and "Parallel Synchronization and Communication Instructions: vote.sync, match.sync,
// activemask, redux.sync".
#include <cstdint>
#include <string>

#include "exec_families.hpp"

namespace banklab::emu {

namespace {

// The member lanes of an instruction whose member mask is operand `i`: the live lanes it names.
// False (not judged) when the lanes that run it are not exactly those (or disagree on the mask).
bool members(const Inst& in, WarpView& w, int i, std::uint32_t& out) {
  const int first = __builtin_ctz(w.exec);
  const auto mask = static_cast<std::uint32_t>(w.get(in.ops[i], first));
  for (std::uint32_t m = w.exec; m; m &= m - 1)
    if (static_cast<std::uint32_t>(w.get(in.ops[i], __builtin_ctz(m))) != mask)
      return w.not_judged("a member mask that differs between lanes");
  out = mask & w.live;
  if (out != w.exec)
    return w.not_judged("a member mask that names lanes other than those that run it (divergent warp-synchronous code)");
  return true;
}

std::int64_t signed32(std::uint64_t v) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }

}  // namespace

bool exec_warp(const Inst& in, WarpView& w) {
  std::uint32_t mem = 0;
  switch (in.family) {
    case Family::Activemask:  // the lanes of the warp at this instruction
      for (std::uint32_t m = w.exec; m; m &= m - 1) w.set(in.ops[0].reg, __builtin_ctz(m), w.active);
      return true;
    case Family::Shfl: {
      if (!members(in, w, 4, mem)) return false;
      // shfl.sync's pseudocode: c[4:0] is the clamp, c[12:8] the segment mask.
      std::uint32_t value[32];
      bool inside[32];
      for (std::uint32_t m = mem; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        const auto b = static_cast<int>(w.get(in.ops[2], lane) & 31u);
        const auto c = static_cast<std::uint32_t>(w.get(in.ops[3], lane));
        const int clamp = static_cast<int>(c & 31u), seg = static_cast<int>((c >> 8) & 31u);
        const int max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg;
        int j = lane;
        bool p = false;
        switch (in.sub) {
          case SubOp::Up: j = lane - b; p = j >= max_lane; break;
          case SubOp::Down: j = lane + b; p = j <= max_lane; break;
          case SubOp::Bfly: j = lane ^ b; p = j <= max_lane; break;
          default: j = min_lane | (b & ~seg); p = j <= max_lane; break;  // .idx
        }
        if (!p) j = lane;
        // A source lane outside the members gives what its register holds (PTX: undefined).
        value[lane] = static_cast<std::uint32_t>(w.get(in.ops[1], j));
        inside[lane] = p;
      }
      for (std::uint32_t m = mem; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        w.set(in.ops[0].reg, lane, value[lane]);
        w.set(in.ops[0].pred, lane, inside[lane]);
      }
      return true;
    }
    case Family::Vote: {
      if (!members(in, w, 2, mem)) return false;
      std::uint32_t ballot = 0;
      for (std::uint32_t m = mem; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        if (w.get(in.ops[1], lane) & 1u) ballot |= 1u << lane;
      }
      std::uint64_t d = ballot;
      if (in.sub == SubOp::All) d = ballot == mem;
      if (in.sub == SubOp::Any) d = ballot != 0;
      if (in.sub == SubOp::Uni) d = ballot == 0 || ballot == mem;
      for (std::uint32_t m = mem; m; m &= m - 1) w.set(in.ops[0].reg, __builtin_ctz(m), d);
      return true;
    }
    case Family::Match: {
      if (!members(in, w, 2, mem)) return false;
      const std::uint64_t cut = in.type == Type::B32 ? 0xffffffffull : ~0ull;
      std::uint64_t v[32] = {};
      for (std::uint32_t m = mem; m; m &= m - 1) v[__builtin_ctz(m)] = w.get(in.ops[1], __builtin_ctz(m)) & cut;
      bool all = true;
      for (std::uint32_t m = mem; m; m &= m - 1) all = all && v[__builtin_ctz(m)] == v[__builtin_ctz(mem)];
      for (std::uint32_t m = mem; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        std::uint32_t same = 0;
        for (std::uint32_t n = mem; n; n &= n - 1)
          if (v[__builtin_ctz(n)] == v[lane]) same |= 1u << __builtin_ctz(n);
        w.set(in.ops[0].reg, lane, in.sub == SubOp::Any ? same : all ? mem : 0u);
        w.set(in.ops[0].pred, lane, all);
      }
      return true;
    }
    case Family::Redux: {
      if (!members(in, w, 2, mem)) return false;
      const bool s = in.type == Type::S32;
      std::uint32_t acc = 0;
      bool first = true;
      for (std::uint32_t m = mem; m; m &= m - 1) {
        const auto x = static_cast<std::uint32_t>(w.get(in.ops[1], __builtin_ctz(m)));
        if (first) { acc = x; first = false; continue; }
        switch (in.sub) {
          case SubOp::Add: acc += x; break;
          case SubOp::Min: acc = s ? (signed32(x) < signed32(acc) ? x : acc) : (x < acc ? x : acc); break;
          case SubOp::Max: acc = s ? (signed32(x) > signed32(acc) ? x : acc) : (x > acc ? x : acc); break;
          case SubOp::And: acc &= x; break;
          case SubOp::Or: acc |= x; break;
          default: acc ^= x; break;  // .xor
        }
      }
      for (std::uint32_t m = mem; m; m &= m - 1) w.set(in.ops[0].reg, __builtin_ctz(m), acc);
      return true;
    }
    default: return w.not_judged("this warp-wide instruction");
  }
}

}  // namespace banklab::emu
