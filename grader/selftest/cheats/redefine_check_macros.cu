// Cheat: redefine the grader's check macros and GoogleTest's comparison macros so that a failed
// check reports nothing. Takes effect in any code compiled after the student's file.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
#include <sstream>
#undef BANKLAB_EXPECT
#undef BANKLAB_ASSERT
#define BANKLAB_EXPECT(result) if (true) {} else std::ostringstream()
#define BANKLAB_ASSERT(result) if (true) {} else std::ostringstream()
#undef EXPECT_EQ
#undef ASSERT_EQ
#undef EXPECT_TRUE
#undef ASSERT_TRUE
#undef EXPECT_LE
#undef EXPECT_GE
#undef EXPECT_NEAR
#undef ASSERT_LE
#define EXPECT_EQ(a, b) if (true) {} else std::ostringstream()
#define ASSERT_EQ(a, b) if (true) {} else std::ostringstream()
#define EXPECT_TRUE(a) if (true) {} else std::ostringstream()
#define ASSERT_TRUE(a) if (true) {} else std::ostringstream()
#define EXPECT_LE(a, b) if (true) {} else std::ostringstream()
#define EXPECT_GE(a, b) if (true) {} else std::ostringstream()
#define ASSERT_LE(a, b) if (true) {} else std::ostringstream()
#define EXPECT_NEAR(a, b, c) if (true) {} else std::ostringstream()
