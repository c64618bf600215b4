// Lab 03's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process. Its main()
// and every name, op, width and size come from the lab's description (labs/03_vector_lds/judge/lab.toml); here is
// only the code that calls the student's functions, one function per table, instruction and launcher.
#include "grader/lab03_probe.hpp"

using namespace lab03;

long long lab03_desc::table_slot_offset(const int* i) { return slot_offset(i[0], i[1]); }

// Staging copy k of warp w: lane l stores float4 number e = k * kThreads + 32 w + l, member
// e % 2 of pair e / 2. Then, for each j, warp w loads member m of pairs (32 w + lane) *
// kPairsPerThread + j.
long long lab03_desc::access_staging_store(const int* i, int lane) {
  const int e = i[1] * kThreads + 32 * i[0] + lane;
  return static_cast<long long>(slot_offset(e / 2, e % 2));
}
long long lab03_desc::access_member_load(const int* i, int lane) {
  return static_cast<long long>(slot_offset((32 * i[0] + lane) * kPairsPerThread + i[1], i[2]));
}

// The launcher, called as the GPU tier's checks call it.
void lab03_desc::launch_split_pairs(const probe::Call& call) {
  const int pairs = call.size(0);
  call({16ull * pairs, 16ull * pairs, 32ull * pairs}, [pairs](const probe::Fakes& f) {
    split_pairs(f.ptr<float4>(0), f.ptr<float4>(1), f.ptr<const float4>(2), pairs);
  });
}
