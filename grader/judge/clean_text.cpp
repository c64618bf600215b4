// Student text made safe to print and to record (clean_text.hpp): one linear pass, no pattern.
#include "clean_text.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>

#include "clean_text_rule.hpp"

namespace judge {
namespace {

// The length of the well-formed UTF-8 sequence at s[i] and its code point, or 0 when the byte
// there starts none (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF).
std::size_t utf8_at(std::string_view s, std::size_t i, char32_t& cp) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  std::size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (std::size_t k = 1; k < n; ++k) {
    const unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  const char32_t least = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
  if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Code points a terminal or a text view acts on: the rule's ranges (grader/judge/clean_text.toml:
// controls, format characters but the joiners, the line and paragraph separators).
bool acts_on(char32_t cp) {
  std::size_t lo = 0, hi = std::size(clean_rule::kEscaped);
  while (lo < hi) {  // the last range that starts at or before cp
    const std::size_t mid = (lo + hi) / 2;
    if (clean_rule::kEscaped[mid].from <= cp) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && cp <= clean_rule::kEscaped[lo - 1].to;
}

// Kept as it is: in a multi-line message, what the rule keeps (newline, tab); else whatever no range holds.
bool kept(char32_t cp, bool multiline) {
  if (multiline && ((cp == '\n' && clean_rule::kKeepNewline) || (cp == '\t' && clean_rule::kKeepTab))) return true;
  return !acts_on(cp);
}

// The rule's escapes: \n \r \t by name, below U+0080 \xNN, up to U+FFFF \uNNNN, above \UNNNNNNNN.
void escape(std::string& o, char32_t cp) {
  char b[16];
  if (cp == '\r') o += "\\r";
  else if (cp == '\t') o += "\\t";
  else if (cp == '\n') o += "\\n";
  else if (cp < 0x80) std::snprintf(b, sizeof b, "\\x%02x", static_cast<unsigned>(cp)), o += b;
  else if (cp <= 0xFFFF) std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(cp)), o += b;
  else std::snprintf(b, sizeof b, "\\U%08x", static_cast<unsigned>(cp)), o += b;
}

// Hands each piece of the cleaned text to `emit`, in order: a character kept as it is, the escape
// of one shown as an escape, the \xNN of a byte that is not UTF-8 (a CR dropped before a newline
// is none).
template <class Emit>
void each_piece(std::string_view text, bool keep_newlines, Emit&& emit) {
  std::string e;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_at(text, i, cp);
    e.clear();
    if (n == 0) {  // not UTF-8: the byte itself, as \xNN
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[i])));
      e = b;
      emit(std::string_view(e));
      i += 1;
      continue;
    }
    if (cp == '\r' && keep_newlines && clean_rule::kDropCrBeforeNewline && i + 1 < text.size() && text[i + 1] == '\n') {
      i += 1;  // a CR right before a newline (a file saved on Windows): dropped
      continue;
    }
    if (kept(cp, keep_newlines)) {
      emit(text.substr(i, n));
    } else {
      escape(e, cp);
      emit(std::string_view(e));
    }
    i += n;
  }
}

// The rule's marker of a cut (clean_text.toml), `n` its bytes left out.
std::string marker(std::size_t n, bool keep_newlines) {
  std::string m = keep_newlines ? clean_rule::kCutMarker : clean_rule::kCutMarkerOneLine;
  return m.replace(m.find("{n}"), 3, std::to_string(n));
}

// UTF-8 cut at a byte: a character the cut split is left out (at the end of a start, the start of an end).
void drop_split_end(std::string& s) {
  for (std::size_t back = 1; back <= 4 && back <= s.size(); ++back) {
    const unsigned char c = static_cast<unsigned char>(s[s.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back for its lead
    const std::size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (len > back) s.resize(s.size() - back);
    return;
  }
}
void drop_split_start(std::string& s) {
  std::size_t i = 0;
  while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  s.erase(0, i);
}

}  // namespace

std::string clean_text(std::string_view text, std::size_t max_bytes, bool keep_newlines) {
  std::size_t total = 0;  // the cleaned text's bytes
  each_piece(text, keep_newlines, [&](std::string_view p) { total += p.size(); });
  std::string o;
  if (total <= max_bytes) {
    o.reserve(total);
    each_piece(text, keep_newlines, [&](std::string_view p) { o.append(p); });
    return o;
  }
  // The rule's cut (clean_text.toml; Python's banklab.grading.cleantext.cut): its start and its end.
  const std::size_t mark = marker(total, keep_newlines).size();
  const std::size_t room = max_bytes > mark ? max_bytes - mark : 0;
  const std::size_t head = room * clean_rule::kCutHeadPercent / 100, tail_from = total - (room - head);
  std::string tail;
  std::size_t at = 0;
  each_piece(text, keep_newlines, [&](std::string_view p) {
    if (at < head) o.append(p.substr(0, std::min(p.size(), head - at)));
    if (at + p.size() > tail_from) tail.append(p.substr(tail_from > at ? tail_from - at : 0));
    at += p.size();
  });
  drop_split_end(o);
  drop_split_start(tail);
  const std::size_t left_out = total - o.size() - tail.size();
  return o + marker(left_out, keep_newlines) + tail;
}

bool is_clean(std::string_view text, bool newlines_allowed) {
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_at(text, i, cp);
    if (n == 0) return false;
    if (!kept(cp, newlines_allowed)) return false;
    i += n;
  }
  return true;
}

}  // namespace judge
