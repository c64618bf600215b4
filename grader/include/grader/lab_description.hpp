// The form of a lab's description in C++: what python/banklab/lab/gen.py generates from
// labs/NN_name/judge/lab.toml (with solutions/NN_name/answers.toml when it exists) into the build tree
// as grader/labNN_description.hpp (namespace labNN_desc). Read by the probe
// (the constants, tables, instructions, predictions and launcher calls it writes) and by the judge
// (the questions, the launch sizes). Standard library only: it is part of the header snapshot the
// probe compiles with (grader/judge/build.cpp). The format: docs/dev/LAB_CONTRACT.md.
#pragma once

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader_desc {

/// An access function the probe tabulates over a box (dims: C++ expressions of the lab's constants).
struct Table {
  const char* name;
  std::vector<const char*> dims;
};

/// One shared-memory instruction of a lab kernel, as the probe writes it (w.access).
struct Instruction {
  const char* name;
  const char* kernel;
  const char* op;  ///< banklab's op name: ld st ldsm stsm cpasync atom
  int width;
  std::vector<const char*> dims;
  const char* what;
};

/// A launcher of kernel.cu, the sizes with which the probe calls it and the GPU tier replays it.
struct Launch {
  const char* launcher;
  const char* kernel;
  std::vector<std::vector<long long>> sizes;
  std::vector<const char*> roles;  ///< one per size, or none
};

enum class Asks {
  Wavefronts,        ///< the model's wavefronts of `access`
  Value,             ///< the number `value`
  ExcessWavefronts,  ///< wavefronts minus the model's minimum of `access`
  Smallest,          ///< the smallest x of [x_first, x_last] (x_step apart) whose access is conflict-free
};

/// One question of the handout: a constexpr of kernel.cu's namespace predict.
struct Question {
  const char* name;  ///< the predict:: constant
  const char* test;  ///< LabNNPredictions.<test>
  Asks asks;
  bool has_answer;     ///< false in the student release: the answers (solutions/NN_name/answers.toml) are not there
  const char* access;  ///< the answer's access line as answers.toml writes it ("" when none)
  const char* op;
  int width;
  unsigned mask;
  long long (*offset)(long long lane, long long x);  ///< byte offset of an active lane
  long long value;                                   ///< Value: the answer
  const char* value_text;                            ///< Value: its formula
  std::string (*what)(long long x);                  ///< the access in words (x filled in)
  const char* hint;
  const char* x_from;  ///< the question whose answer is x ("" when the access has no x)
  long long x_first, x_last, x_step;
  const char* yours;        ///< Smallest: how feedback names the student's answer ("your pad")
  const char* yours_works;  ///< Smallest: said when the student's answer works but is not the smallest
  long long lowest, highest, step;  ///< the values a prediction may take (banklab_gen.py prediction_range)
  const char* range_what;           ///< what the number is, in words ("a column of the tile")
  const char* tma_swizzle;          ///< "32" / "64" / "128": the TMA swizzle the question's access goes through, or ""
  long long (*value_of)();          ///< Value: the answer read from the student's own tables (nullptr: `value`)

  /// Is `v` a value a prediction of this question may take?
  bool allows(long long v) const { return v >= lowest && v <= highest && (v - lowest) % step == 0; }

  /// Is `x` one of x_range's values?
  bool in_range(long long x) const { return x >= x_first && x <= x_last && (x - x_first) % x_step == 0; }
};

/// The size of `launcher` with role `role`; throws (a grader bug, reported as the test's failure)
/// when the description has none.
template <std::size_t N>
const std::vector<long long>& size_of(const Launch (&launches)[N], const char* launcher, const char* role) {
  for (const Launch& l : launches)
    if (std::strcmp(l.launcher, launcher) == 0)
      for (std::size_t i = 0; i < l.roles.size() && i < l.sizes.size(); ++i)
        if (std::strcmp(l.roles[i], role) == 0) return l.sizes[i];
  throw std::logic_error(std::string("the lab's description has no size of ") + launcher + " with role " + role);
}

/// The value of parameter `param` of variant `k` of a lab's [variants] (docs/dev/VARIANTS.md): the
/// generated kVariantParams (names) and kVariantValues (one row of numbers per variant, row 0 the lab
/// as written). The judge's checks read what a variant changes in the kernel (its sizes) here.
template <std::size_t P, std::size_t V>
long long variant_value(const char* const (&params)[P], const long long (&values)[V][P], const char* param, int k) {
  if (k < 0 || static_cast<std::size_t>(k) >= V)
    throw std::logic_error("the lab has no variant " + std::to_string(k));
  for (std::size_t i = 0; i < P; ++i)
    if (std::strcmp(params[i], param) == 0) return values[k][i];
  throw std::logic_error(std::string("the lab's variants have no number parameter ") + param);
}

}  // namespace grader_desc
