// Cheat: the whole file is one quoted #include of the course's own solution. A judge that compiles
// with -I<course>/common/include (or any other folder of the course tree) resolves
// "../../solutions/05_swizzle/kernel.cu" through that folder, and the course's solution is graded
// as the student's work (every test passes). Nothing of the course tree may exist for a compile:
// only the system, the CUDA toolkit and a snapshot of the headers a lab may include.
// MODE: replace
// EXPECT: build-fails: no course file is reachable from the student's compile, so the include finds nothing
// MARKER: kSwizzledColumnReadWavefronts = 1
#include "../../solutions/05_swizzle/kernel.cu"
