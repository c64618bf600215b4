// What the warp-wide (exec_warp.cpp), matrix (exec_mma.cpp) and atomic (exec_atom.cpp) families
// take from the executor (exec.cpp): one warp's registers, which of its lanes are where, and the
// executor's own operand reads, memory (every access checked, a fault named and ending the
// launch), shared-memory records and refusals. exec.cpp builds one view per warp instruction of
// these families.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "banklab_emu/ptx.hpp"
#include "banklab_trace/format.hpp"
#include "banklab_trace/lines.hpp"

namespace banklab::emu {

struct WarpView {
  std::uint64_t* r = nullptr;  ///< the warp's registers: register x 32 + lane
  const std::uint64_t* var_base = nullptr;  ///< the module variables' addresses (Operand::var)
  std::uint32_t live = 0;      ///< lanes that are threads of the block and have not exited
  std::uint32_t active = 0;    ///< live lanes on this path of the warp (at this instruction)
  std::uint32_t exec = 0;      ///< active lanes whose guard holds: those that run it
  int pc = 0;                  ///< the instruction's index (its records' pc is pc x 16)
  std::function<std::uint64_t(const Operand&, int lane)> get;
  /// One lane's `width` bytes at `addr` in the instruction's space; nullptr: it faulted (the
  /// launch has stopped). `shared`: the block's shared memory through its own window (recorded).
  std::function<unsigned char*(int lane, std::uint64_t addr, unsigned width, bool write, bool& shared)> memory;
  std::function<void(const trace::DeviceRecord&)> record;  ///< one shared-memory warp record (none when not tracing)
  std::function<bool(const std::string& what)> not_judged;  ///< ends the launch "not judged (emulator: what ...)"; false

  std::uint64_t& reg(int index, int lane) { return r[static_cast<std::size_t>(index) * 32 + static_cast<std::size_t>(lane)]; }
  void set(int index, int lane, std::uint64_t v) {
    if (index >= 0) reg(index, lane) = v;
  }
  /// An address operand's value for `lane` (register + offset).
  std::uint64_t address(const Operand& a, int lane) {
    return (a.reg >= 0 ? reg(a.reg, lane) : 0) + static_cast<std::uint64_t>(a.imm) + (a.var >= 0 ? var_base[a.var] : 0);
  }
};

/// shfl.sync, vote.sync, match.sync, activemask, redux.sync. False: the launch stops.
bool exec_warp(const Inst& in, WarpView& w);
/// ldmatrix, stmatrix, mma.sync.
bool exec_matrix(const Inst& in, WarpView& w);
/// atom, red (global, shared, generic).
bool exec_atomic(const Inst& in, WarpView& w);
/// The SASS ptxas 13 gives a shared atom/red for sm_90 (common/data/README.md, "every other shared
/// atomic"): what the tracer reads from the cubin to tell the model's op (trace::atom_op_of()).
/// NotAtoms for any other instruction.
trace::AtomsKind atoms_kind_of(const Inst& in);

}  // namespace banklab::emu
