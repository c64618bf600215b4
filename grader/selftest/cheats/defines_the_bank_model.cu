// Cheat: define the bank model's functions (banklab::analyze, count_wavefronts, ...) in the
// student's file, so that a program linking the model's static library never pulls the real one
// in: every access is "at its minimum" and every wavefront count is -1, the stub's placeholder
// prediction. The model the judge uses must be its own.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// BUILD: may-fail: the probe links no bank model; a definition that clashes with a header the judge includes refuses to build
#if __has_include("banklab/model.hpp")
#include "banklab/model.hpp"
namespace banklab {
std::optional<std::string> validate(const WarpAccess&) { return std::nullopt; }
Grouping grouping_of(const WarpAccess&, bool* merged) {
  if (merged) *merged = false;
  return Grouping::Warp;
}
int count_wavefronts(const WarpAccess&) noexcept { return -1; }
int minimum_wavefronts(const WarpAccess&) noexcept { return -1; }
Analysis analyze(const WarpAccess&) {
  Analysis r;
  r.wavefronts = 1;
  r.minimum = 1;
  return r;
}
const char* to_string(Op op) { return op == Op::Load ? "ld" : "st"; }
const char* to_string(Grouping) { return "warp"; }
}  // namespace banklab
#endif
