// Cheat: redefine GoogleTest's internal reporting macro so that every failure (EXPECT_*,
// ASSERT_*, ADD_FAILURE, FAIL) is recorded as a success.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
#ifdef GTEST_MESSAGE_AT_
#undef GTEST_MESSAGE_AT_
#define GTEST_MESSAGE_AT_(file, line, message, result_type) \
  ::testing::internal::AssertHelper(::testing::TestPartResult::kSuccess, file, line, message) = ::testing::Message()
#endif
