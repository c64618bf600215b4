// The C++ side of the differential test of the lane-expression evaluators
// (tools/tests/expr_differential.py): reads requests on stdin, one a line, and answers each on one
// line of stdout with what the C++ evaluator (tools/lib/src/expr.cpp) and the model say.
//
//   ops                        ->  "op NAME W W ..." per Op of kAllOps, "legal W ...", "max_shared N"
//   expr HEX                   ->  "E<TAB>column<TAB>message" (syntax error), or "V" and 32 fields,
//                                  lane 0..31: the value, or "!column!message" (evaluation error)
//   access OPHEX WHEX MHEX EHEX  ->  "E<TAB>column<TAB>message", or "A<TAB>op<TAB>width<TAB>mask" and
//                                  the 32 offsets: what `banklab explain OP W EXPR --mask M` checks
//
// Every text argument is hexadecimal (any byte can be tested; "." is the empty text).
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>

#include "banklab/model.hpp"
#include "banklab/pattern_io.hpp"
#include "banklab_cli/expr.hpp"

namespace {

std::string unhex(const std::string& h) {
  if (h == ".") return "";
  std::string s;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) s += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
  return s;
}

void expr_line(const std::string& text) {
  using banklab::cli::ExprError;
  using banklab::cli::LaneExpr;
  try {
    const LaneExpr e = LaneExpr::parse(text);
    std::cout << 'V';
    for (int lane = 0; lane < banklab::kWarpSize; ++lane) {
      try {
        const std::int64_t v = e.eval(lane);  // before any output: it may throw
        std::cout << '\t' << v;
      } catch (const ExprError& err) {
        std::cout << "\t!" << err.column() << '!' << err.what();
      }
    }
    std::cout << '\n';
  } catch (const ExprError& err) {
    std::cout << "E\t" << err.column() << '\t' << err.what() << '\n';
  }
}

void access_line(const std::string& op_tok, const std::string& width_tok, const std::string& mask_tok,
                 const std::string& text) {
  banklab::Op op = banklab::Op::Load;
  int width = 0;
  std::uint32_t mask = 0;
  std::optional<std::string> err = banklab::parse_op(op_tok, op);
  if (!err) err = banklab::parse_width(width_tok, width);
  if (!err) err = banklab::check_width(op, width);
  if (!err) err = banklab::parse_mask(mask_tok, mask);
  if (err) {
    std::cout << "E\t0\t" << *err << '\n';
    return;
  }
  try {
    const banklab::WarpAccess a = banklab::cli::access_from_expression(op, width, mask, text);
    std::cout << "A\t" << banklab::to_string(a.op) << '\t' << a.width << '\t' << a.mask;
    for (std::uint32_t off : a.offset) std::cout << '\t' << off;
    std::cout << '\n';
  } catch (const banklab::cli::ExprError& e) {
    std::cout << "E\t" << e.column() << '\t' << e.what() << '\n';
  }
}

}  // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string cmd;
    in >> cmd;
    if (cmd == "ops") {
      for (banklab::Op op : banklab::kAllOps) {
        std::cout << "op " << banklab::to_string(op);
        for (int w = 0; w <= 64; ++w)
          if (banklab::is_legal_width(op, w)) std::cout << ' ' << w;
        std::cout << '\n';
      }
      std::cout << "legal";
      for (int w : banklab::kLegalWidths) std::cout << ' ' << w;
      std::cout << "\nmax_shared " << banklab::kMaxSharedBytesPerBlock << '\n';
    } else if (cmd == "expr") {
      std::string h;
      in >> h;
      expr_line(unhex(h));
    } else if (cmd == "access") {
      std::string o, w, m, e;
      in >> o >> w >> m >> e;
      access_line(unhex(o), unhex(w), unhex(m), unhex(e));
    } else {
      std::cout << "? unknown request " << cmd << '\n';
      return 2;
    }
  }
  return 0;
}
