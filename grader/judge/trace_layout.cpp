// The traced launch against the layout the student declares: see trace_layout.hpp.
#include "trace_layout.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

namespace grader::gpu {

bool quoted_before(const banklab::WarpAccess& a, const banklab::WarpAccess& b) {
  return std::tie(a.offset, a.mask) < std::tie(b.offset, b.mask);
}

namespace {

// The same order over traced instructions: by their access, then file and line.
bool quoted_first(const banklab::trace::Instruction& a, const banklab::trace::Instruction& b) {
  if (quoted_before(a.access, b.access)) return true;
  if (quoted_before(b.access, a.access)) return false;
  return std::tie(a.file, a.line) < std::tie(b.file, b.line);
}

std::string where(const banklab::trace::Instruction& in, const std::string& source) {
  return (!source.empty() ? source : in.file.empty() ? std::string("?") : in.file) + ":" + std::to_string(in.line);
}

// The pieces of an access whose addresses the lab describes, each as its lanes' offsets less its
// first lane's (the same rows wherever the tile starts): for ldmatrix and stmatrix each 8 x 8
// matrix (lanes 8 m .. 8 m + 7 give its rows; the order of the matrices in one instruction is the
// kernel's choice), for other kinds the whole warp's active lanes.
std::vector<std::vector<std::uint32_t>> relative_pieces(const banklab::WarpAccess& a) {
  const bool matrices = a.op == banklab::Op::LoadMatrix || a.op == banklab::Op::StoreMatrix;
  const int piece = matrices ? 8 : banklab::kWarpSize;
  std::vector<std::vector<std::uint32_t>> pieces;
  for (int first = 0; first < banklab::kWarpSize; first += piece) {
    std::vector<std::uint32_t> p;
    bool seen = false;
    std::uint32_t base = 0;
    for (int l = first; l < first + piece; ++l) {
      if (!((a.mask >> l) & 1u)) continue;
      if (!seen) base = a.offset[static_cast<std::size_t>(l)];
      seen = true;
      p.push_back(a.offset[static_cast<std::size_t>(l)] - base);
    }
    if (!p.empty()) pieces.push_back(std::move(p));
  }
  return pieces;
}

// A plain access's shape: its width and its active lanes' offsets as a set (with repeats: a
// broadcast keeps its 32 lanes) less the smallest, so that neither where the tile starts nor which
// lane takes which of the addresses matters, only the layout.
using Shape = std::pair<int, std::vector<std::uint32_t>>;
Shape shape_of(const banklab::WarpAccess& a) {
  std::vector<std::uint32_t> o;
  for (int l = 0; l < banklab::kWarpSize; ++l)
    if ((a.mask >> l) & 1u) o.push_back(a.offset[static_cast<std::size_t>(l)]);
  std::sort(o.begin(), o.end());
  const std::uint32_t low = o.empty() ? 0 : o.front();
  for (std::uint32_t& x : o) x -= low;
  return {a.width, o};
}

// The first `n` active lanes: "lanes 0-7 at byte offsets 0 4 8 ..." (lane numbers given when the
// active lanes are not 0, 1, 2, ...).
std::string first_lanes(const banklab::WarpAccess& a, int n = 8) {
  std::vector<int> lanes;
  for (int l = 0; l < banklab::kWarpSize && static_cast<int>(lanes.size()) < n; ++l)
    if ((a.mask >> l) & 1u) lanes.push_back(l);
  std::ostringstream os;
  if (lanes.empty()) return "no active lane";
  const bool from_zero = lanes.back() == static_cast<int>(lanes.size()) - 1;
  if (from_zero) {
    os << "lanes 0-" << lanes.back() << " at byte offsets";
    for (int l : lanes) os << " " << a.offset[static_cast<std::size_t>(l)];
  } else {
    os << "lanes";
    for (int l : lanes) os << " " << l << " at " << a.offset[static_cast<std::size_t>(l)] << (l == lanes.back() ? "" : ",");
  }
  return os.str();
}

std::string plural(banklab::Op op) {
  switch (op) {
    case banklab::Op::Load: return "loads";
    case banklab::Op::Store: return "stores";
    default: return std::string(banklab::describe(op)) + " instructions";
  }
}

}  // namespace

std::string matrices_not_described(const std::vector<banklab::trace::Instruction>& ins,
                                   const std::vector<RequiredKind>& required, const std::string& source) {
  std::ostringstream os;
  for (const RequiredKind& k : required) {
    if (k.accesses.empty()) continue;
    std::set<std::vector<std::uint32_t>> described;
    for (const banklab::WarpAccess& a : k.accesses)
      for (auto& p : relative_pieces(a)) described.insert(std::move(p));
    long long off = 0, of_kind = 0;
    const banklab::trace::Instruction* quoted = nullptr;
    for (const auto& in : ins) {
      if (in.access.op != k.op) continue;
      of_kind += static_cast<long long>(in.count);
      const auto pieces = relative_pieces(in.access);
      if (std::all_of(pieces.begin(), pieces.end(), [&](const auto& p) { return described.count(p) > 0; })) continue;
      off += static_cast<long long>(in.count);
      if (!quoted || quoted_first(in, *quoted)) quoted = &in;
    }
    if (off == 0) continue;
    os << "  " << off << " of the " << of_kind << " traced " << banklab::describe(k.op)
       << " warp instructions read a matrix whose row addresses are none of the description's (" << k.described
       << ": the rows tile_offset() gives for each lane, wherever the tile starts). One of them (the smallest "
          "offsets), at "
       << where(*quoted, source) << ", lanes 0-7 at byte offsets";
    for (int l = 0; l < 8; ++l) os << " " << quoted->access.offset[static_cast<std::size_t>(l)];
    os << ". The lab grades the loads of the operands from the tile: load each fragment from the rows the "
          "description names, not from other addresses. "
       << k.hint << "\n";
  }
  return os.str();
}

std::string accesses_off_the_layout(const std::vector<banklab::trace::Instruction>& ins,
                                    const std::vector<grader::Instruction>& layout,
                                    const std::vector<RequiredKind>& required,
                                    const std::vector<std::string>& functions, const std::string& source) {
  std::map<banklab::Op, std::vector<const grader::Instruction*>> of_op;
  for (const grader::Instruction& d : layout) {
    const bool is_required = std::any_of(required.begin(), required.end(),
                                         [&](const RequiredKind& k) { return k.op == d.access.op && !k.accesses.empty(); });
    if (!is_required) of_op[d.access.op].push_back(&d);
  }
  std::string fns;
  for (const std::string& f : functions) fns += (fns.empty() ? "" : ", ") + f + "()";
  if (fns.empty()) fns = "your access functions";
  std::ostringstream os;
  for (const auto& [op, described] : of_op) {
    std::set<Shape> shapes;
    for (const grader::Instruction* d : described) shapes.insert(shape_of(d->access));
    long long off = 0, of_kind = 0;
    std::set<std::pair<std::string, int>> lines;
    const banklab::trace::Instruction* quoted = nullptr;
    for (const auto& in : ins) {
      if (in.access.op != op) continue;
      of_kind += static_cast<long long>(in.count);
      if (shapes.count(shape_of(in.access)) > 0) continue;
      off += static_cast<long long>(in.count);
      lines.insert({in.file, in.line});
      if (!quoted || quoted_first(in, *quoted)) quoted = &in;
    }
    if (off == 0) continue;
    // The description's access to compare with: one whose first lane is where the quoted
    // instruction's is (the same place of the tile), of its width; else the first of its width.
    const grader::Instruction* should = nullptr;
    for (const grader::Instruction* d : described) {
      if (d->access.width != quoted->access.width) continue;
      if (!should) should = d;
      const int q = __builtin_ctz(quoted->access.mask ? quoted->access.mask : 1u);
      const int s = __builtin_ctz(d->access.mask ? d->access.mask : 1u);
      if (d->access.offset[static_cast<std::size_t>(s)] == quoted->access.offset[static_cast<std::size_t>(q)]) {
        should = d;
        break;
      }
    }
    if (!should) should = described.front();
    os << "  " << off << " of the " << of_kind << " traced " << banklab::describe(op) << " warp instructions (on "
       << lines.size() << " source line" << (lines.size() == 1 ? "" : "s")
       << ") touch addresses that none of the description's " << plural(op)
       << " gives: the kernel stages its data in another layout than the one it declares, and the CPU tier judged "
          "the declared one. The description's "
       << plural(op) << " are where " << fns
       << " put each lane (the probe evaluated them), wherever the tile starts and whichever lane takes which "
          "address. One of them (the smallest offsets), at "
       << where(*quoted, source) << " (" << quoted->kernel << "), " << quoted->access.width << " bytes a lane: "
       << first_lanes(quoted->access) << ". The description's \"" << should->what << "\" is " << fns << "'s: "
       << first_lanes(should->access) << ".\n"
       << "  Try: index every " << (op == banklab::Op::Store ? "store to" : op == banklab::Op::Load ? "load from" : "access of")
       << " the tile with " << fns << " as the description's " << plural(op)
       << " do (for the one above: \"" << should->what
       << "\"), so that the kernel runs the layout you declared; data moved between lanes another way (shuffles, "
          "registers) does not stand in for it.\n";
  }
  return os.str();
}

}  // namespace grader::gpu
