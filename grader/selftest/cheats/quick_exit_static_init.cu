// Cheat: std::quick_exit(0) from a static initializer (no atexit handlers, no flush of the judge's files).
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
#include <cstdlib>
namespace banklab_cheat_quick_exit {
const int kEnd = (std::quick_exit(0), 0);
}  // namespace banklab_cheat_quick_exit
