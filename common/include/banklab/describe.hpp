/// @file describe.hpp
/// @brief The model's answer in words: one library for `banklab explain`, `banklab compare`,
///        `banklab trace` and the grader, so that they all say the same thing the same way.
///
/// What is here states facts of one Analysis (counts, grouping, which lanes asked which bank
/// for which different words) and builds the `banklab explain` command that draws an access.
/// What to *do* about a conflict (a hint) depends on the lab and is not here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "banklab/model.hpp"

namespace banklab {

/// "lanes 0-15" for a group (its whole lane range, active or not).
std::string group_lanes(const Group& group);

/// A list of lanes with runs compressed: "lane 3", "lanes 0-15", "lanes 0, 2, 5", "lanes 4, 5";
/// after `max_items` items ", ...". `lanes` ascending.
std::string lane_list(const std::vector<int>& lanes, std::size_t max_items = 12);

/// One different word a bank must deliver to its group, and the lanes that asked for it.
struct WordRequest {
  std::uint32_t word = 0;   ///< 4-byte word index (byte offset / 4)
  std::vector<int> lanes;   ///< the lanes of the group that asked for it, ascending
};

/// The worst bank of one group that takes more than its minimum.
struct BankConflict {
  int group = 0;                    ///< index into Analysis::groups
  int bank = 0;                     ///< the group's worst bank (Group::worst_bank)
  int wavefronts = 0;               ///< wavefronts of the group (= words.size())
  int minimum = 0;                  ///< minimum of the group
  std::vector<WordRequest> words;   ///< the different words, in the order the bank serves them
  std::vector<int> lanes;           ///< every lane that asked this bank, ascending
};

/// For every group above its minimum (in lane order), its worst bank and the different words
/// that bank must serve, with the lanes that asked for each. Empty when conflict-free.
std::vector<BankConflict> bank_conflicts(const Analysis& r);

/// The summary line, without a newline:
/// "N wavefronts, minimum M (K extra); grouping: G[ (merged)]. <why>".
std::string summary_line(const Analysis& r);

/// How much describe() shows.
struct DescribeOptions {
  int max_banks = 2;   ///< conflicting groups shown (the worst bank of each)
  int max_words = 6;   ///< words listed per bank before " ..."
  int max_lanes = 4;   ///< lanes listed per word before ",..."
};

/// The grader's explanation: summary_line() and a newline, then for the worst bank of each
/// conflicting group (at most `max_banks`) a line
/// "  lanes 0-31: bank 0 must serve 32 different words: word 0 (lane 0), word 32 (lane 1), ...".
/// Ends with a newline.
std::string describe(const Analysis& r, const DescribeOptions& options = {});

/// `s` as one shell word that a POSIX shell reads back as `s`: unchanged when it holds only
/// letters, digits, underscore, minus, dot, slash, colon and plus (no shell treats them
/// specially), else in single quotes (a single quote inside becomes quote, backslash, quote,
/// quote). The empty string gives two single quotes.
std::string shell_quote(std::string_view s);

/// The command that draws this access, pasteable into a shell as printed:
/// `<banklab_path> explain --line "ld 4 ffffffff 0 4 ..."`, with `banklab_path` quoted by
/// shell_quote() (the grader passes the absolute path of the built `banklab`).
std::string explain_command(const WarpAccess& access, const std::string& banklab_path = "banklab");

}  // namespace banklab
