// The traced check of grader/gpu/trace.cuh.
#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <tuple>
#include <string>

#include "grader/context.hpp"
#include "grader/gpu/trace.cuh"
#include "grader/watchdog.hpp"
#include "trace_layout.hpp"  // the traced addresses against the described layout
#if defined(BANKLAB_HAVE_TRACE)
#include "banklab_trace/trace.hpp"  // cost_of(): the tracer's cost of a traced instruction
#endif

namespace grader::gpu {

#if defined(BANKLAB_HAVE_TRACE)
namespace {
std::unique_ptr<banklab::trace::Session>& session() {
  static std::unique_ptr<banklab::trace::Session> s;
  return s;
}

// The traced launch's deadline (grader/watchdog.hpp). Measured on the H200 with
// bad/04_padding/hang.patch: without it the traced test took the judge's 180 s limit.
constexpr double kTracedLaunchSeconds = 60.0;
}  // namespace

// Called by banklab-judge's main before the first CUDA call of a traced test.
void start_trace_session() {
  if (banklab::trace::Session::unavailable_reason().empty()) session() = std::make_unique<banklab::trace::Session>();
}

std::string trace_unavailable_reason() {
  const std::string why = banklab::trace::Session::unavailable_reason();
  if (!why.empty()) return "the shared-memory tracer cannot run here: " + why;
  if (!session()) return "the shared-memory tracer was not started for this test";
  return "";
}

namespace {

// Per kind of instruction: traced against the work (wavefronts exactly, bytes at least). ""
// when every kind matches. `asked`: the predictions that ask about a traced instruction of a kind
// (grader::asked_about): that kind's wavefronts and the work's are not printed (a kind of one
// instruction would give them per instruction).
std::string kinds_unlike_the_work(const std::map<banklab::Op, KindWork>& traced, const Work& work,
                                  const std::map<banklab::Op, std::string>& asked) {
  std::set<banklab::Op> ops;
  for (const auto& [op, k] : traced) ops.insert(op);
  for (const auto& [op, k] : work.kinds) ops.insert(op);
  std::ostringstream os;
  for (const banklab::Op op : ops) {
    const auto t = traced.find(op);
    const auto w = work.kinds.find(op);
    const KindWork have = t == traced.end() ? KindWork{} : t->second, need = w == work.kinds.end() ? KindWork{} : w->second;
    if (have.wavefronts == need.wavefronts && have.lane_bytes >= need.lane_bytes) continue;
    const auto a = asked.find(op);
    os << "  " << banklab::describe(op) << ": the traced launch ran " << have.instructions << " warp instructions, ";
    if (a == asked.end())
      os << have.wavefronts << " wavefronts, its lanes naming " << have.lane_bytes << " bytes; the work needs exactly "
         << need.wavefronts << " wavefronts";
    else
      os << (have.wavefronts > need.wavefronts ? "more" : "fewer") << " wavefronts than the work needs (your prediction"
         << (a->second.find(" and ") == std::string::npos ? " " : "s ") << a->second
         << (a->second.find(" and ") == std::string::npos ? " asks" : " ask") << " how many), its lanes naming "
         << have.lane_bytes << " bytes; the work needs exactly its wavefronts at the minimum";
    if (need.lane_bytes > 0) os << " and at least " << need.lane_bytes << " bytes (" << need.instructions << " warp instructions at full warps)";
    if (have.wavefronts < need.wavefronts || have.lane_bytes < need.lane_bytes)
      os << ". Fewer means part of the work did not go through shared memory in this launch (data taken straight "
            "from global memory, a step skipped, a launch that behaves differently when it is traced): every launch "
            "must stage the lab's data through shared memory as the handout's kernel does.\n";
    else
      os << ". More means accesses repeated or split into instructions of fewer lanes, or instructions of a kind the "
            "work does not use.\n";
  }
  return os.str();
}


// The same launch, untraced, 1 to 3 times first (the traced launch is one of several alike), then
// traced, each under its deadline; the session then holds the traced launch's instructions alone.
void launch_and_trace(const std::string& what, const std::function<void()>& launch) {
  {
    const int before = 1 + static_cast<int>(std::random_device{}() % 3);
    const grader::Watchdog watchdog(kTracedLaunchSeconds * before, what, " (the launches before the traced one)");
    for (int i = 0; i < before; ++i) launch();
  }
  session()->clear();
  const grader::Watchdog watchdog(kTracedLaunchSeconds, what, " under the tracer");
  launch();
}

// The traced launch's instructions costed and summed: per source line, per kind of instruction.
struct Tally {
  std::map<std::string, TracedLine> lines;
  std::map<banklab::Op, long long> of_kind;          // warp instructions per op
  std::map<banklab::Op, KindWork> traced;            // per op: instructions, wavefronts, bytes
  std::map<banklab::Op, std::string> asked_of_kind;  // per op: the predictions that ask about one of them
  long long total = 0, bad = 0, wavefronts = 0;
};

Tally tally(const std::vector<banklab::trace::Instruction>& ins) {
  Tally t;
  for (const auto& in : ins) {
    TracedLine& l = t.lines[in.kernel + "\n" + in.file + ":" + std::to_string(in.line)];
    l.kernel = in.kernel;
    l.file = in.file;
    l.line = in.line;
    // The tracer's own cost (cp.async with its source banks, one pass of a 64-bit CAS loop): the
    // judge and `banklab trace` cost a traced instruction alike.
    const banklab::trace::Cost cost = banklab::trace::cost_of(in);
    const int w = cost.wavefronts, m = cost.minimum;
    const long long n = static_cast<long long>(in.count);
    l.instructions += n;
    t.of_kind[in.access.op] += n;
    KindWork& kw = t.traced[in.access.op];
    kw.instructions += n;
    kw.wavefronts += w * n;
    kw.lane_bytes += static_cast<long long>(__builtin_popcount(in.access.mask)) * in.access.width * n;
    l.wavefronts += w * n;
    t.wavefronts += w * n;
    l.minimum += m * n;
    t.total += n;
    if (w > m) {
      t.bad += n;
      // Which predictions ask about it (the one rule of grader.hpp), added to the line's.
      const std::string asked = grader::asked_about(in.access);
      l.asked = grader::merged_names(l.asked, asked);
      if (!asked.empty()) t.asked_of_kind[in.access.op] = grader::merged_names(t.asked_of_kind[in.access.op], asked);
    }
    // The worst instance, ties broken as every quoted instance is (quoted_before).
    const bool tie = w - m == l.worst_excess && w > m && quoted_before(in.access, l.worst);
    if (w - m > l.worst_excess || tie) {
      l.worst_excess = w - m;
      l.worst = in.access;
    }
  }
  return t;
}

// The kinds the lab asks for that the launch ran too few of: a kernel that loads with other (even
// conflict-free) instructions does not do what the lab teaches.
std::string kinds_missing(const std::vector<RequiredKind>& required, std::map<banklab::Op, long long>& of_kind) {
  std::ostringstream missing;
  for (const RequiredKind& k : required) {
    const long long have = of_kind[k.op];
    if (have >= k.count) continue;
    missing << "  Your kernel loads from shared memory with " << of_kind[banklab::Op::Load]
            << " plain (scalar or vector) LDS warp instructions and " << have << " " << banklab::describe(k.op)
            << "; this lab asks for " << banklab::describe(k.op) << " (its description names it for "
            << k.described << "), and the work traced here needs at least " << k.count << " of them. " << k.hint
            << "\n";
  }
  return missing.str();
}

// One line a source line over its minimum, the worst first: its instructions, and either its
// wavefronts, minimum and worst instance, or (where a prediction asks about it) only its lanes,
// banks and words and the self-check command (grader.hpp, asked_about).
std::string lines_over_the_minimum(const std::map<std::string, TracedLine>& lines) {
  std::vector<TracedLine> sorted;
  for (const auto& [k, l] : lines) sorted.push_back(l);
  std::stable_sort(sorted.begin(), sorted.end(), [](const TracedLine& a, const TracedLine& b) {
    return a.wavefronts - a.minimum > b.wavefronts - b.minimum;
  });
  std::ostringstream f;
  const std::string source = grader::context().source;
  for (const TracedLine& l : sorted) {
    if (l.wavefronts == l.minimum) continue;
    f << "  " << (source.empty() ? l.file : source) << ":" << l.line << " (" << l.kernel << "): " << l.instructions
      << " warp instructions";
    if (!l.asked.empty()) {
      f << "; the worst " << grader::left_to_predictions(banklab::analyze(l.worst), l.asked)
        << "    Check yourself: " << grader::self_check_command(banklab::to_string(l.worst.op), l.worst.width) << "\n";
      continue;
    }
    f << ", " << l.wavefronts << " wavefronts, minimum " << l.minimum << ". Worst instance: "
      << grader::describe(banklab::analyze(l.worst)) << "    See it: " << grader::explain_command(l.worst) << "\n";
  }
  return f.str();
}

}  // namespace

::testing::AssertionResult TracedSharedAccessesAreAtTheMinimum(const std::string& what,
                                                               const std::function<void()>& launch,
                                                               const std::string& hint, const Work& work_minimum,
                                                               const std::string& work,
                                                               const std::vector<RequiredKind>& required) {
  launch_and_trace(what, launch);
  const std::vector<banklab::trace::Instruction> ins = session()->take_instructions();
  const std::vector<banklab::trace::Unmodelled> un = session()->take_unmodelled();
  if (const std::uint64_t lost = session()->dropped(); lost > 0)
    return ::testing::AssertionFailure() << what << ": the tracer could not record " << lost
                                         << " warp instructions (its buffer was full), so the kernel cannot be judged "
                                            "from its trace; this is the grader's limit, report it to your instructor.";
  Tally t = tally(ins);
  const long long total = t.total, bad = t.bad, wavefronts = t.wavefronts;
  if (total == 0 && un.empty())
    return ::testing::AssertionFailure() << what << ": the trace recorded no shared-memory instruction at all: the "
                                         << "kernel does not stage its data through shared memory as the lab asks.";
  std::ostringstream os;
  os << what << ": traced " << total << " shared-memory warp instructions on " << t.lines.size() << " source line(s)";
  os << ", " << wavefronts << " wavefronts in all (the work needs " << work_minimum.wavefronts() << ")";
  const bool over = wavefronts > work_minimum.wavefronts();
  const std::string kinds = kinds_unlike_the_work(t.traced, work_minimum, t.asked_of_kind);
  // Every traced instruction where the student's own access functions put it: ldmatrix's matrices
  // and the plain loads and stores (trace_layout.cpp).
  const std::string missing = kinds_missing(required, t.of_kind) + matrices_not_described(ins, required, grader::context().source) +
                              accesses_off_the_layout(ins, work_minimum.layout, required, grader::answers().table_names(),
                                                      grader::context().source);
  if (bad == 0 && un.empty() && !over && missing.empty() && kinds.empty())
    return ::testing::AssertionSuccess() << os.str();
  auto f = ::testing::AssertionFailure();
  if (!missing.empty()) f << os.str() << ".\n" << missing;
  if (!kinds.empty()) {
    if (missing.empty()) f << os.str() << ".\n";
    f << "  Each kind of instruction against the work (" << work << "):\n" << kinds;
  }
  if (over) {
    if (missing.empty() && kinds.empty()) f << os.str() << ".\n";
    f << "  All together the kernel's shared-memory instructions take " << wavefronts
      << " wavefronts where the work (" << work << ") needs " << work_minimum.wavefronts()
      << " with full warps. Either it makes more shared-memory accesses than the work needs (more blocks or steps than "
         "the data has, an access repeated), or a warp's access is split into several instructions of fewer lanes (an "
         "if on the lane, a loop over parts of the warp), each paying its own wavefronts"
      << (bad == 0 ? " (every instruction here is at its own minimum, so look for that)" : "")
      << ". Let all 32 lanes access together, once, in a layout where that is conflict-free.\n";
  }
  if (bad > 0) {
    if (over || !missing.empty() || !kinds.empty())
      f << "  " << bad << " of the " << total << " warp instructions take more than their minimum:\n";
    else
      f << os.str() << "; " << bad << " of them take more than the minimum:\n";
    f << lines_over_the_minimum(t.lines);
    if (!hint.empty()) f << "  Try: " << hint << "\n";
  }
  if (!un.empty()) {
    f << (bad > 0 || over || !missing.empty() || !kinds.empty() ? "  " : os.str() + "; ")
      << "the kernel uses shared-memory instructions the bank model does not cover, so its traffic cannot be judged:";
    for (const auto& u : un) f << " " << u.what << " x" << u.count << " (" << u.kernel << ", code offset 0x" << std::hex << u.pc << std::dec << ");";
    f << " this lab's kernel needs only plain loads and stores (ld.shared / st.shared); rewrite those accesses as "
         "plain loads and stores.";
  }
  return f;
}

#else

void start_trace_session() {}

std::string trace_unavailable_reason() {
  return "this judge was built without the shared-memory tracer (the Compute Sanitizer API was not found when the "
         "project was configured)";
}

::testing::AssertionResult TracedSharedAccessesAreAtTheMinimum(const std::string& what, const std::function<void()>&,
                                                               const std::string&, const Work&, const std::string&,
                                                               const std::vector<RequiredKind>&) {
  return ::testing::AssertionFailure() << what << ": " << trace_unavailable_reason();
}

#endif

}  // namespace grader::gpu
