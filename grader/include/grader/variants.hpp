// Per-student variants of a lab (docs/dev/VARIANTS.md): the questions of each variant, generated
// from the lab's description and its answers' templates (python/banklab/lab/variants.py writes
// labNN_variants.cpp, which registers them), and the variant the judge grades: variant 0 is the lab
// as written; banklab-judge --variant K (else, in a student's release, the release's variant; else the
// `// banklab variant:` line of the file) picks another, handed to the test processes as BANKLAB_VARIANT=K.
#pragma once

#include <cstddef>
#include <string>

#include "grader/lab_description.hpp"

namespace grader {

/// One variant's questions (every question of the lab, in the order of namespace predict).
struct VariantQuestions {
  int variant;                          ///< 1 .. count - 1
  const char* params;                   ///< "elem = double, bytes = 8"
  const grader_desc::Question* questions;
  std::size_t size;
};

/// Called by a lab's generated labNN_variants.cpp at start-up: the lab has `count` variants (0 the
/// lab as written) and these questions for those above 0; `release`: the variant a student's release
/// is (`release = K` in its lab.toml's [variants], written by make-release), -1 in the course.
bool register_variants(const char* lab, int count, const VariantQuestions* variants, std::size_t n,
                       int release = -1);

/// The variant this judge's tree is a release of for the lab (make-release --student/--variant), or -1.
int release_variant(const std::string& lab);

/// The lab's number of variants (1: none declared, or none registered in this build).
int variant_count(const std::string& lab);

/// "elem = double, bytes = 8" for variant k of the lab ("" for 0 or an unknown one).
std::string variant_params(const std::string& lab, int k);

/// The variant a file names on its `// banklab variant: lab NN variant K` line for lab `lab`, or -1.
int variant_named_in(const std::string& source, const std::string& lab);

/// The variant being graded (BANKLAB_VARIANT in the environment; 0, the lab as written, without it).
int graded_variant();

/// The question to judge in place of `base`: the same question of the variant being graded
/// (BANKLAB_VARIANT in the environment, context().lab), or `base` for variant 0.
const grader_desc::Question& variant_question(const grader_desc::Question& base);

}  // namespace grader
