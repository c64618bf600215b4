// Lab 03's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process.
// Each shared-memory instruction of deinterleave is described here, once.

int main(int argc, char** argv) {
  using namespace lab03;
  probe::Writer w(argc, argv, "03");
  w.value("kPairsPerBlock", kPairsPerBlock);
  w.value("kThreads", kThreads);
  w.value("kVecBytes", kVecBytes);
  w.value("kTileBytes", kTileBytes);
  w.table("slot_offset", {kPairsPerBlock, 2}, [](const int* i) { return slot_offset(i[0], i[1]); });
  const int warps = kThreads / 32;
  // Staging copy k of warp w: lane l stores float4 number e = k * kThreads + 32 w + l, member
  // e % 2 of pair e / 2. Then warp w loads member m of pairs 32 w + lane.
  w.access("staging_store", "st", 16, {warps, 2}, [](const int* i, int lane) {
    const int e = i[1] * kThreads + 32 * i[0] + lane;
    return static_cast<long long>(slot_offset(e / 2, e % 2));
  });
  w.access("member_load", "ld", 16, {warps, 2},
           [](const int* i, int lane) { return static_cast<long long>(slot_offset(32 * i[0] + lane, i[1])); });
  w.predict("kFloat2ContiguousLoad", predict::kFloat2ContiguousLoad);
  w.predict("kFloat2PairSharedLoad", predict::kFloat2PairSharedLoad);
  w.predict("kFloat2PairSharedStore", predict::kFloat2PairSharedStore);
  w.predict("kFloat4ContiguousLoad", predict::kFloat4ContiguousLoad);
  w.predict("kFloat4Stride2Load", predict::kFloat4Stride2Load);
  w.predict("kFloat4PairSharedStride32Load", predict::kFloat4PairSharedStride32Load);
  w.predict("kFloat4PairSharedStride32NcuConflicts", predict::kFloat4PairSharedStride32NcuConflicts);
  w.predict("kFloat4SameAddressLoad", predict::kFloat4SameAddressLoad);
  w.predict("kFloat4SameAddressStore", predict::kFloat4SameAddressStore);
  // The launcher, called as the GPU tier's checks call it (grader/launch_calls.hpp).
  probe::kernel(deinterleave);
  for (int pairs : {grader_calls::lab03::kCorrectPairs, grader_calls::lab03::kTimingPairs}) {
    probe::call(w, grader_calls::name("split_pairs", {pairs}), {16ull * pairs, 16ull * pairs, 32ull * pairs},
                [pairs](const probe::Fakes& f) {
                  split_pairs(f.ptr<float4>(0), f.ptr<float4>(1), f.ptr<const float4>(2), pairs);
                });
  }
  return 0;
}
