/// @file pattern_io.hpp
/// @brief Reading access patterns: the one-line text format of `banklab predict` and the
///        measurement CSV format of `common/data/h200_wavefronts_named.csv`.
#pragma once

#include <array>
#include <cstdint>
#include <istream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "banklab/model.hpp"

namespace banklab {

/// A problem in an input file, with the 1-based line it was found on.
class ParseError : public std::runtime_error {
 public:
  /// A problem `what` found on line `line` (1-based) of `source` (a file name, or e.g. `--line`).
  ParseError(std::string source, long line, const std::string& what)
      : std::runtime_error(source + ":" + std::to_string(line) + ": " + what),
        line_(line) {}
  /// 1-based line number of the problem.
  long line() const { return line_; }

 private:
  long line_;
};

/// A token of the input as a message shows it: in single quotes, at most 24 characters (then
/// "..."), control and non-ASCII bytes as `\xNN`, so that no input can garble a terminal.
std::string quote_token(std::string_view token);

/// Parse an op: "ld", "st", "ldsm", "stsm", "cpasync", "atom" or "atominc" (to_string(Op) of each).
/// @return the message ("unknown op 'mov' (expected one of 'ld', 'st', ...)"), or nothing on
/// success.
std::optional<std::string> parse_op(std::string_view token, Op& out);

/// Parse a width in bytes, one of kLegalWidths. @return the message ("width 'x' is not a
/// number", "width 3 is not one of 1, 2, 4, 8, 16"), or nothing on success.
std::optional<std::string> parse_width(std::string_view token, int& out);

/// Whether `width` (already parsed) is legal for `op`. @return the message ("ldsm width 8 is not
/// one of 16"), or nothing when it is. The one wording of this refusal: `banklab explain`, the
/// access-line parser and the site's explorer all use it.
std::optional<std::string> check_width(Op op, int width);

/// Parse a mask: up to 8 hexadecimal digits, with an optional `0x`. @return the message
/// ("mask '1ffffffff' is not a 32-bit hexadecimal number"), or nothing on success.
std::optional<std::string> parse_mask(std::string_view token, std::uint32_t& out);

/// Parse a TMA swizzle mode: "none", "32", "64" or "128" (bytes). @return the message ("TMA
/// swizzle '16' is not one of none, 32, 64, 128"), or nothing on success.
std::optional<std::string> parse_tma_swizzle(std::string_view token, TmaSwizzle& out);

/// The access as it reaches a tile that TMA wrote with swizzle `mode`, when its offsets are the
/// tile's bytes before the swizzle (rows tma_box_pitch() apart, the tile's base aligned to
/// tma_swizzle_period()): every lane's offset through tma_swizzled_offset(). The swizzle only
/// permutes 16-byte chunks, so an access aligned to its width stays legal.
WarpAccess with_tma_swizzle(WarpAccess a, TmaSwizzle mode);

/// Parse `op width mask off0 ... off31` (op as parse_op reads it, width legal for the op, mask in hexadecimal
/// with optional `0x`, 32 decimal byte offsets) separated by spaces or tabs.
/// @return the error message, or nothing on success (then `out` holds a valid access).
std::optional<std::string> parse_access_line(std::string_view line, WarpAccess& out);

/// True for a line that holds nothing to parse: empty, blanks only, or a `#` comment.
bool is_blank_or_comment(std::string_view line);

/// Write an access in the format parse_access_line() reads.
std::string format_access_line(const WarpAccess& a);

/// One measured pattern.
struct Measurement {
  std::string id;          ///< pattern name
  WarpAccess access;       ///< the instruction
  int wavefronts = 0;      ///< measured l1tex shared wavefronts
  int bank_conflicts = 0;  ///< measured l1tex shared bank-conflict counter
  int instructions = 0;    ///< measured shared instructions executed (1)
  std::string gpu;         ///< GPU name, when the file has a `gpu` column
  long line = 0;           ///< line in the file
};

/// Read a measurement CSV with header
/// `id,op,width,mask,offsets,wavefronts,bank_conflicts,instructions[,gpu]`.
/// @throws ParseError naming the line and the problem.
std::vector<Measurement> read_measurements(std::istream& in, const std::string& source_name);

/// Read a measurement CSV from a file. @throws ParseError (also when the file cannot be opened).
std::vector<Measurement> read_measurements_file(const std::string& path);

/// One measured cp.async whose lanes copy from given global byte offsets (kNoSource: the lane
/// reads nothing, a zero fill), as summarize_async_copy() takes them.
struct SourcedCopy {
  std::string id;                                 ///< pattern name
  WarpAccess access;                              ///< the copy (op cpasync)
  std::array<std::uint64_t, kWarpSize> source{};  ///< lane i's global byte offset, or kNoSource
  int wavefronts = 0;                             ///< measured shared wavefronts
  long line = 0;                                  ///< line in the file
};

/// Read a CSV of such copies, header `id,width,mask,offsets,sources,wavefronts`, `sources` being
/// 32 byte offsets or `z` (common/data/probe_h200_cpasync_zfill.csv).
/// @throws ParseError naming the line and the problem.
std::vector<SourcedCopy> read_sourced_copies(std::istream& in, const std::string& source_name);

/// Read such a CSV from a file. @throws ParseError (also when the file cannot be opened).
std::vector<SourcedCopy> read_sourced_copies_file(const std::string& path);

}  // namespace banklab
