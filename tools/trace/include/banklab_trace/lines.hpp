/// @file lines.hpp
/// @brief Source lines of SASS instructions: the DWARF line table a `-lineinfo` cubin carries
///        (`.debug_line`, whose sequences are tied to kernels by `.rela.debug_line`).
#pragma once
#include <cstdint>
#include <map>
#include <string>
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

}  // namespace banklab::trace
