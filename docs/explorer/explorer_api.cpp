// The live bank explorer's entry point: the project's own model (common/src) and explain renderer
// (tools/lib/src), compiled to WebAssembly by em++ (docs/CMakeLists.txt), called from
// docs/explorer/explorer.js. It does what `banklab explain op width expression --mask M --svg F
// --title T --color never` does, and returns the result as one JSON object:
//   {"ok":true,"wavefronts":N,"minimum":M,"text":"<terminal text>","svg":"<svg ...>"}
//   {"ok":false,"error":"<the message banklab prints>"}
// The same function runs under node in the docs.explorer_matches_banklab test.
#include <exception>
#include <string>

#include "banklab/json.hpp"
#include "banklab/model.hpp"
#include "banklab/pattern_io.hpp"
#include "banklab_cli/explain_render.hpp"
#include "banklab_cli/expr.hpp"
#include "banklab_cli/svg.hpp"

namespace {

std::string json_string(const std::string& s) { return banklab::json_quote(s); }

std::string result;  // owned here: valid until the next call

}  // namespace

extern "C" const char* banklab_explain(const char* op, const char* width, const char* mask,
                                       const char* expr, const char* title) {
  using namespace banklab;
  using namespace banklab::cli;
  try {
    WarpAccess a;
    try {
      // The same parsers and messages as `banklab explain` (banklab/pattern_io.hpp).
      Op op_value = Op::Load;
      int width_value = 0;
      std::uint32_t mask_value = 0;
      std::optional<std::string> err = parse_op(op, op_value);
      if (!err) err = parse_width(width, width_value);
      if (!err) err = check_width(op_value, width_value);
      if (!err) err = parse_mask(mask, mask_value);
      if (err) {
        result = "{\"ok\":false,\"error\":" + json_string(*err) + "}";
        return result.c_str();
      }
      a = access_from_expression(op_value, width_value, mask_value, expr);
    } catch (const ExprError& e) {
      std::string where = e.what();
      result = "{\"ok\":false,\"error\":" + json_string(where) + "}";
      return result.c_str();
    }
    const Analysis r = analyze(a);
    RenderOptions ro;
    ro.color = false;
    ro.title = title;
    result = "{\"ok\":true,\"wavefronts\":" + std::to_string(r.wavefronts) +
             ",\"minimum\":" + std::to_string(r.minimum) +
             ",\"text\":" + json_string(render_explanation(a, r, ro)) +
             ",\"svg\":" + json_string(render_svg(a, r, title)) + "}";
  } catch (const std::exception& e) {
    result = "{\"ok\":false,\"error\":" + json_string(e.what()) + "}";
  }
  return result.c_str();
}
