// Cheat: rename every lab's test suites with macros. The tests still run under new names, and a
// runner that selects tests by their old names (gtest --gtest_filter=Lab05Layout.X) runs zero
// tests and sees status 0.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
#define Lab00Predictions Renamed00Predictions
#define Lab00Layout Renamed00Layout
#define Lab00OnGpu Renamed00OnGpu
#define Lab01Predictions Renamed01Predictions
#define Lab01Layout Renamed01Layout
#define Lab01OnGpu Renamed01OnGpu
#define Lab02Predictions Renamed02Predictions
#define Lab02Layout Renamed02Layout
#define Lab02OnGpu Renamed02OnGpu
#define Lab03Predictions Renamed03Predictions
#define Lab03Layout Renamed03Layout
#define Lab03OnGpu Renamed03OnGpu
#define Lab04Predictions Renamed04Predictions
#define Lab04Layout Renamed04Layout
#define Lab04OnGpu Renamed04OnGpu
#define Lab05Predictions Renamed05Predictions
#define Lab05Layout Renamed05Layout
#define Lab05OnGpu Renamed05OnGpu
