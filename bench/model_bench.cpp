// Throughput of the reference model on random valid patterns: count-only (count_wavefronts),
// the one-pass summary (summarize: wavefronts, minimum, grouping, merged) and the full
// explanation (analyze), for 4-, 8- and 16-byte loads and stores.
// Goal (issue 8): >= 50 million count-only analyses per second on one core.
//
//   model_bench                                  all cases
//   model_bench --benchmark_filter=Count         count-only
//   model_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//                                                on a shared machine: report the median
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "banklab/model.hpp"
#include "model_pool.hpp"

namespace {

using banklab::Op;
using banklab::WarpAccess;
using banklab::bench::make_pool;

Op op_of(const benchmark::State& s) { return s.range(1) ? Op::Store : Op::Load; }

void set_label(benchmark::State& s) {
  s.SetLabel(std::string(op_of(s) == Op::Load ? "ld" : "st") + " width " + std::to_string(s.range(0)));
}

void BM_CountWavefronts(benchmark::State& state) {
  const std::vector<WarpAccess> pool = make_pool(static_cast<int>(state.range(0)), op_of(state));
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(banklab::count_wavefronts(pool[i]));
    i = (i + 1) & (pool.size() - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  set_label(state);
}

void BM_CountAndMinimum(benchmark::State& state) {
  const std::vector<WarpAccess> pool = make_pool(static_cast<int>(state.range(0)), op_of(state));
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(banklab::count_wavefronts(pool[i]));
    benchmark::DoNotOptimize(banklab::minimum_wavefronts(pool[i]));
    i = (i + 1) & (pool.size() - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  set_label(state);
}

void BM_Summarize(benchmark::State& state) {
  const std::vector<WarpAccess> pool = make_pool(static_cast<int>(state.range(0)), op_of(state));
  std::size_t i = 0;
  for (auto _ : state) {
    const banklab::Summary s = banklab::summarize(pool[i]);
    benchmark::DoNotOptimize(s);
    i = (i + 1) & (pool.size() - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  set_label(state);
}

void BM_Analyze(benchmark::State& state) {
  const std::vector<WarpAccess> pool = make_pool(static_cast<int>(state.range(0)), op_of(state));
  std::size_t i = 0;
  for (auto _ : state) {
    banklab::Analysis r = banklab::analyze(pool[i]);
    benchmark::DoNotOptimize(r.wavefronts);
    i = (i + 1) & (pool.size() - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  set_label(state);
}

// Args: {width, 0 = load / 1 = store}
#define BANKLAB_CASES ArgsProduct({{4, 8, 16}, {0, 1}})->ArgNames({"width", "store"})
BENCHMARK(BM_CountWavefronts)->BANKLAB_CASES;
BENCHMARK(BM_CountAndMinimum)->BANKLAB_CASES;
BENCHMARK(BM_Summarize)->BANKLAB_CASES;
BENCHMARK(BM_Analyze)->BANKLAB_CASES;

}  // namespace

BENCHMARK_MAIN();
