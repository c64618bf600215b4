// The CPU tier of the grader: checks a lab's access function against the reference model and
// writes failure messages that teach (which lanes hit which bank at which words, wavefronts
// against the minimum, what to try, and the banklab command that draws it).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "banklab/model.hpp"
#include "banklab/pattern_io.hpp"

/// Check a grader result and report only its message: EXPECT_TRUE(f(...)) would first echo the
/// source expression, hint strings included, before the lines a student needs. More text may be
/// streamed after it, as with EXPECT_TRUE.
#define BANKLAB_EXPECT(result)                                          \
  switch (0)                                                            \
  case 0:                                                               \
  default:                                                              \
    if (const ::testing::AssertionResult banklab_result_ = (result)) {  \
    } else                                                              \
      ADD_FAILURE() << banklab_result_.message()

/// As BANKLAB_EXPECT, but ends the test on failure (as ASSERT_TRUE).
#define BANKLAB_ASSERT(result)                                          \
  switch (0)                                                            \
  case 0:                                                               \
  default:                                                              \
    if (const ::testing::AssertionResult banklab_result_ = (result)) {  \
    } else                                                              \
      FAIL() << banklab_result_.message()

namespace grader {

using banklab::Op;
using banklab::WarpAccess;

/// One warp-wide shared-memory instruction of a lab kernel, replayed on the CPU.
struct Instruction {
  std::string what;  ///< e.g. "warp 0: load tile[c][r] (column read)"
  WarpAccess access;
};

/// Build an instruction from a per-lane byte offset: `byte_offset(lane)`.
template <class F>
Instruction instruction(std::string what, Op op, int width, F byte_offset,
                        std::uint32_t mask = 0xffffffffu) {
  Instruction in;
  in.what = std::move(what);
  in.access.op = op;
  in.access.width = width;
  in.access.mask = mask;
  for (int lane = 0; lane < banklab::kWarpSize; ++lane)
    in.access.offset[static_cast<std::size_t>(lane)] =
        ((mask >> lane) & 1u) ? static_cast<std::uint32_t>(byte_offset(lane)) : 0u;
  return in;
}

/// Wavefronts the model predicts for all `op` instructions of a list (e.g. every warp of a
/// kernel launch), for comparison with Nsight Compute's counters.
inline long long total_wavefronts(const std::vector<Instruction>& list, Op op) {
  long long n = 0;
  for (const Instruction& in : list)
    if (in.access.op == op) n += banklab::count_wavefronts(in.access);
  return n;
}

/// The command that draws this access in the terminal.
inline std::string explain_command(const WarpAccess& a) {
  return "banklab explain --line \"" + banklab::format_access_line(a) + "\"";
}

/// A few lines that show where the wavefronts went: for the worst bank of each group that
/// conflicts, which lanes asked it for which different words.
inline std::string describe(const banklab::Analysis& r, int max_banks = 2) {
  std::ostringstream os;
  os << r.wavefronts << " wavefronts, minimum " << r.minimum << " (" << r.conflicts()
     << " extra); grouping: " << banklab::to_string(r.grouping) << (r.merged ? " (merged)" : "")
     << ". " << r.why << "\n";
  int shown = 0;
  for (std::size_t gi = 0; gi < r.groups.size() && shown < max_banks; ++gi) {
    const banklab::Group& g = r.groups[gi];
    if (g.wavefronts <= g.minimum || g.worst_bank < 0) continue;
    // words the worst bank served, with the lanes that wanted each
    std::map<std::uint32_t, std::vector<int>> lanes_of_word;
    for (const banklab::Wavefront& w : r.wavefront_detail) {
      if (w.group != static_cast<int>(gi)) continue;
      for (const banklab::LaneWord& x : w.served)
        if (x.bank == g.worst_bank) lanes_of_word[x.word].push_back(x.lane);
    }
    os << "  lanes " << g.first_lane << "-" << g.first_lane + g.lane_count - 1 << ": bank "
       << g.worst_bank << " must serve " << lanes_of_word.size() << " different words:";
    int n = 0;
    for (const auto& [word, lanes] : lanes_of_word) {
      if (n++ == 6) {
        os << " ...";
        break;
      }
      os << (n > 1 ? ", word " : " word ") << word << " (lane";
      if (lanes.size() > 1) os << "s";
      for (std::size_t k = 0; k < lanes.size() && k < 4; ++k) os << (k ? "," : " ") << lanes[k];
      if (lanes.size() > 4) os << ",...";
      os << ")";
    }
    os << "\n";
    ++shown;
  }
  return os.str();
}

/// Passes when the instruction takes the model's minimum number of wavefronts.
/// On failure: what the instruction is, the colliding lanes and words, the count against the
/// minimum, the hint, and the banklab command that draws it.
inline ::testing::AssertionResult AtMinimumWavefronts(const Instruction& in,
                                                      const std::string& hint = "") {
  if (auto err = banklab::validate(in.access))
    return ::testing::AssertionFailure() << in.what << ": not a valid shared-memory access: " << *err;
  const banklab::Analysis r = banklab::analyze(in.access);
  if (r.wavefronts == r.minimum) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure();
  f << in.what << " is not conflict-free: " << describe(r);
  if (!hint.empty()) f << "  Try: " << hint << "\n";
  f << "  See it: " << explain_command(in.access);
  return f;
}

/// Passes when the instruction takes exactly `expected` wavefronts (for labs whose target is
/// not "conflict-free", e.g. a deliberate broadcast).
inline ::testing::AssertionResult TakesWavefronts(const Instruction& in, int expected,
                                                  const std::string& hint = "") {
  if (auto err = banklab::validate(in.access))
    return ::testing::AssertionFailure() << in.what << ": not a valid shared-memory access: " << *err;
  const banklab::Analysis r = banklab::analyze(in.access);
  if (r.wavefronts == expected) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure();
  f << in.what << " should take " << expected << " wavefront(s) but takes " << describe(r);
  if (!hint.empty()) f << "  Try: " << hint << "\n";
  f << "  See it: " << explain_command(in.access);
  return f;
}

/// Passes when a student's prediction equals the model's answer. The failure message does not
/// give the number away: it says how to look.
inline ::testing::AssertionResult PredictionMatches(const char* name, int predicted,
                                                    const Instruction& in, const std::string& hint = "") {
  const int truth = banklab::count_wavefronts(in.access);
  if (predicted == truth) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure();
  f << "prediction " << name << " = " << predicted << " is not what the bank model says for "
    << in.what << ".";
  if (predicted <= 0) f << " (It still holds the stub's placeholder: replace it with your answer.)";
  f << "\n";
  if (!hint.empty()) f << "  Think: " << hint << "\n";
  f << "  Check yourself: " << explain_command(in.access);
  return f;
}

/// Same, for a prediction that is a plain number (a bank, a word, a byte count).
inline ::testing::AssertionResult ValuePredictionMatches(const char* name, long predicted, long truth,
                                                         const std::string& question) {
  if (predicted == truth) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "prediction " << name << " = " << predicted << " is not right: " << question
         << (predicted < 0 ? " (It still holds the stub's placeholder.)" : "");
}

/// Passes when `index(e)` for e in [0, count) puts every element at its own place inside
/// [0, capacity): the layout is in bounds and a bijection onto its image.
template <class IndexOf>
::testing::AssertionResult IsInBoundsAndOneToOne(const char* layout, int count, long capacity,
                                                 IndexOf index_of_element,
                                                 const char* element_name = "element") {
  std::map<long, int> owner;
  for (int e = 0; e < count; ++e) {
    const long at = static_cast<long>(index_of_element(e));
    if (at < 0 || at >= capacity)
      return ::testing::AssertionFailure()
             << layout << ": " << element_name << " " << e << " is stored at index " << at
             << ", outside the array [0, " << capacity << ")";
    auto [it, fresh] = owner.emplace(at, e);
    if (!fresh)
      return ::testing::AssertionFailure()
             << layout << ": " << element_name << "s " << it->second << " and " << e
             << " are both stored at index " << at
             << ": one overwrites the other. A layout must give every element its own place "
                "(for an XOR swizzle: XOR the column with a function of the row only).";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace grader
