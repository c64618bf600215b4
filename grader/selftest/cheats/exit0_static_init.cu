// Cheat: end the process with status 0 from a static initializer, before any test runs.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
#include <cstdlib>
namespace banklab_cheat_exit0 {
const int kEnd = (std::exit(0), 0);
}  // namespace banklab_cheat_exit0
