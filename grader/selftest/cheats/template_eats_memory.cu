// Cheat (or an accident): device code whose compile grows without bound: a fully unrolled loop of
// four million steps, which the device compiler's memory follows at tens of MB/s. A judge without
// an address-space limit on its compiles lets it take the machine's memory (and every parallel
// grading with it); the judge's limit stops it, and its lab fails to build.
// APPLIES: 05
// MODE: append
// EXPECT: build-fails: the compile must be stopped by the judge's memory or time limit, not finish
// SLOW: yes
__global__ void banklab_cheat_eat_memory(float* x) {
#pragma unroll
  for (int i = 0; i < (1 << 22); ++i) x[i * 3 % 1021] = x[i * 7 % 1019] * 2.f + 1.f;
}
