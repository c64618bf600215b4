// Cheat (issue 45, family 1): no code of the file runs. A #line directive names the file after
// bubblewrap's own error line, and a host-only asm statement the assembler refuses makes the host
// compiler's first line of output read as bubblewrap's ("bwrap: Can't mount proc on /newroot/proc:
// Device or resource busy: Assembler messages:"), with nvcc's exit 1. A judge that reads the
// compiler's words as the sandbox's made the file "not graded". The judge's own known-good file
// compiles the same way (the control), so the build fails, as the file's, and its message says
// that #line directives hide which messages are about the file.
// APPLIES: 05
// MODE: append
// EXPECT: build-fails: the host code does not assemble, the file's failure (a compile error), never a fault
// MARKER: Can't mount proc
#line 1 "bwrap: Can't mount proc on /newroot/proc: Device or resource busy"
#ifndef __CUDA_ARCH__
void banklab_cheat_bad_asm() { asm volatile("banklab_no_such_instruction"); }
#endif
