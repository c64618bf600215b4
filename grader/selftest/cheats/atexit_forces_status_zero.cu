// Cheat: an atexit handler that turns any exit status (the test binary's 1) into 0.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
#include <cstdlib>
#include <unistd.h>
namespace banklab_cheat_atexit {
inline void force_zero() { _exit(0); }
const int kRegistered = std::atexit(force_zero);
}  // namespace banklab_cheat_atexit
