// libFuzzer target: the predict line reader and parser, the model (count path against the full
// analysis), the lane-expression evaluator, the explain renderer and the SVG writer.
//
// The first byte picks what the rest of the input is:
//   0: a predict input file          1: one access line, then explain + SVG
//   2: a lane expression for explain  3: a measurement CSV for compare
//   4: a raw WarpAccess (binary), straight into the model
// Build: tools/fuzz/run_fuzz.sh (clang++ -fsanitize=fuzzer,address,undefined), or the CMake
// option BANKLAB_FUZZ=ON with clang++. Replayed by tools/fuzz/replay_main.cpp under CTest.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>

#include "banklab/model.hpp"
#include "banklab/pattern_io.hpp"
#include "banklab_cli/compare.hpp"
#include "banklab_cli/explain_render.hpp"
#include "banklab_cli/expr.hpp"
#include "banklab_cli/predict.hpp"
#include "banklab_cli/svg.hpp"

namespace {

using namespace banklab;

[[noreturn]] void fail(const char* what, const WarpAccess& a) {
  std::fprintf(stderr, "banklab_fuzz: %s for: %s\n", what, format_access_line(a).c_str());
  std::abort();
}

// Everything the tools do with one valid access, with the invariants that must hold.
void exercise(const WarpAccess& a) {
  const Analysis r = analyze(a);
  const int w = count_wavefronts(a);
  const int m = minimum_wavefronts(a);
  if (w != r.wavefronts) fail("count_wavefronts != analyze().wavefronts", a);
  if (m != r.minimum) fail("minimum_wavefronts != analyze().minimum", a);
  if (r.wavefronts < r.minimum || r.minimum < 0 || r.wavefronts > 32)
    fail("wavefronts outside minimum..32", a);
  if (static_cast<int>(r.wavefront_detail.size()) != r.wavefronts) fail("detail rows != wavefronts", a);
  char line[cli::kPredictionMax + 8];
  const char* end = cli::format_prediction(a, line);
  if (end - line > static_cast<long>(cli::kPredictionMax)) fail("prediction line too long", a);
  // The format round-trips.
  WarpAccess b;
  if (auto err = parse_access_line(format_access_line(a), b)) fail("format_access_line does not parse", a);
  if (b.op != a.op || b.width != a.width || b.mask != a.mask || b.offset != a.offset)
    fail("format_access_line does not round-trip", a);
  const std::string text = cli::render_explanation(a, r, {true, "t"});
  const std::string svg = cli::render_svg(a, r, "title <&>");
  if (text.empty() || svg.find("</svg>") == std::string::npos) fail("empty rendering", a);
}

void fuzz_predict(std::string_view data) {
  if (data.empty()) return;
  static std::FILE* sink = std::fopen("/dev/null", "w");
  std::FILE* in = fmemopen(const_cast<char*>(data.data()), data.size(), "r");
  if (!in) return;
  try {
    cli::predict_stream(in, "fuzz", sink);
  } catch (const ParseError& e) {
    if (e.line() < 1) std::abort();  // every input problem names a line
  }
  std::fclose(in);
}

void fuzz_line(std::string_view data) {
  WarpAccess a;
  if (data.find('\n') != std::string_view::npos) data = data.substr(0, data.find('\n'));
  if (!parse_access_line(data, a)) exercise(a);
}

void fuzz_expression(std::string_view data) {
  if (data.size() < 3) return;
  const Op op = kAllOps[(static_cast<unsigned char>(data[0]) >> 1) % (sizeof kAllOps / sizeof kAllOps[0])];
  constexpr std::size_t kWidths = sizeof kLegalWidths / sizeof kLegalWidths[0];
  const int width = kLegalWidths[static_cast<unsigned char>(data[1]) % kWidths];
  const std::uint32_t mask = (data[2] & 1) ? 0xffffffffu : 0x0f0f00ffu * static_cast<unsigned char>(data[2]);
  data.remove_prefix(3);
  try {
    exercise(cli::access_from_expression(op, width, mask, data));
  } catch (const cli::ExprError&) {
  }
}

void fuzz_csv(std::string_view data) {
  std::istringstream in{std::string(data)};
  try {
    const auto rows = read_measurements(in, "fuzz.csv");
    const auto res = cli::compare_measurements(rows);
    if (res.matched > res.total) std::abort();
  } catch (const ParseError&) {
  }
}

void fuzz_raw(std::string_view data) {
  WarpAccess a;
  if (data.size() < 6 + 4 * kWarpSize) return;
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  constexpr std::size_t kWidths = sizeof kLegalWidths / sizeof kLegalWidths[0];
  a.op = kAllOps[(p[0] >> 2) % (sizeof kAllOps / sizeof kAllOps[0])];
  a.width = kLegalWidths[p[1] % kWidths];
  std::memcpy(&a.mask, p + 2, 4);
  // Offsets: mostly small and aligned (so the model sees conflicts and merges), sometimes raw.
  const bool raw = (p[0] & 2) != 0;
  for (int i = 0; i < kWarpSize; ++i) {
    std::uint32_t v;
    std::memcpy(&v, p + 6 + 4 * i, 4);
    a.offset[static_cast<std::size_t>(i)] =
        raw ? v : (v % 4096u) * static_cast<std::uint32_t>(a.width);
  }
  if (!validate(a)) {
    exercise(a);
  } else {
    // Outside the model's contract, but it must still not crash.
    (void)count_wavefronts(a);
    (void)minimum_wavefronts(a);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0: fuzz_predict(rest); break;
    case 1: fuzz_line(rest); break;
    case 2: fuzz_expression(rest); break;
    case 3: fuzz_csv(rest); break;
    default: fuzz_raw(rest); break;
  }
  return 0;
}
