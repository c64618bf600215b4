// Cheat: redefine TEST so that every test after the student's file becomes a plain function that
// is never registered: zero tests run, and gtest exits 0.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
#undef TEST
#define TEST(suite, name) [[maybe_unused]] static void banklab_cheat_##suite##_##name()
