// The CPU-tier checks of grader.hpp.
#include <unistd.h>

#include <cctype>
#include <map>

#include "banklab/describe.hpp"
#include "banklab/pattern_io.hpp"
#include "grader/grader.hpp"
#include "grader/lab_description.hpp"

#ifndef BANKLAB_CLI_PATH
#define BANKLAB_CLI_PATH "banklab"
#endif

namespace grader {

long long& checks() {
  static long long n = 0;
  return n;
}

Instruction from_table(const AccessTable& table, int flat, std::string what) {
  Instruction in;
  in.what = std::move(what);
  in.access.op = table.op;
  in.access.width = table.width;
  in.access.mask = 0xffffffffu;
  const long long* lanes = table.lanes(flat);
  for (int lane = 0; lane < banklab::kWarpSize; ++lane) {
    const long long off = lanes[lane];
    if ((off < 0 || off > 0xffffffffLL) && in.invalid.empty())
      in.invalid = "lane " + std::to_string(lane) + " accesses byte offset " + std::to_string(off) +
                   ", outside shared memory";
    in.access.offset[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(off);
  }
  if (in.invalid.empty())
    if (auto err = banklab::validate(in.access)) in.invalid = *err;
  return in;
}

std::vector<Instruction> all_of(const AccessTable& table,
                                const std::function<std::string(const std::vector<int>&)>& name) {
  std::vector<Instruction> out;
  std::vector<int> idx(table.dims.size(), 0);
  for (int flat = 0; flat < table.count(); ++flat) {
    out.push_back(from_table(table, flat, name(idx)));
    for (int k = static_cast<int>(idx.size()) - 1; k >= 0; --k) {
      if (++idx[static_cast<std::size_t>(k)] < table.dims[static_cast<std::size_t>(k)]) break;
      idx[static_cast<std::size_t>(k)] = 0;
    }
  }
  return out;
}

long long total_wavefronts(const std::vector<Instruction>& list, Op op) {
  long long n = 0;
  for (const Instruction& in : list)
    if (in.access.op == op && in.invalid.empty()) n += banklab::count_wavefronts(in.access);
  return n;
}

// The banklab CLI as a command that pastes into a shell as printed. A lab's own build (`cmake
// --workflow --preset labNN`) builds its judge alone: until the CLI is built too, the command
// builds it first (BANKLAB_CLI_PATH is <build>/tools/banklab).
std::string banklab_command() {
  const std::string path = BANKLAB_CLI_PATH;
  const std::string quoted = banklab::shell_quote(path);
  if (path.find('/') == std::string::npos || access(path.c_str(), X_OK) == 0) return quoted;
  std::string build = path.substr(0, path.rfind('/'));
  build = build.substr(0, build.rfind('/'));
  return "cmake --build " + banklab::shell_quote(build) + " --target banklab >/dev/null && " + quoted;
}

std::string explain_command(const WarpAccess& a) {
  return banklab_command() + " explain --line \"" + banklab::format_access_line(a) + "\"";
}

std::string describe(const banklab::Analysis& r, int max_banks) {
  banklab::DescribeOptions o;
  o.max_banks = max_banks;
  return banklab::describe(r, o);
}

namespace {
::testing::AssertionResult invalid(const Instruction& in) {
  return ::testing::AssertionFailure() << in.what << ": not a valid shared-memory access: " << in.invalid << ".";
}
void add_hint_and_command(::testing::AssertionResult& f, const Instruction& in, const std::string& hint) {
  if (!hint.empty()) f << "  Try: " << hint << "\n";
  f << "  See it: " << grader::explain_command(in.access);
}
}  // namespace

::testing::AssertionResult AtMinimumWavefronts(const Instruction& in, const std::string& hint) {
  if (!in.invalid.empty()) return invalid(in);
  const banklab::Analysis r = banklab::analyze(in.access);
  if (r.wavefronts == r.minimum) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure();
  f << in.what << " is not conflict-free: " << grader::describe(r);
  add_hint_and_command(f, in, hint);
  return f;
}

::testing::AssertionResult AllAtMinimumWavefronts(const std::vector<Instruction>& list, const std::string& hint) {
  int failing = 0, worst = -1, worst_excess = -1;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Instruction& in = list[i];
    if (!in.invalid.empty()) return invalid(in);
    const int excess = banklab::count_wavefronts(in.access) - banklab::minimum_wavefronts(in.access);
    if (excess == 0) continue;
    ++failing;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = static_cast<int>(i);
    }
  }
  if (failing == 0) return ::testing::AssertionSuccess();
  const Instruction& in = list[static_cast<std::size_t>(worst)];
  const banklab::Analysis r = banklab::analyze(in.access);
  auto f = ::testing::AssertionFailure();
  f << failing << " of " << list.size() << " warp instructions are not conflict-free. The worst, " << in.what
    << ", takes " << grader::describe(r);
  add_hint_and_command(f, in, hint);
  return f;
}

