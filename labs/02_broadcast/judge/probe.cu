// Lab 02's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process. Its main()
// and every name, op, width and size come from the lab's description (labs/02_broadcast/judge/lab.toml); here is
// only the code that calls the student's functions, one function per table, instruction and launcher.
// The staging copy's order is written in the kernel body, not in an access function, so only the
// trace of the real stores judges it.
#include "grader/lab02_probe.hpp"

using namespace lab02;

long long lab02_desc::table_channel_of(const int* i) { return channel_of(i[0]); }
long long lab02_desc::table_coef_index(const int* i) { return coef_index(i[0], i[1]); }

// Horner's rule, term t: lane l loads coefficient t of channel_of(l).
long long lab02_desc::access_table_load(const int* i, int lane) { return 4LL * coef_index(channel_of(lane), i[0]); }

// The launcher, called as the GPU tier's checks call it; coefs is kChannels x kTerms floats (the
// variant's: the judge fails a file whose constants are another's before it launches anything).
void lab02_desc::launch_eval_channels_launch(const probe::Call& call) {
  const int n = call.size(0);
  call({4ull * n, 4ull * kChannels * kTerms, 4ull * n}, [n](const probe::Fakes& f) {
    eval_channels_launch(f.ptr<const float>(0), f.ptr<const float>(1), f.ptr<float>(2), n);
  });
}
