// banklab explain: one access drawn for a student (terminal, and optionally SVG).
//   banklab explain ld 4 "lane*33*4" [--mask HEX]
//   banklab explain --line "ld 4 ffffffff 0 4 8 ..."
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "banklab/pattern_io.hpp"
#include "banklab_cli/explain_render.hpp"
#include "banklab_cli/expr.hpp"
#include "banklab_cli/svg.hpp"
#include "commands.hpp"

namespace banklab::cli {
namespace {

struct ExplainOptions {
  std::string op, width, expr, line, mask = "ffffffff", color = "auto", svg, title, swizzle = "none";
  bool quiet = false;
};

bool want_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* term = std::getenv("TERM");
  if (std::getenv("NO_COLOR") || (term && std::strcmp(term, "dumb") == 0)) return false;
  return isatty(STDOUT_FILENO) == 1;
}

std::string short_text(const std::string& s) {
  return s.size() > 60 ? s.substr(0, 60) + "..." : s;
}

// `banklab explain 'ld 4 lane*4'`: the three words given as one argument (as a message quoted
// them) are read as `ld 4 'lane*4'`.
ExplainOptions split_one_argument(ExplainOptions o) {
  const std::size_t a = o.op.find_first_of(" \t");
  if (o.width.empty() && o.expr.empty() && a != std::string::npos) {
    const std::size_t w = o.op.find_first_not_of(" \t", a);
    const std::size_t b = w == std::string::npos ? w : o.op.find_first_of(" \t", w);
    if (b != std::string::npos) {
      o.width = o.op.substr(w, b - w);
      o.expr = o.op.substr(b + 1);
      o.op = o.op.substr(0, a);
    }
  }
  return o;
}

WarpAccess access_of(const ExplainOptions& given, bool mask_given) {
  const ExplainOptions o = split_one_argument(given);
  if (!o.line.empty()) {
    if (!o.op.empty() || !o.width.empty() || !o.expr.empty())
      throw ParseError("arguments", 1, "give either --line or 'op width expression', not both");
    if (mask_given) throw ParseError("arguments", 1, "--mask goes with an expression; --line has its own mask");
    WarpAccess a;
    if (is_blank_or_comment(o.line)) throw ParseError("--line", 1, "the line holds no access");
    if (auto err = parse_access_line(o.line, a)) throw ParseError("--line", 1, *err);
    return a;
  }
  if (o.op.empty() || o.width.empty() || o.expr.empty())
    throw ParseError("arguments", 1,
                     "expected 'OP WIDTH EXPRESSION' (OP ld|st|ldsm|stsm|cpasync|atom|atominc|atomcas|atomexch|atomloop, e.g. ld 4 \"lane*33*4\") or --line \"...\"");
  Op op = Op::Load;
  int width = 0;
  std::uint32_t mask = 0;
  if (auto err = parse_op(o.op, op)) throw ParseError("arguments", 1, *err);
  if (auto err = parse_width(o.width, width)) throw ParseError("arguments", 1, *err);
  if (auto err = check_width(op, width)) throw ParseError("arguments", 1, *err);
  if (auto err = parse_mask(o.mask, mask)) throw ParseError("arguments", 1, *err);
  try {
    return access_from_expression(op, width, mask, o.expr);
  } catch (const ExprError& e) {
    throw ParseError("expression", 1, std::string(e.what()) + " in \"" + short_text(o.expr) + "\"");
  }
}

void write_file(const std::string& path, const std::string& data) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw ParseError(path, 0, std::string("cannot write: ") + std::strerror(errno));
  const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) throw ParseError(path, 0, "cannot write the whole file");
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto o = std::make_shared<ExplainOptions>();
  CLI::App* sub = app.add_subcommand(
      "explain",
      "Draw one access: banks across, one row per wavefront, lanes in the cells, conflicts and "
      "broadcasts marked, and a hint.\n"
      "  banklab explain ld 4 \"lane*33*4\"      (expression of lane = BYTE offset)\n"
      "  banklab explain --line \"ld 4 ffffffff 0 4 8 ...\"");
  sub->add_option("op", o->op, "ld, st, ldsm, stsm, cpasync, atom, atominc, atomcas, atomexch or atomloop");
  sub->add_option("width", o->width, "bytes per lane: one of " + legal_widths_text());
  sub->add_option("expression", o->expr,
                  "byte offset of each lane as an expression of 'lane': + - * / % & | ^ << >> ~ ( ), "
                  "decimal or 0x hex constants");
  CLI::Option* mask = sub->add_option("--mask", o->mask, "active lanes in hex (default ffffffff)");
  sub->add_option("--line", o->line, "a whole access line 'op width mask off0 ... off31'");
  sub->add_option("--color", o->color, "ANSI colours: auto (when stdout is a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  sub->add_option("--svg", o->svg, "also write the picture as an SVG file");
  sub->add_option("--title", o->title, "title of the picture (SVG and terminal)");
  sub->add_option("--tma-swizzle", o->swizzle,
                  "none, 32, 64 or 128: the offsets are bytes of a tile that TMA wrote with this swizzle, "
                  "before the swizzle (rows 32, 64 or 128 bytes apart); the picture shows where it put them");
  sub->add_flag("-q,--quiet", o->quiet, "with --svg: print nothing on stdout");
  sub->callback([o, mask] {
    TmaSwizzle mode = TmaSwizzle::None;
    if (auto err = parse_tma_swizzle(o->swizzle, mode)) throw ParseError("--tma-swizzle", 1, *err);
    const WarpAccess a = with_tma_swizzle(access_of(*o, mask->count() > 0), mode);
    const Analysis r = analyze(a);
    if (!o->svg.empty()) write_file(o->svg, render_svg(a, r, o->title));
    if (!(o->quiet && !o->svg.empty())) {
      RenderOptions ro;
      ro.color = want_color(o->color);
      ro.title = o->title;
      std::fputs(render_explanation(a, r, ro).c_str(), stdout);
    }
  });
}

}  // namespace banklab::cli
