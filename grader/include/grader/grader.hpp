// The CPU tier of the judge: checks a lab's answers (the probe's tables, see answers.hpp)
// against the reference model, with failure messages that teach: which lanes hit which bank at
// which words, wavefronts against the minimum, what to try, and the banklab command that draws
// it, as a line that pastes into a shell.
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "banklab/model.hpp"
#include "grader/answers.hpp"
#include "grader/check.hpp"

namespace grader_desc {
struct Question;  // grader/lab_description.hpp
}

namespace grader {

using banklab::Op;
using banklab::WarpAccess;

/// One warp-wide shared-memory instruction of a lab kernel, replayed on the CPU.
struct Instruction {
  std::string what;     ///< e.g. "warp 0, j = 8: load tile[lane][8] (column read)"
  WarpAccess access;
  std::string invalid;  ///< why the offsets cannot be a shared-memory access ("" when they can)
};

/// An instruction from the grader's own formula `byte_offset(lane)` (predictions, oracles).
template <class F>
Instruction instruction(std::string what, Op op, int width, F byte_offset, std::uint32_t mask = 0xffffffffu) {
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

/// Instruction number `flat` of an access table (the kernel's access as the student's file
/// describes it), named `what`.
Instruction from_table(const AccessTable& table, int flat, std::string what);

/// Every instruction of an access table, each named by `name(index)`.
std::vector<Instruction> all_of(const AccessTable& table,
                                const std::function<std::string(const std::vector<int>&)>& name);

/// Wavefronts the model predicts for all `op` instructions of a list.
long long total_wavefronts(const std::vector<Instruction>& list, Op op);

/// The absolute path of the built `banklab` command, quoted for a POSIX shell when needed.
std::string banklab_command();
/// `banklab explain --line "..."` for this access with the built banklab's path: pastes into a
/// shell as printed (banklab::explain_command).
std::string explain_command(const WarpAccess& a);
/// A few lines that show where the wavefronts went (banklab::describe).
std::string describe(const banklab::Analysis& r, int max_banks = 2);

/// The one rule of what a message may print about an access (issue 44, "no prediction's answer is
/// shown before the student's own work"): the predictions of the graded variant that ask about
/// `a` ("kA and kB"; "": none). Those are the `asked` of every LabNNLayout test (lab.toml's
/// at_minimum asked, [variants.asked] for variants >= 1: generated_tests.hpp's AtMinimum, registered
/// with its lab) one of whose warp instructions, as the student's access functions give them (the
/// probe's tables), has a's pattern (same_pattern). A message about such an access states neither
/// its wavefronts nor its minimum, nor prints a command that counts them (left_to_predictions).
std::string asked_about(const WarpAccess& a);

/// `list` ("kA and kB") with the names of `more` it lacks added, in order.
std::string merged_names(std::string list, const std::string& more);

/// The same lanes' pattern, which the model counts alike: the same width and mask, and every
/// active lane's offset apart by one constant, a multiple of the width (another column or base).
bool same_pattern(const WarpAccess& a, const WarpAccess& b);

/// What a message says of an access that predictions ask about (`asked`, from asked_about or a
/// test's own `asked`), after naming it: that it takes more wavefronts than its minimum, that how
/// many is the predictions' to work out, then where its lanes collide (banks and words).
std::string left_to_predictions(const banklab::Analysis& r, const std::string& asked);

/// The command with which a student checks a prediction with the model: the access's op and width
/// (and TMA mode), the lane expression left for the student to write.
std::string self_check_command(const std::string& op, int width, const std::string& tma_swizzle = "");

/// Passes when the instruction takes the model's minimum number of wavefronts.
::testing::AssertionResult AtMinimumWavefronts(const Instruction& in, const std::string& hint = "");

/// Passes when every instruction of the list is at the minimum. On failure: how many of how
/// many are not, the worst one in detail, the hint and the command that draws it. `asked` names
/// the predictions that ask about this access ("kA and kB"): then the message states neither its
/// wavefronts nor its minimum (the banks and words that conflict, and the prediction names,
/// instead) and the command is the self-check with the student's own expression (issue 44).
::testing::AssertionResult AllAtMinimumWavefronts(const std::vector<Instruction>& list, const std::string& hint = "",
                                                  const std::string& asked = "");

/// Passes when the instruction takes exactly `expected` wavefronts.
::testing::AssertionResult TakesWavefronts(const Instruction& in, int expected, const std::string& hint = "");

/// Passes when a prediction equals the model's wavefronts for `in`. Never gives the number away.
::testing::AssertionResult PredictionMatches(const char* name, long long predicted, const Instruction& in,
                                             const std::string& hint = "", const std::string& tma_swizzle = "");

/// Same, for a prediction that is a plain number (a bank, a word, a byte count).
::testing::AssertionResult ValuePredictionMatches(const char* name, long long predicted, long long truth,
                                                  const std::string& question);

/// Passes when index_of(e) for e in [0, count) puts every element at its own place inside
/// [0, capacity). index_of returns nothing for an element whose place the probe could not
/// give. `how_to_fix` ends the message of a collision.
::testing::AssertionResult IsInBoundsAndOneToOne(const std::string& layout, int count, long long capacity,
                                                 const std::function<std::optional<long long>(int)>& index_of,
                                                 const std::string& element_name, const std::string& how_to_fix);

/// A layout function of two arguments (tile_index(row, col), chunk_offset(row, chunk)), checked
/// in its own terms: every value over the box the probe tabulated inside [0, capacity), no two
/// arguments at one place (value / unit: 16 for a byte offset of 16-byte chunks). Messages name the
/// call and its value (`tile_index(31, 1) = 1024, outside [0, 1024)`) and end with a Try line.
struct LayoutFunction {
  std::string name;           ///< "tile_index"
  const Table* table;         ///< its values (answers().table(name))
  int rows, cols;             ///< the arguments checked: [0, rows) x [0, cols)
  long long capacity;         ///< values must lie in [0, capacity)
  std::string capacity_what;  ///< what the bound is, in words ("kTileFloats, the tile's 32 x 32 floats")
  std::string bounds_try;     ///< the Try line of a value outside
  std::string collision_try;  ///< the Try line of two arguments at one place
  long long unit = 1;         ///< one place is `unit` values (16: a 16-byte chunk of byte offsets)
};
::testing::AssertionResult FunctionIsInBoundsAndOneToOne(const LayoutFunction& f);

/// Passes when the student's answer to a question of the lab's description (its predict::
/// constant) is right: the model's wavefronts of the question's access, its value, its
/// wavefronts above the minimum, or the smallest x whose access is conflict-free, as the question
/// asks (docs/dev/LAB_CONTRACT.md, "The lab's description"). Never gives the answer away.
::testing::AssertionResult AnswersQuestion(const grader_desc::Question& q);

/// Without the answers (the student release), AnswersQuestion checks a prediction's form only:
/// what its test says after that, as it is skipped.
inline constexpr const char* kGradedByTheInstructor =
    "this copy of the course has no answers (they stay with your instructor): your prediction has the right form, and "
    "your instructor's grading checks its value. Check it yourself with the model (banklab explain; the handout shows "
    "how).";

/// The prediction named `name` of the student's file.
inline long long prediction(const char* name) { return answers().prediction(name); }

}  // namespace grader
