/// @file lines.hpp
/// @brief Source lines of SASS instructions: the DWARF line table a `-lineinfo` cubin carries
///        (`.debug_line`, whose sequences are tied to kernels by `.rela.debug_line`).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace banklab::trace {

/// A place in the source.
struct SourceLine {
  std::string file;  ///< path as the compiler recorded it ("" when unknown)
  int line = 0;      ///< 1-based line (0 when unknown)
};

/// pc -> source line, per function (kernel) of one cubin. Offsets are relative to the start of
/// the function's `.text.<name>` section, which is what `pc - function start` gives at run time.
class LineTable {
 public:
  /// Reads the line table of a cubin (an ELF image). A cubin without line info (no
  /// `-lineinfo`) or one that is not an ELF gives an empty table, never an error.
  static LineTable from_cubin(const void* data, std::size_t size);

  /// The line of the instruction at `offset` in `function`: the row with the largest address
  /// <= offset. Unknown function or offset: an empty SourceLine.
  SourceLine lookup(const std::string& function, std::uint64_t offset) const;

  bool empty() const { return rows_.empty(); }
  /// Whether the table has rows for `function`.
  bool has(const std::string& function) const { return rows_.count(function) != 0; }

  /// Adds a row (used by the reader, and by tests).
  void add(const std::string& function, std::uint64_t offset, std::string file, int line);

 private:
  struct Row { std::string file; int line; };
  std::map<std::string, std::map<std::uint64_t, Row>> rows_;
};

/// The SASS of a cubin's functions: the 16-byte instruction words of each `.text.<function>`
/// section, read where the cubin lies (the image must outlive this object).
class SassText {
 public:
  /// Indexes the `.text.*` sections of a cubin. Not an ELF: an empty index, never an error.
  static SassText from_cubin(const void* data, std::size_t size);

  /// The instruction at `offset` in `function` (low 64-bit word first); nothing when the
  /// function is unknown or the offset is outside it.
  std::optional<std::array<std::uint64_t, 2>> at(const std::string& function, std::uint64_t offset) const;

  /// Whether the index has `function`.
  bool has(const std::string& function) const { return text_.count(function) != 0; }

 private:
  std::unordered_map<std::string, std::pair<const unsigned char*, std::size_t>> text_;
};

/// Which shared atomic an sm_90 instruction is (the tracer's callback says only "atomic").
enum class AtomsKind : std::uint8_t {
  NotAtoms,  ///< not ATOMS (or not readable)
  PopcInc,   ///< ATOMS.POPC.INC: opcode 0x18c, operation field 0xb
  Operation, ///< ATOMS.ADD/MIN/MAX/INC/DEC/AND/OR/XOR/EXCH: opcode 0x18c, any other operation
  Cas,       ///< ATOMS.CAS (one compare-and-swap): opcode 0x18d, field 0
  CasSpin,   ///< ATOMS.CAST.SPIN, one pass of the compare-and-swap loop ptxas emits for shared
             ///< atomics sm_90 has no ATOMS for (float add, 64-bit add/min/max/and/or/xor):
             ///< opcode 0x18d, field 3
};

/// The kind of the sm_90 instruction `ins`. ATOMS is opcode 0x18c in bits 0-8; its operation
/// field, bits 87-90, reads ADD 0, MIN 1, MAX 2, INC 3, DEC 4, AND 5, OR 6, XOR 7, EXCH 8 and
/// 0xb for POPC.INC (what `atomicAdd(p, 1)` and `red.shared.add.u32 [p], 1` compile to when the
/// result is unused). ATOMS.CAS / CAST.SPIN is opcode 0x18d, the same field 0 / 3. Read from
/// ptxas 13.0 cubins of every shared atomic of tools/calibrate/worker.cu and
/// bench/trace_atomics.cu, checked against `cuobjdump -sass` on the H200.
AtomsKind atoms_kind(const std::array<std::uint64_t, 2>& ins);

}  // namespace banklab::trace
