// The CPU-tier checks of grader.hpp.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>
#include <vector>
#include <optional>

#include "banklab/describe.hpp"
#include "banklab/pattern_io.hpp"
#include "grader/grader.hpp"
#include "grader/lab_description.hpp"
#include "grader/context.hpp"
#include "grader/generated_tests.hpp"
#include "grader/variants.hpp"

#ifndef BANKLAB_CLI_PATH
#define BANKLAB_CLI_PATH "banklab"
#endif
#ifndef BANKLAB_BUILD_DIR
#define BANKLAB_BUILD_DIR "."
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
// --workflow --preset labNN`) builds its judge and the CLI; where the CLI is not built (a build
// of the judge alone), the command builds it first, its progress shown (CMake gives both the
// CLI's file and the build folder: nothing here knows where in the build the CLI lies).
std::string banklab_command() {
  const std::string path = BANKLAB_CLI_PATH;
  const std::string quoted = banklab::shell_quote(path);
  if (path.find('/') == std::string::npos || access(path.c_str(), X_OK) == 0) return quoted;
  return "cmake --build " + banklab::shell_quote(BANKLAB_BUILD_DIR) + " --target banklab && " + quoted;
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
// A description's hint may name `banklab explain ...`: printed with the CLI's path, so that it
// pastes into a shell as printed.
std::string runnable(std::string text) {
  const std::string word = "banklab explain ";
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at)) {
    const bool alone = at == 0 || text[at - 1] == ' ' || text[at - 1] == '(' || text[at - 1] == '\n';
    const std::string with = alone ? grader::banklab_command() + " explain " : word;
    text.replace(at, word.size(), with);
    at += with.size();
  }
  return text;
}
void add_hint_and_command(::testing::AssertionResult& f, const Instruction& in, const std::string& hint) {
  if (!hint.empty()) f << "  Try: " << runnable(hint) << "\n";
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

::testing::AssertionResult AllAtMinimumWavefronts(const std::vector<Instruction>& list, const std::string& hint,
                                                  const std::string& asked) {
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
  f << failing << " of " << list.size() << " warp instructions are not conflict-free. The worst, " << in.what;
  if (asked.empty()) {
    f << ", takes " << grader::describe(r);
    add_hint_and_command(f, in, hint);
    return f;
  }
  // A prediction asks about this access (the stub's, or the same once conflict-free): its lanes,
  // banks and words, never its wavefronts or its minimum, nor a command that counts them.
  f << ", " << left_to_predictions(r, asked);
  if (!hint.empty()) f << "  Try: " << runnable(hint) << "\n";
  f << "  Check yourself: " << self_check_command(banklab::to_string(in.access.op), in.access.width, "");
  return f;
}

namespace {
std::map<std::string, const AtMinimum*>& layout_tests() {
  static std::map<std::string, const AtMinimum*> tests;
  return tests;
}
}  // namespace

void register_layout_tests(const char* lab, const AtMinimum* layout) { layout_tests()[lab] = layout; }

bool same_pattern(const WarpAccess& a, const WarpAccess& b) {
  if (a.width != b.width || a.mask != b.mask || a.mask == 0 || a.width <= 0) return false;
  const auto at = [](const WarpAccess& x, int l) { return static_cast<long long>(x.offset[static_cast<std::size_t>(l)]); };
  const int first = __builtin_ctz(a.mask);
  const long long d = at(a, first) - at(b, first);
  if (d % a.width != 0) return false;
  for (int l = first; l < banklab::kWarpSize; ++l)
    if (((a.mask >> l) & 1u) && at(a, l) - at(b, l) != d) return false;
  return true;
}

std::string merged_names(std::string list, const std::string& more) {
  for (std::size_t at = 0; !more.empty() && at != std::string::npos;) {
    const std::size_t and_at = more.find(" and ", at);
    const std::string name = more.substr(at, and_at == std::string::npos ? std::string::npos : and_at - at);
    if ((" and " + list + " and ").find(" and " + name + " and ") == std::string::npos)
      list += (list.empty() ? "" : " and ") + name;
    at = and_at == std::string::npos ? and_at : and_at + 5;
  }
  return list;
}

std::string asked_about(const WarpAccess& a) {
  // The graded lab and variant's asked accesses, evaluated once a process (the probe's tables do not
  // change within it).
  static std::map<std::pair<std::string, int>, std::vector<std::pair<WarpAccess, std::string>>> cache;
  const auto key = std::make_pair(context().lab, graded_variant());
  auto c = cache.find(key);
  if (c == cache.end()) {
    std::vector<std::pair<WarpAccess, std::string>> asked;
    const auto t = layout_tests().find(key.first);
    for (const AtMinimum* test = t == layout_tests().end() ? nullptr : t->second; test && test->test; ++test) {
      const std::string names = test->asked_of(key.second) ? test->asked_of(key.second) : "";
      if (names.empty()) continue;
      try {
        for (const Instruction& in : test->instructions(test->only))
          if (in.invalid.empty()) asked.emplace_back(in.access, names);
      } catch (const std::exception&) {
        // No probe tables in this process (a test that reads none): nothing of them to compare.
      }
    }
    c = cache.emplace(key, std::move(asked)).first;
  }
  std::string names;
  for (const auto& [access, list] : c->second)
    if (same_pattern(a, access)) names = merged_names(names, list);
  return names;
}

std::string left_to_predictions(const banklab::Analysis& r, const std::string& asked) {
  const std::string banks = grader::describe(r);
  const bool one = asked.find(" and ") == std::string::npos;
  return std::string("takes more wavefronts than its minimum; how many, and the minimum, are for you to work out "
                     "(your prediction") + (one ? " " : "s ") + asked + (one ? " asks" : " ask") +
         " it). Where its lanes collide:\n" + banks.substr(banks.find('\n') + 1);
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

// The command a student runs to check a prediction with the model: the access's op and width
// (and the TMA swizzle mode the question names), and the lane expression left for the student to
// write (printing the question's own access would draw the answer). The three words `OP WIDTH
// EXPRESSION` are separate arguments, as `banklab explain` takes them.
std::string self_check_command(const std::string& op, int width, const std::string& tma_swizzle) {
  return std::string("write the byte address of lane's element as an expression of lane, then run\n    ") +
         banklab_command() + " explain " + (tma_swizzle.empty() ? "" : "--tma-swizzle " + tma_swizzle + " ") + op +
         " " + std::to_string(width) + " '<your expression of lane>'";
}
std::string self_check_command(const WarpAccess& a, const std::string& tma_swizzle) {
  return self_check_command(banklab::to_string(a.op), a.width, tma_swizzle);
}

::testing::AssertionResult PredictionMatches(const char* name, long long predicted, const Instruction& in,
                                             const std::string& hint, const std::string& tma_swizzle) {
  const int truth = banklab::count_wavefronts(in.access);
  if (predicted == truth) return ::testing::AssertionSuccess();
  auto f = ::testing::AssertionFailure();
  f << "prediction " << name << " = " << predicted << " is not what the bank model says for " << in.what << ".\n";
  if (!hint.empty()) f << "  Think: " << runnable(hint) << "\n";
  f << "  Check yourself: " << self_check_command(in.access, tma_swizzle);
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

::testing::AssertionResult FunctionIsInBoundsAndOneToOne(const LayoutFunction& f) {
  auto call = [&](int r, int c) { return f.name + "(" + std::to_string(r) + ", " + std::to_string(c) + ")"; };
  std::map<long long, std::pair<int, int>> owner;
  for (int r = 0; r < f.rows; ++r)
    for (int c = 0; c < f.cols; ++c) {
      const std::optional<long long> at = f.table->at({r, c});
      if (!at)
        return ::testing::AssertionFailure() << call(r, c) << " has no value: your constants make the arguments the "
                                             << "probe evaluated fewer than " << f.rows << " x " << f.cols << ".";
      const long long v = *at;
      if (v < 0 || v >= f.capacity)
        return ::testing::AssertionFailure() << call(r, c) << " = " << v << ", outside [0, " << f.capacity << ") ("
                                             << f.capacity_what << ").\n  Try: " << f.bounds_try;
      auto [it, fresh] = owner.emplace(v / f.unit, std::make_pair(r, c));
      if (!fresh) {
        const auto [r0, c0] = it->second;
        auto fail = ::testing::AssertionFailure();
        fail << call(r0, c0) << " = " << *f.table->at({r0, c0}) << " and " << call(r, c) << " = " << v;
        if (f.unit == 1)
          fail << " are the same place: one overwrites the other.";
        else
          fail << " are in the same " << f.unit << "-byte chunk (" << v / f.unit << " from the start): one overwrites "
               << "the other.";
        return fail << "\n  Try: " << f.collision_try;
      }
    }
  return ::testing::AssertionSuccess();
}

// Is the prediction one the question allows, read as written? Every prediction, with or without
// the answers: a number of an integer type (a float or a double is never rounded: 128.5f is not
// 128), not the stub's placeholder -1, within the question's range (its description's, through
// banklab_gen.py's prediction_range: 1 to 32 wavefronts, a column 0 to 31, ...). A value outside
// the range is never echoed (a probe must not carry numbers of its choosing into a message).
std::optional<::testing::AssertionResult> PredictionIsUnreadable(const grader_desc::Question& q) {
  auto f = ::testing::AssertionFailure();
  f << "prediction " << q.name;
  if (answers().prediction_not_integer(q.name))
    return f << " is not an integer: it is declared with a type that is not an integer type (a float or a double "
                "is read as written, never rounded). Write it as a whole number: constexpr int "
             << q.name << " = <your answer>;\n  Think: " << runnable(q.hint);
  if (const PredictionText* t = answers().as_written(q.name); t && !t->floating.empty())
    return f << " = " << t->initializer << " is not read as an integer: it holds " << t->floating
             << ", a floating-point number or conversion, and a prediction is read as written, never converted. "
                "Write it with integers only (integer literals and constants, + - * / % << >> & | ^): constexpr int "
             << q.name << " = <your answer>;\n  Think: " << runnable(q.hint);
  const long long predicted = prediction(q.name);
  if (predicted == -1) {
    f << " = -1 still holds the stub's placeholder: replace it with your answer.\n  Think: " << runnable(q.hint);
  } else if (!q.allows(predicted)) {
    f << " is outside what the question allows: " << q.range_what << ", " << q.lowest << " to " << q.highest;
    if (q.step != 1) f << " in steps of " << q.step;
    f << ".\n  Think: " << runnable(q.hint);
  } else {
    return std::nullopt;
  }
  // The question's op and width (the answers' access line: the instructor's judge only).
  if (q.asks == grader_desc::Asks::Wavefronts && q.width > 0 && q.op && *q.op)
    f << "\n  Check yourself: " << self_check_command(q.op, q.width, q.tma_swizzle);
  return f;
}

// Without the answers (the student release): what can be checked without them, the form.
::testing::AssertionResult PredictionHasItsForm(const grader_desc::Question& q) {
  if (auto bad = PredictionIsUnreadable(q)) return *bad;
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

namespace {
// The x of a Wavefronts question's access: the answer of question x_from when it is in x's range.
long long access_x(const grader_desc::Question& q) {
  if (*q.x_from && answers().prediction_is_integer(q.x_from) && q.in_range(prediction(q.x_from)))
    return prediction(q.x_from);
  return q.x_first;
}

// The smallest x of the question's range whose access is conflict-free (-1: none), the model's search.
long long smallest_conflict_free(const grader_desc::Question& q) {
  for (long long x = q.x_first; x <= q.x_last; x += q.x_step)
    if (conflict_free(question_access(q, x))) return x;
  return -1;
}

// What question q (one variant's) has as its answer, by the model: the judge's own truth (the one
// place each kind's truth is computed: JudgedAnswer grades against it, AnswersQuestion compares with it).
long long answer_of(const grader_desc::Question& q) {
  switch (q.asks) {
    case grader_desc::Asks::Value: return q.value_of ? q.value_of() : q.value;
    case grader_desc::Asks::Wavefronts: return banklab::count_wavefronts(question_access(q, access_x(q)).access);
    case grader_desc::Asks::ExcessWavefronts: {
      const Instruction in = question_access(q, 0);
      return banklab::count_wavefronts(in.access) - banklab::minimum_wavefronts(in.access);
    }
    case grader_desc::Asks::Smallest: return smallest_conflict_free(q);
  }
  return -1;
}

::testing::AssertionResult JudgedAnswer(const grader_desc::Question& q, long long predicted);
}  // namespace

// A student of variant k >= 1 whose wrong prediction is the lab as written's answer (variant 0's:
// a copied file of the course's own text, which has no `// banklab variant:` line for the judge to
// read) is told so, beside the usual feedback: never graded as variant 0, never a bare "not right".
::testing::AssertionResult AnswersQuestion(const grader_desc::Question& asked) {
  const grader_desc::Question& q = variant_question(asked);  // the graded variant's (grader/variants.hpp)
  if (!q.has_answer) return PredictionHasItsForm(q);
  if (auto bad = PredictionIsUnreadable(q)) return *bad;
  const long long predicted = prediction(q.name);
  ::testing::AssertionResult r = JudgedAnswer(q, predicted);
  if (!r && &q != &asked && asked.has_answer && predicted >= 0 && predicted == answer_of(asked) && predicted != answer_of(q)) {
    const int k = graded_variant();
    r << "\n  " << q.name << " = " << predicted << " is the answer of the lab as written (variant 0), not of your variant "
      << k << " (" << variant_params(context().lab, k) << "): this prediction was made for another student's "
      << "numbers. Work from your own stub (your release's kernel.cu) and its questions.";
  }
  return r;
}

namespace {
::testing::AssertionResult JudgedAnswer(const grader_desc::Question& q, long long predicted) {
  switch (q.asks) {
    case grader_desc::Asks::Value:
    case grader_desc::Asks::ExcessWavefronts:
      return ValuePredictionMatches(q.name, predicted, answer_of(q), q.hint);
    case grader_desc::Asks::Wavefronts:  // the access of another answer: that answer, when it is in x's range
      return PredictionMatches(q.name, predicted, question_access(q, access_x(q)), q.hint, q.tma_swizzle);
    case grader_desc::Asks::Smallest: {
      // The grader's own search with the model; feedback on the student's own x when it is one of x's values.
      const long long truth = answer_of(q);
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
}  // namespace

}  // namespace grader
