// How a judge test records its checks. A verdict needs positive evidence: every BANKLAB_EXPECT /
// BANKLAB_ASSERT / BANKLAB_CHECK counts one check, and a test that made no check fails (see
// grader/judge/verdict.cpp). Failure output is the grader's message alone, never the source
// expression (EXPECT_TRUE would echo hint strings before the lines a student needs).
#pragma once

#include <gtest/gtest.h>

namespace grader {
/// Checks made by the current test (reset by the judge before each test).
long long& checks();
}  // namespace grader

/// Check a grader result (::testing::AssertionResult) and report only its message. More text
/// may be streamed after it; it starts on a line of its own.
#define BANKLAB_EXPECT(result)                                          \
  switch (0)                                                            \
  case 0:                                                               \
  default:                                                              \
    if (++::grader::checks(); const ::testing::AssertionResult banklab_result_ = (result)) { \
    } else                                                              \
      ADD_FAILURE() << banklab_result_.message() << "\n"

/// As BANKLAB_EXPECT, but ends the test on failure (as ASSERT_TRUE).
#define BANKLAB_ASSERT(result)                                          \
  switch (0)                                                            \
  case 0:                                                               \
  default:                                                              \
    if (++::grader::checks(); const ::testing::AssertionResult banklab_result_ = (result)) { \
    } else                                                              \
      FAIL() << banklab_result_.message() << "\n"

/// A plain condition, with the message streamed after it: BANKLAB_CHECK(x == y) << "why".
#define BANKLAB_CHECK(cond)                 \
  switch (0)                                \
  case 0:                                   \
  default:                                  \
    if (++::grader::checks(); (cond)) {     \
    } else                                  \
      ADD_FAILURE()

/// As BANKLAB_CHECK, ending the test on failure.
#define BANKLAB_REQUIRE(cond)               \
  switch (0)                                \
  case 0:                                   \
  default:                                  \
    if (++::grader::checks(); (cond)) {     \
    } else                                  \
      FAIL()
