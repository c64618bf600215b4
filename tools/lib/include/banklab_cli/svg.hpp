/// @file svg.hpp
/// @brief `banklab explain --svg`: the same picture as the terminal, as a self-contained,
///        deterministic SVG figure (same input, same bytes) for the course site.
#pragma once

#include <string>
#include <string_view>

#include "banklab/model.hpp"

namespace banklab::cli {

/// Escape text for XML character data and attribute values; bytes that are not valid UTF-8
/// and control characters XML 1.0 forbids are replaced by '?'.
std::string xml_escape(std::string_view text);

/// The SVG document (with XML declaration). `title` may be empty: then the access is the title.
std::string render_svg(const WarpAccess& a, const Analysis& r, std::string_view title);

}  // namespace banklab::cli
