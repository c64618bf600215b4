// Throughput of the reference model: count-only (count_wavefronts), the one-pass summary
// (summarize: wavefronts, minimum, grouping, merged) and the full explanation (analyze), for 4-,
// 8- and 16-byte loads and stores, over four pools (model_pool.hpp): "mixed" (the first
// figures' pool), "realistic" (shapes of real kernels' traffic, 24-46 % of it above its minimum),
// "random" (uniform offsets, the worst case) and "conflict-free" (what a tuned kernel's trace
// mostly holds). Goal (issue 8): >= 50 million count-only analyses per second on one core.
//
//   model_bench                                  all cases
//   model_bench --benchmark_filter=Count         count-only
//   model_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//                                                on a shared machine: report the median
//   bench/model_callgrind.sh build/dev/bench/model_instructions count   (instructions per access)
//
// Measured 2026-11-22 on the shared 2-core build machine (Intel Xeon, Sapphire Rapids class,
// 2.3 GHz nominal, load average 2-4 from other builds), GCC 12 -O3, SSE2 baseline (no -march),
// count_wavefronts, CPU time median of 5 (M/s = million warp instructions per second, one core):
//
//   pool           ld 4   ld 8   ld 16  st 4   st 8   st 16    before the fast path (same pools)
//   conflict-free  48.3   35.1   34.1   49.0   41.0   39.7     17.8-19.6
//   realistic      23.3   20.4   19.3   23.2   23.0   24.6     16.6-19.1
//   mixed          19.5   18.1   18.0   19.5   20.0   19.8     16.7-18.9
//   random         19.5   16.2   18.1   19.1   19.4   20.0     18.2-20.4
//
// Instructions per access under callgrind (load-independent), before -> after the fast path:
//   conflict-free  462/589/621 -> 253/380/389 (ld 4/8/16), 460/512/547 -> 250/303/314 (st)
//   realistic      461/578/607 -> 424/543/501 (ld),        462/512/546 -> 425/466/429 (st)
//   mixed          461/570/595 -> 485/587/611 (ld),        460/513/547 -> 482/529/557 (st)
//   random         440/570/604 -> 500/630/663 (ld),        440/489/523 -> 500/549/582 (st)
// The 50 M/s goal is met nowhere yet: conflict-free 32-bit traffic comes within a few percent of
// it; any access that needs the table (a real conflict, a broadcast or multicast) still costs
// ~50 ns, bound by two stores per lane (the seen-stamp and the histogram byte).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "banklab/model.hpp"
#include "model_pool.hpp"

namespace {

using banklab::Op;
using banklab::WarpAccess;
using banklab::bench::Pool;

Op op_of(const benchmark::State& s) { return s.range(1) ? Op::Store : Op::Load; }
Pool pool_of(const benchmark::State& s) { return static_cast<Pool>(s.range(2)); }

std::vector<WarpAccess> make_pool(const benchmark::State& s) {
  return banklab::bench::make_pool(static_cast<int>(s.range(0)), op_of(s), pool_of(s));
}

void set_label(benchmark::State& s) {
  s.SetLabel(std::string(op_of(s) == Op::Load ? "ld" : "st") + " width " + std::to_string(s.range(0)) +
             " " + banklab::bench::pool_name(pool_of(s)));
}

void BM_CountWavefronts(benchmark::State& state) {
  const std::vector<WarpAccess> pool = make_pool(state);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(banklab::count_wavefronts(pool[i]));
    i = (i + 1) & (pool.size() - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  set_label(state);
}

void BM_CountAndMinimum(benchmark::State& state) {
  const std::vector<WarpAccess> pool = make_pool(state);
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
  const std::vector<WarpAccess> pool = make_pool(state);
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
  const std::vector<WarpAccess> pool = make_pool(state);
  std::size_t i = 0;
  for (auto _ : state) {
    banklab::Analysis r = banklab::analyze(pool[i]);
    benchmark::DoNotOptimize(r.wavefronts);
    i = (i + 1) & (pool.size() - 1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  set_label(state);
}

// Args: {width, 0 = load / 1 = store, pool: 0 = mixed / 1 = realistic / 2 = random / 3 = conflict-free}
#define BANKLAB_CASES ArgsProduct({{4, 8, 16}, {0, 1}, {0, 1, 2, 3}})->ArgNames({"width", "store", "pool"})
#define BANKLAB_MIXED ArgsProduct({{4, 8, 16}, {0, 1}, {0}})->ArgNames({"width", "store", "pool"})
BENCHMARK(BM_CountWavefronts)->BANKLAB_CASES;
BENCHMARK(BM_CountAndMinimum)->BANKLAB_MIXED;
BENCHMARK(BM_Summarize)->BANKLAB_CASES;
BENCHMARK(BM_Analyze)->BANKLAB_MIXED;

}  // namespace

BENCHMARK_MAIN();
