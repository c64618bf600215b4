/// @file predict.hpp
/// @brief `banklab predict`: many accesses, one per line, one answer per line, fast.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "banklab/model.hpp"

namespace banklab::cli {

/// Lines longer than this are rejected (a valid access line has a few hundred characters).
inline constexpr std::size_t kMaxLineBytes = 1u << 20;

/// Reads a stream line by line through a large buffer, without allocating per line.
class LineReader {
 public:
  LineReader(std::FILE* in, std::string source);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line without its '\n' (and without a trailing '\r'); false at the end.
  /// The view stays valid until the next call.
  /// @throws banklab::ParseError for a line longer than kMaxLineBytes or a read error.
  bool next(std::string_view& line);
  /// 1-based number of the line last returned.
  long line_number() const { return line_; }
  const std::string& source() const { return source_; }

 private:
  std::FILE* in_;
  std::string source_;
  char* buf_ = nullptr;
  std::size_t cap_ = 0, begin_ = 0, end_ = 0, scanned_ = 0;
  bool eof_ = false;
  long line_ = 0;
};

/// Appends "W min=M conflicts=C groups=G merged=yes|no\n" for `a` to `out`; at most
/// kPredictionMax characters. Returns the new end.
inline constexpr std::size_t kPredictionMax = 80;
char* format_prediction(const WarpAccess& a, char* out) noexcept;

/// Counts of a predict run.
struct PredictStats {
  long accesses = 0;  ///< lines that held an access
  long lines = 0;     ///< lines read
};

/// Reads `in` (called `source` in messages), writes one prediction line per access to `out`.
/// With `swizzle` other than None every access's offsets are those of a tile TMA wrote with that
/// swizzle, before it (banklab::with_tma_swizzle()).
/// @throws banklab::ParseError naming the line at the first bad line, or when the input holds
///         no access at all. What was predicted before the bad line has been written.
PredictStats predict_stream(std::FILE* in, const std::string& source, std::FILE* out,
                            TmaSwizzle swizzle = TmaSwizzle::None);

}  // namespace banklab::cli
