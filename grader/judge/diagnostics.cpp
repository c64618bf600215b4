// The compiler's messages about the student's own file (diagnostics.hpp): each line scanned once,
// by hand, so that a line of any length (a 300,000-character comment, a long #error) costs its
// length and nothing more.
#include "diagnostics.hpp"

#include <sstream>

namespace judge {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Digits from `i` on: how many (0: none).
std::size_t digits(std::string_view s, std::size_t i) {
  std::size_t j = i;
  while (j < s.size() && is_digit(s[j])) ++j;
  return j - i;
}

// `FILE(LINE)` or `FILE:LINE[:COL]`, then an optional ':' or ',', then white space or the end,
// with FILE from `at` to the first ':' or '(' (not empty, not starting with white space).
std::string location_at(std::string_view s, std::size_t at) {
  if (at >= s.size() || is_space(s[at]) || s[at] == ':' || s[at] == '(') return {};
  std::size_t e = at;
  while (e < s.size() && s[e] != ':' && s[e] != '(') ++e;
  if (e >= s.size()) return {};
  std::size_t i = e + 1;
  const std::size_t n = digits(s, i);
  if (n == 0) return {};
  i += n;
  if (s[e] == '(') {
    if (i >= s.size() || s[i] != ')') return {};
    ++i;
  } else if (i + 1 < s.size() && s[i] == ':' && is_digit(s[i + 1])) {
    i += 1 + digits(s, i + 1);  // the column
  }
  if (i < s.size() && (s[i] == ':' || s[i] == ',')) ++i;
  if (i < s.size() && !is_space(s[i])) return {};
  return std::string(s.substr(at, e - at));
}

// `FILE: In ...:` or `FILE: At ...:` (the heading of a function's or a scope's messages).
std::string heading(std::string_view s) {
  if (s.empty() || is_space(s[0]) || s[0] == ':') return {};
  const std::size_t e = s.find(':');
  if (e == std::string_view::npos) return {};
  const std::string_view rest = s.substr(e);
  if ((rest.compare(0, 5, ": In ") != 0 && rest.compare(0, 5, ": At ") != 0) || rest.size() < 6 || s.back() != ':')
    return {};
  return std::string(s.substr(0, e));
}

// A line of a compiler driver's own, about no source file and quoting none: gcc's "internal
// compiler error: File size limit exceeded signal terminated program as" (a file-size limit of the
// step), the linker's "in function ...", "ld returned 1 exit status", nvcc's "'cicc' died due to
// signal 9". It says what stopped the compile.
bool driver_line(std::string_view line) {
  for (std::string_view p : {"gcc: ", "g++: ", "c++: ", "cc1plus: ", "collect2: ", "/usr/bin/ld: ", "ld: ", "nvcc fatal",
                             "nvcc error"})
    if (line.compare(0, p.size(), p) == 0) return true;
  return false;
}

}  // namespace

std::string located_file(std::string_view line) {
  static constexpr std::string_view kIncluded = "In file included from ";
  if (line.compare(0, kIncluded.size(), kIncluded) == 0) {
    std::string f = location_at(line, kIncluded.size());
    if (!f.empty()) return f;
  }
  std::size_t w = 0;
  while (w < line.size() && is_space(line[w])) ++w;
  if (w > 0 && line.compare(w, 5, "from ") == 0) {
    std::string f = location_at(line, w + 5);
    if (!f.empty()) return f;
  }
  std::string f = location_at(line, 0);
  return f.empty() ? heading(line) : f;
}

std::string own_diagnostics(const std::string& log, const std::string& student_inside, const std::string& student_shown,
                            const std::string& probe_name, bool errors_expected) {
  std::ostringstream o;
  bool keep = false, kept_any = false;
  int dropped = 0;
  for (std::size_t a = 0; a < log.size();) {
    std::size_t b = log.find('\n', a);
    if (b == std::string::npos) b = log.size();
    const std::string_view line(log.data() + a, b - a);
    a = b + 1;
    const std::string file = located_file(line);
    const bool driver = file.empty() && driver_line(line);
    if (!file.empty()) keep = file == student_inside || file == probe_name;
    else if (driver) keep = true;  // this line alone: what follows it is no message about the file
    if (!keep) {
      ++dropped;
      continue;
    }
    std::string l(line);
    for (std::size_t p = 0; (p = l.find(student_inside, p)) != std::string::npos; p += student_shown.size())
      l.replace(p, student_inside.size(), student_shown);
    o << l << "\n";
    kept_any = true;
    if (driver) keep = false;
  }
  std::string s = o.str();
  if (dropped > 0)
    s += "(" + std::to_string(dropped) + " line(s) of the compiler's output about other files were left out: the judge shows "
         "only messages about your own file" +
         (!kept_any && errors_expected ? "; every error is in a file your file includes: check your #include lines" : "") + ")\n";
  return s;
}

bool has_line_directive(std::string_view src) {
  for (std::size_t a = 0; a < src.size();) {
    std::size_t i = a;
    while (i < src.size() && (src[i] == ' ' || src[i] == '\t')) ++i;
    if (i < src.size() && src[i] == '#') {
      ++i;
      while (i < src.size() && (src[i] == ' ' || src[i] == '\t')) ++i;
      if (src.compare(i, 4, "line") == 0 && i + 4 < src.size() && (src[i + 4] == ' ' || src[i + 4] == '\t')) return true;
      if (i < src.size() && is_digit(src[i])) return true;  // the GNU form: # 12 "name"
    }
    const std::size_t b = src.find('\n', a);
    if (b == std::string_view::npos) break;
    a = b + 1;
  }
  return false;
}

}  // namespace judge
