// Parsers for the predict line format and the measurement CSV format.
#include "banklab/pattern_io.hpp"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>

namespace banklab {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Next whitespace-separated token of `s` starting at `pos`; empty when none is left.
std::string_view next_token(std::string_view s, std::size_t& pos) {
  while (pos < s.size() && is_space(s[pos])) ++pos;
  const std::size_t start = pos;
  while (pos < s.size() && !is_space(s[pos])) ++pos;
  return s.substr(start, pos - start);
}

template <typename T>
bool parse_number(std::string_view tok, T& value, int base = 10) {
  if (tok.empty()) return false;
  const char* end = tok.data() + tok.size();
  auto [p, ec] = std::from_chars(tok.data(), end, value, base);
  return ec == std::errc() && p == end;
}

std::optional<std::string> parse_fields(std::string_view op_tok, std::string_view width_tok,
                                        std::string_view mask_tok, WarpAccess& out) {
  if (auto err = parse_op(op_tok, out.op)) return err;
  if (auto err = parse_width(width_tok, out.width)) return err;
  if (auto err = check_width(out.op, out.width)) return err;
  return parse_mask(mask_tok, out.mask);
}

}  // namespace

std::optional<std::string> check_width(Op op, int width) {
  if (is_legal_width(op, width)) return std::nullopt;
  return std::string(to_string(op)) + " width " + std::to_string(width) + " is not one of " + legal_widths_text(op);
}

std::string quote_token(std::string_view tok) {
  constexpr std::size_t kMax = 24;  // never echo a 10 MB token back
  std::string s = "'";
  for (char c : tok.substr(0, kMax)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {  // never echo control bytes (or broken UTF-8) to a terminal
      static const char hex[] = "0123456789abcdef";
      s += "\\x";
      s += hex[u >> 4];
      s += hex[u & 15];
    } else {
      s += c;
    }
  }
  if (tok.size() > kMax) s += "...";
  return s + "'";
}

std::optional<std::string> parse_op(std::string_view tok, Op& out) {
  for (Op op : kAllOps) {
    if (tok == to_string(op)) {
      out = op;
      return std::nullopt;
    }
  }
  std::string names;
  for (Op op : kAllOps) names += std::string(names.empty() ? "" : ", ") + "'" + to_string(op) + "'";
  return "unknown op " + quote_token(tok) + " (expected one of " + names + ")";
}

std::optional<std::string> parse_width(std::string_view tok, int& out) {
  int width = 0;
  if (!parse_number(tok, width)) return "width " + quote_token(tok) + " is not a number";
  if (!is_legal_width(width))
    return "width " + std::to_string(width) + " is not one of " + legal_widths_text();
  out = width;
  return std::nullopt;
}

std::optional<std::string> parse_mask(std::string_view tok, std::uint32_t& out) {
  std::string_view m = tok;
  if (m.size() > 2 && m[0] == '0' && (m[1] == 'x' || m[1] == 'X')) m.remove_prefix(2);
  std::uint32_t mask = 0;
  if (m.size() > 8 || !parse_number(m, mask, 16))
    return "mask " + quote_token(tok) + " is not a 32-bit hexadecimal number";
  out = mask;
  return std::nullopt;
}

std::optional<std::string> parse_tma_swizzle(std::string_view tok, TmaSwizzle& out) {
  const std::pair<std::string_view, TmaSwizzle> modes[] = {
      {"none", TmaSwizzle::None}, {"32", TmaSwizzle::Bytes32}, {"64", TmaSwizzle::Bytes64}, {"128", TmaSwizzle::Bytes128}};
  for (const auto& [name, mode] : modes)
    if (tok == name) {
      out = mode;
      return std::nullopt;
    }
  return "TMA swizzle " + quote_token(tok) + " is not one of none, 32, 64, 128";
}

WarpAccess with_tma_swizzle(WarpAccess a, TmaSwizzle mode) {
  for (int i = 0; i < kWarpSize; ++i)
    if ((a.mask >> i) & 1u) a.offset[static_cast<std::size_t>(i)] = tma_swizzled_offset(mode, a.offset[static_cast<std::size_t>(i)]);
  return a;
}

bool is_blank_or_comment(std::string_view line) {
  for (char c : line) {
    if (c == '#') return true;
    if (!is_space(c)) return false;
  }
  return true;
}

