// Cheat (or an accident): a file whose compilation takes far longer than any grader should wait:
// constant evaluations of ~2^33 steps each, one after another. Its lab must fail within the
// build timeout (two minutes) and no other lab's grading may wait for it.
// APPLIES: all
// MODE: append
// EXPECT: build-fails: a compile that never ends must be stopped at its limits and fail the lab
// SLOW: yes
namespace banklab_cheat_compile_forever {
constexpr unsigned long spin(unsigned long seed) {
  unsigned long x = seed;
  for (long i = 0; i < 200000; ++i)
    for (long j = 0; j < 200000; ++j) x = x * 6364136223846793005UL + 1442695040888963407UL + static_cast<unsigned long>(j);
  return x;
}
constexpr unsigned long k1 = spin(1);
constexpr unsigned long k2 = spin(2);
constexpr unsigned long k3 = spin(3);
constexpr unsigned long k4 = spin(4);
constexpr unsigned long k5 = spin(5);
static_assert(k1 != k2 || k3 != k4 || k5 != 0, "never reached in practice");
}  // namespace banklab_cheat_compile_forever
