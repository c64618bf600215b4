/// @file explain_render.hpp
/// @brief What `banklab explain` draws: the bank-by-wavefront picture of one access, as text
///        for the terminal (optionally with ANSI colours) and the hint for the student.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "banklab/describe.hpp"
#include "banklab/model.hpp"

namespace banklab::cli {

/// One bank in one wavefront.
struct Cell {
  bool used = false;        ///< the bank delivers a word in this wavefront
  std::uint32_t word = 0;   ///< the word it delivers
  std::vector<int> lanes;   ///< the lanes that get it, ascending
  bool conflict = false;    ///< not the first distinct word this bank serves to its group
  bool broadcast = false;   ///< more than one lane gets this word
};

/// One wavefront: a row of the picture.
struct Row {
  int group = 0;        ///< index into Analysis::groups
  int in_group = 0;     ///< 0 for the group's first wavefront
  std::array<Cell, kNumBanks> cells;
};

/// The picture: every wavefront, in issue order.
std::vector<Row> layout(const Analysis& r);

/// "ld, 4-byte lanes, mask ffffffff" and the like.
std::string describe_access(const WarpAccess& a);

/// "32 wavefronts (minimum 1)".
std::string count_line(const Analysis& r);

/// "lanes 0-15" / "lane 3" / "lanes 0, 2, 5" (compressed ranges): banklab::lane_list.
using banklab::lane_list;

/// What to try next, in one or more sentences, for this access.
std::string hint_for(const WarpAccess& a, const Analysis& r);

struct RenderOptions {
  bool color = false;      ///< ANSI colours
  std::string title;       ///< printed first when not empty
};

/// The full terminal explanation (ends with a newline).
std::string render_explanation(const WarpAccess& a, const Analysis& r, const RenderOptions& opt = {});

}  // namespace banklab::cli
