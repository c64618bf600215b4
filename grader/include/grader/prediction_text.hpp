// A student's predictions as written: the initializer of each constant of `namespace predict`,
// read from the text of the student's file (the copy the build compiled), and the part of it that
// is floating-point, if any. The probe reports a prediction's value; the value of
// `constexpr int k = 1.5;` is 1, so the judge reads the text too (issue 44: answers read as
// written). The scan is by hand, linear in the file's size (no regular expression: a line may be
// hundreds of kilobytes long).
#pragma once

#include <map>
#include <string>

namespace grader {

struct PredictionText {
  std::string initializer;  ///< as written, whitespace collapsed, at most 80 characters (then "...")
  std::string floating;     ///< its floating-point part ("1.5", "float", "sqrt", "kHalf"); empty: none
};

/// The constants declared in every `namespace predict` (or `namespace X::predict`) of `source`,
/// by name. Floating-point is: a floating literal (1.5, 2., 1e3, 0x1p4, 1.5f), a floating type
/// (float, double, __half, __nv_bfloat16) outside sizeof/alignof/decltype, a call of a floating
/// math function (sqrt, pow, log2, ceil, ...), or a name the file declares at namespace or class
/// scope (a constant, a function, an object-like or function-like macro) with a floating type or
/// a floating-point initializer or body.
std::map<std::string, PredictionText> read_predictions(const std::string& source);

}  // namespace grader
