// Cheat: a static object whose destructor runs after main returned 1 and ends the process with 0.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
#include <unistd.h>
namespace banklab_cheat_dtor {
struct ExitZeroOnDestruction {
  ~ExitZeroOnDestruction() { _exit(0); }
};
ExitZeroOnDestruction kGuard;
}  // namespace banklab_cheat_dtor
