// The tests a lab's description makes: one test of each kind, written once here, over the data
// python/banklab/lab/gen.py generates into labNN_questions_test.cpp (googletest's "tests as data":
// testing::RegisterTest, as in its advanced guide's "Registering tests programmatically").
//   - AtMinimum: LabNNLayout.<test>, one per `at_minimum` of an instruction: every warp
//     instruction of the selected slice valid and at the model's minimum (AllAtMinimumWavefronts);
//   - QuestionsTest: LabNNPredictions.<test>, one per run of questions sharing a test: each answered
//     (AnswersQuestion); without the answers (the student release), skipped once its form passes.
// Each test keeps the plain "Suite.Name" a TEST() has (CTest, points.gates, weights.toml, the
// selftest's expectations and the docs name tests so): TEST_P would prefix the suite with its
// instantiation. The list of these names is Lab.tests() (python/banklab/lab/lab_tests.py).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "grader/check.hpp"
#include "grader/grader.hpp"
#include "grader/lab_description.hpp"
#include "grader/variants.hpp"

namespace grader {

/// One LabNNLayout test: the instructions instructions(only) at the model's minimum.
struct AtMinimum {
  const char* test;                                            ///< LabNNLayout.<test>
  std::vector<Instruction> (*instructions)(const std::vector<int>& only);  ///< labNN_judge::<instruction>
  std::vector<int> only;                                       ///< one index per dim, -1 for any; empty: all
  const char* hint;                                            ///< labNN_judge::hint_<test>
  const char* asked;  ///< the predictions its access answers ("kA and kB"; "": none): left to them
  /// The same in variants >= 1 (lab.toml [variants] asked), nullptr where they are the lab's.
  const char* asked_in_variants;
  /// The graded variant's: its own questions that ask about this access.
  const char* asked_of(int variant) const { return variant > 0 && asked_in_variants ? asked_in_variants : asked; }
};

/// One LabNNPredictions test: questions [first, first + count) of the lab's question table.
struct QuestionsTest {
  const char* test;  ///< LabNNPredictions.<test>
  std::size_t first, count;
};

namespace generated {

/// The kind "at_minimum".
class AtMinimumTest : public ::testing::Test {
 public:
  explicit AtMinimumTest(const AtMinimum& p) : p_(p) {}
  void TestBody() override {
    BANKLAB_EXPECT(AllAtMinimumWavefronts(p_.instructions(p_.only), p_.hint, p_.asked_of(graded_variant())));
  }

 private:
  const AtMinimum& p_;
};

/// The kind "question".
class AnswersQuestionsTest : public ::testing::Test {
 public:
  AnswersQuestionsTest(const grader_desc::Question* questions, const QuestionsTest& p, bool has_answers)
      : questions_(questions), p_(p), has_answers_(has_answers) {}
  void TestBody() override {
    for (std::size_t i = p_.first; i < p_.first + p_.count; ++i) BANKLAB_EXPECT(AnswersQuestion(questions_[i]));
    if (!has_answers_ && !::testing::Test::HasFailure()) GTEST_SKIP() << kGradedByTheInstructor;
  }

 private:
  const grader_desc::Question* questions_;
  const QuestionsTest& p_;
  bool has_answers_;
};

}  // namespace generated

/// Keeps lab `lab`'s LabNNLayout tests (ending with an entry whose test is nullptr) for
/// asked_about() (grader.hpp): which predictions ask about an access, in every message.
void register_layout_tests(const char* lab, const AtMinimum* layout);

/// Registers lab `lab`'s generated tests (at static initialisation, before main): the Layout
/// tests, then the Predictions tests, in the data's order. Each array ends with an entry whose
/// test is nullptr (a lab may have none of a kind). Each factory returns a ::testing::Test*, the
/// fixture a TEST() has, so that a suite may hold both (test.cu's Layout tests and these).
inline bool register_generated_tests(const char* lab, const AtMinimum* layout, const grader_desc::Question* questions,
                                     const QuestionsTest* predictions, bool has_answers, const char* file) {
  const std::string layout_suite = std::string("Lab") + lab + "Layout";  // googletest copies the names
  const std::string predictions_suite = std::string("Lab") + lab + "Predictions";
  register_layout_tests(lab, layout);
  for (const AtMinimum* a = layout; a->test; ++a)
    ::testing::RegisterTest(layout_suite.c_str(), a->test, nullptr, nullptr, file, 0,
                            [a]() -> ::testing::Test* { return new generated::AtMinimumTest(*a); });
  for (const QuestionsTest* p = predictions; p->test; ++p)
    ::testing::RegisterTest(predictions_suite.c_str(), p->test, nullptr, nullptr, file, 0,
                            [questions, p, has_answers]() -> ::testing::Test* {
                              return new generated::AnswersQuestionsTest(questions, *p, has_answers);
                            });
  return true;
}

}  // namespace grader
