// Cheat (issue 45, family 1): a real failure of bubblewrap that the file causes. A 65 MiB host
// table makes the linked probe larger than its step's 64 MiB file-size limit (RLIMIT_FSIZE), which
// bubblewrap inherits when it writes the probe into the sandbox ("Can't write data to file
// /in/probe: File too large"): a judge that took bubblewrap's words for the machine's failure made
// the file "not graded". The judge measures the probe against the limit before its run: the
// build fails with the probe's size, as the file's.
// APPLIES: 05
// MODE: append
// EXPECT: build-fails: a probe larger than its step's file-size limit is the file's failure, judged before its run
#ifndef __CUDA_ARCH__
__attribute__((used)) char banklab_cheat_table[65 << 20] = {1};
#endif