std::optional<std::string> parse_access_line(std::string_view line, WarpAccess& out) {
  std::size_t pos = 0;
  const std::string_view op = next_token(line, pos);
  const std::string_view width = next_token(line, pos);
  const std::string_view mask = next_token(line, pos);
  if (mask.empty())
    return "expected 'op width mask' and 32 offsets, found only " +
           std::to_string(op.empty() ? 0 : width.empty() ? 1 : 2) + " field(s)";
  if (auto err = parse_fields(op, width, mask, out)) return err;
  const std::size_t n = line.size();
  const char* s = line.data();
  for (int i = 0; i < kWarpSize; ++i) {
    // Fast path for the usual token, up to 10 plain digits then a blank or the end; anything
    // else goes through the general token parser (which also makes the message).
    while (pos < n && is_space(s[pos])) ++pos;
    const std::size_t start = pos;
    std::uint64_t v = 0;
    while (pos < n && pos - start < 10 && s[pos] >= '0' && s[pos] <= '9')
      v = v * 10 + static_cast<std::uint64_t>(s[pos++] - '0');
    if (pos > start && (pos == n || is_space(s[pos])) && v <= 0xffffffffu) {
      out.offset[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(v);
      continue;
    }
    pos = start;
    const std::string_view tok = next_token(line, pos);
    if (tok.empty())
      return "expected 32 offsets after the mask, found " + std::to_string(i);
    std::uint32_t off = 0;
    if (!parse_number(tok, off))
      return "offset of lane " + std::to_string(i) + " " + quote_token(tok) +
             " is not a non-negative decimal number";
    out.offset[static_cast<std::size_t>(i)] = off;
  }
  if (!next_token(line, pos).empty()) return "more than 32 offsets after the mask";
  if (is_valid(out)) return std::nullopt;
  return validate(out);
}

std::string format_access_line(const WarpAccess& a) {
  char head[32];
  std::snprintf(head, sizeof head, "%s %d %08x", to_string(a.op), a.width, a.mask);
  std::string s = head;
  for (std::uint32_t off : a.offset) {
    s += ' ';
    s += std::to_string(off);
  }
  return s;
}

std::vector<Measurement> read_measurements(std::istream& in, const std::string& source) {
  std::vector<Measurement> rows;
  std::string line;
  long n = 0;
  bool has_gpu = false;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (n == 1) {
      if (line.rfind("id,op,width,mask,offsets,wavefronts,bank_conflicts,instructions", 0) != 0)
        throw ParseError(source, n,
                         "header must start with "
                         "'id,op,width,mask,offsets,wavefronts,bank_conflicts,instructions'");
      has_gpu = line.find(",gpu") != std::string::npos;
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) f.push_back(cell);
    const std::size_t want = has_gpu ? 9 : 8;
    if (f.size() != want)
      throw ParseError(source, n,
                       "expected " + std::to_string(want) + " comma-separated fields, found " +
                           std::to_string(f.size()));
    Measurement m;
    m.id = f[0];
    m.line = n;
    if (auto err = parse_access_line(f[1] + " " + f[2] + " " + f[3] + " " + f[4], m.access))
      throw ParseError(source, n, m.id + ": " + *err);
    if (!parse_number(std::string_view(f[5]), m.wavefronts) ||
        !parse_number(std::string_view(f[6]), m.bank_conflicts) ||
        !parse_number(std::string_view(f[7]), m.instructions))
      throw ParseError(source, n, m.id + ": wavefronts, bank_conflicts and instructions must be integers");
    if (has_gpu) m.gpu = f[8];
    rows.push_back(std::move(m));
  }
  if (n == 0) throw ParseError(source, 1, "empty file: expected a CSV header");
  return rows;
}

std::vector<Measurement> read_measurements_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ParseError(path, 0, "cannot open file");
  return read_measurements(in, path);
}

std::vector<SourcedCopy> read_sourced_copies(std::istream& in, const std::string& path) {
  std::vector<SourcedCopy> rows;
  std::string line;
  long n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (n == 1) {
      if (line != "id,width,mask,offsets,sources,wavefronts")
        throw ParseError(path, n, "header must be 'id,width,mask,offsets,sources,wavefronts'");
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    if (f.size() != 6)
      throw ParseError(path, n, "expected 6 comma-separated fields, found " + std::to_string(f.size()));
    SourcedCopy c;
    c.id = f[0];
    c.line = n;
    if (auto err = parse_access_line("cpasync " + f[1] + " " + f[2] + " " + f[3], c.access))
      throw ParseError(path, n, c.id + ": " + *err);
    std::stringstream srcs(f[4]);
    std::string tok;
    for (std::uint64_t& s : c.source) {
      if (!(srcs >> tok)) throw ParseError(path, n, c.id + ": expected 32 sources");
      std::uint64_t v = 0;
      if (tok == "z") v = kNoSource;
      else if (!parse_number(std::string_view(tok), v)) throw ParseError(path, n, c.id + ": source " + quote_token(tok) + " is neither a byte offset nor z");
      s = v;
    }
    if (srcs >> tok) throw ParseError(path, n, c.id + ": more than 32 sources");
    if (!parse_number(std::string_view(f[5]), c.wavefronts)) throw ParseError(path, n, c.id + ": wavefronts must be an integer");
    rows.push_back(std::move(c));
  }
  if (n == 0) throw ParseError(path, 1, "empty file: expected a CSV header");
  return rows;
}

std::vector<SourcedCopy> read_sourced_copies_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ParseError(path, 0, "cannot open file");
  return read_sourced_copies(in, path);
}

}  // namespace banklab
