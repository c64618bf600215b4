// Lab 02's probe: compiled after the student's kernel.cu (banklab-judge build writes the wrapper
// that includes both, see grader/include/grader/probe.hpp) and run in its own process.
// The coefficient loads of eval_channels are described here, once; the staging copy's order is
// written in the kernel body, not in an access function, so only the trace of the real stores judges it.

int main(int argc, char** argv) {
  using namespace lab02;
  probe::Writer w(argc, argv, "02");
  w.value("kChannels", kChannels);
  w.value("kLanesPerChannel", kLanesPerChannel);
  w.value("kTerms", kTerms);
  w.value("kTableFloats", kTableFloats);
  w.value("kBlockThreads", kBlockThreads);
  w.table("channel_of", {32}, [](const int* i) { return channel_of(i[0]); });
  w.table("coef_index", {kChannels, kTerms}, [](const int* i) { return coef_index(i[0], i[1]); });
  // Horner's rule, term t: lane l loads coefficient t of channel_of(l).
  w.access("table_load", "ld", 4, {kTerms}, [](const int* i, int lane) { return 4LL * coef_index(channel_of(lane), i[0]); });
  w.predict("kAllLanesLoadOneWord", predict::kAllLanesLoadOneWord);
  w.predict("kAllLanesStoreOneWord", predict::kAllLanesStoreOneWord);
  w.predict("kGroupsOf4LoadConsecutiveWords", predict::kGroupsOf4LoadConsecutiveWords);
  w.predict("kTwoWordsInOneBank", predict::kTwoWordsInOneBank);
  w.predict("kGroupsOf4LoadWords32Apart", predict::kGroupsOf4LoadWords32Apart);
  w.predict("kStoresToWordsStride32", predict::kStoresToWordsStride32);
  w.predict("kStubTableLoad", predict::kStubTableLoad);
  // The launcher, called as the GPU tier's checks call it (grader/launch_calls.hpp).
  probe::kernel(eval_channels);
  for (int n : {grader_calls::lab02::kCorrectSamples, grader_calls::lab02::kTimingSamples}) {
    probe::call(w, grader_calls::name("eval_channels_launch", {n}), {4ull * n, 4ull * 4 * 32, 4ull * n},
                [n](const probe::Fakes& f) {
                  eval_channels_launch(f.ptr<const float>(0), f.ptr<const float>(1), f.ptr<float>(2), n);
                });
  }
  return 0;
}