::testing::AssertionResult TakesWavefronts(const Instruction& in, int expected, const std::string& hint) {
  if (!in.invalid.empty()) return invalid(in);
  const banklab::Analysis r = banklab::analyze(in.access);
  if (r.wavefronts == expected) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure();
  f << in.what << " should take " << expected << " wavefront(s) but takes " << grader::describe(r);
  add_hint_and_command(f, in, hint);
  return f;
}

// The command a student runs to check a prediction with the model: the access's op and width,
// and the lane expression left for the student to write (printing the question's own access
// would draw the answer).
std::string self_check_command(const WarpAccess& a) {
  return std::string("write the byte address of lane's element as an expression of lane, then run\n    ") +
         banklab_command() + " explain '" + banklab::to_string(a.op) + " " + std::to_string(a.width) +
         " <your expression of lane>'";
}

::testing::AssertionResult PredictionMatches(const char* name, long long predicted, const Instruction& in,
                                             const std::string& hint) {
  const int truth = banklab::count_wavefronts(in.access);
  if (predicted == truth) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure();
  f << "prediction " << name << " = " << predicted << " is not what the bank model says for " << in.what << ".";
  if (predicted <= 0) f << " (It still holds the stub's placeholder: replace it with your answer.)";
  f << "\n";
  if (!hint.empty()) f << "  Think: " << hint << "\n";
  f << "  Check yourself: " << self_check_command(in.access);
  return f;
}

::testing::AssertionResult ValuePredictionMatches(const char* name, long long predicted, long long truth,
                                                  const std::string& question) {
  if (predicted == truth) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "prediction " << name << " = " << predicted << " is not right.\n  Think: "
                                       << question
                                       << (predicted < 0 ? "\n  (It still holds the stub's placeholder.)" : "");
}

::testing::AssertionResult IsInBoundsAndOneToOne(const std::string& layout, int count, long long capacity,
                                                 const std::function<std::optional<long long>(int)>& index_of,
                                                 const std::string& element_name, const std::string& how_to_fix) {
  std::map<long long, int> owner;
  for (int e = 0; e < count; ++e) {
    const std::optional<long long> at = index_of(e);
    if (!at)
      return ::testing::AssertionFailure() << layout << ": the place of " << element_name << " " << e
                                           << " cannot be computed (an index outside the tile).";
    if (*at < 0 || *at >= capacity)
      return ::testing::AssertionFailure() << layout << ": " << element_name << " " << e << " is stored at index "
                                           << *at << ", outside the array [0, " << capacity << ").";
    auto [it, fresh] = owner.emplace(*at, e);
    if (!fresh)
      return ::testing::AssertionFailure() << layout << ": " << element_name << "s " << it->second << " and " << e
                                           << " are both stored at index " << *at
                                           << ": one overwrites the other.\n  Try: " << how_to_fix;
  }
  return ::testing::AssertionSuccess();
}

