// Cheat: _exit(0) from an __attribute__((constructor)) function: runs before main, skips every
// destructor and every atexit handler.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
#include <unistd.h>
__attribute__((constructor)) static void banklab_cheat_underscore_exit() { _exit(0); }
