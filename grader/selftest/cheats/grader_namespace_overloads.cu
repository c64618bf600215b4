// Cheat: overloads in namespace grader that win overload resolution over the grader's checks
// (an exact match for a string-literal hint beats the conversion to std::string; int beats the
// conversion to long) and always succeed. Only where grader.hpp was included before the file.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
#if defined(BANKLAB_EXPECT) && __has_include(<gtest/gtest.h>)
#include <gtest/gtest.h>
namespace grader {
template <class I, class H>
::testing::AssertionResult AtMinimumWavefronts(const I&, const H*) { return ::testing::AssertionSuccess(); }
template <class I>
::testing::AssertionResult AtMinimumWavefronts(const I&) { return ::testing::AssertionSuccess(); }
template <class I, class E, class H>
::testing::AssertionResult TakesWavefronts(const I&, E, const H*) { return ::testing::AssertionSuccess(); }
template <class P, class I, class H>
::testing::AssertionResult PredictionMatches(const char*, P, const I&, const H*) { return ::testing::AssertionSuccess(); }
template <class P, class T, class H>
::testing::AssertionResult ValuePredictionMatches(const char*, P, T, const H*) { return ::testing::AssertionSuccess(); }
template <class C, class K, class F, class H>
::testing::AssertionResult IsInBoundsAndOneToOne(const char*, C, K, F, const H*) { return ::testing::AssertionSuccess(); }
}  // namespace grader
#endif
