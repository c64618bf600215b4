// Cheat: define main. In a program that links gtest_main (a static library), this main wins and
// no test ever runs. A grader whose own main is in the same program must refuse to build it (a
// build failure is a correct verdict) or must never link the student's main.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// BUILD: may-fail: a second main cannot link with the probe's own main: the lab does not build, which is a correct verdict
int main() { return 0; }
