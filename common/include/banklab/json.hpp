/// @file json.hpp
/// @brief The bank explorer's JSON string escaper (docs/explorer, built by em++ with nothing but the
///        course's own headers). The judge's verdicts and the tracer's reports are written and read
///        with nlohmann::json (Debian's nlohmann-json3-dev), the project's JSON library.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace banklab {

/// `s` as a JSON string literal, quotes included: `"` and backslash escaped; newline, carriage
/// return and tab as `\n`, `\r`, `\t`; every other control character as `\u00XX`; all other
/// bytes as they are (UTF-8 passes through).
inline std::string json_quote(std::string_view s) {
  std::string o = "\"";
  for (const unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

}  // namespace banklab