// Without the answers (the student release): what can be checked without them. The prediction
// holds a number, not the stub's placeholder, that the question's kind allows: a count of
// wavefronts of one warp instruction (1 to 32), a value of x's range, a value that is not negative.
::testing::AssertionResult PredictionHasItsForm(const grader_desc::Question& q, long long predicted) {
  auto f = ::testing::AssertionFailure();
  f << "prediction " << q.name << " = " << predicted;
  if (predicted < 0) return f << " still holds the stub's placeholder: replace it with your answer.\n  Think: " << q.hint;
  switch (q.asks) {
    case grader_desc::Asks::Wavefronts:
      if (predicted < 1 || predicted > 32)
        return f << " cannot be a count of wavefronts: one warp instruction takes 1 to 32 of them (one per "
                    "distinct word a bank must serve, at most 32 lanes).\n  Think: " << q.hint;
      break;
    case grader_desc::Asks::ExcessWavefronts:
      if (predicted > 31)
        return f << " cannot be wavefronts above the minimum: one warp instruction takes at most 32.\n  Think: " << q.hint;
      break;
    case grader_desc::Asks::Smallest:
      if (!q.in_range(predicted))
        return f << " is not one of the values the question allows (" << q.x_first << " to " << q.x_last << ", in steps of "
                 << q.x_step << ").\n  Think: " << q.hint;
      break;
    case grader_desc::Asks::Value:
      break;
  }
  return ::testing::AssertionSuccess();
}

namespace {
// The question's access with x put in, as an instruction named by the question's `what`.
Instruction question_access(const grader_desc::Question& q, long long x) {
  Op op = Op::Load;
  banklab::parse_op(q.op, op);  // gen_lab.py checked the name
  return instruction(q.what ? q.what(x) : std::string(), op, q.width, [&](int lane) { return q.offset(lane, x); }, q.mask);
}
bool conflict_free(const Instruction& in) {
  return !banklab::validate(in.access) && banklab::count_wavefronts(in.access) == banklab::minimum_wavefronts(in.access);
}
}  // namespace

::testing::AssertionResult AnswersQuestion(const grader_desc::Question& q) {
  const long long predicted = prediction(q.name);
  if (!q.has_answer) return PredictionHasItsForm(q, predicted);
  switch (q.asks) {
    case grader_desc::Asks::Value:
      return ValuePredictionMatches(q.name, predicted, q.value, q.hint);
    case grader_desc::Asks::Wavefronts: {
      long long x = q.x_first;  // the access of another answer: that answer, when it is in x's range
      if (*q.x_from) {
        const long long v = prediction(q.x_from);
        if (q.in_range(v)) x = v;
      }
      return PredictionMatches(q.name, predicted, question_access(q, x), q.hint);
    }
    case grader_desc::Asks::ExcessWavefronts: {
      const Instruction in = question_access(q, 0);
      return ValuePredictionMatches(q.name, predicted,
                                    banklab::count_wavefronts(in.access) - banklab::minimum_wavefronts(in.access), q.hint);
    }
    case grader_desc::Asks::Smallest: {
      // The grader's own search with the model; feedback on the student's own x when it is one of x's values.
      long long truth = -1;
      for (long long x = q.x_first; x <= q.x_last && truth < 0; x += q.x_step)
        if (conflict_free(question_access(q, x))) truth = x;
      std::string question = q.hint;
      if (q.in_range(predicted)) {
        const Instruction mine = question_access(q, predicted);
        std::string yours = q.yours;
        if (!yours.empty()) yours[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(yours[0])));
        if (auto err = banklab::validate(mine.access))
          question += std::string(" With ") + q.yours + ": " + *err;
        else if (conflict_free(mine))
          question += std::string(" ") + q.yours_works;
        else
          question += "\n  " + yours + ": " + grader::describe(banklab::analyze(mine.access)) +
                      "  See it: " + grader::explain_command(mine.access);
      }
      return ValuePredictionMatches(q.name, predicted, truth, question);
    }
  }
  return ::testing::AssertionFailure() << "question " << q.name << " asks for something this judge does not know";
}

}  // namespace grader
