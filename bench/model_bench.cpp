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

namespace {

using banklab::Op;
using banklab::WarpAccess;

// A fixed pool of random valid accesses of one width and op (deterministic seed): a mix of
// random offsets, random strides and lane pairs sharing an address (so that 64/128-bit loads
// sometimes merge), with mostly full masks.
std::vector<WarpAccess> make_pool(int width, Op op) {
  std::mt19937 rng(12345u + static_cast<unsigned>(width) * 7u + (op == Op::Store ? 1u : 0u));
  std::vector<WarpAccess> pool(4096);
  const std::uint32_t elems = 48u * 1024u / static_cast<std::uint32_t>(width);  // 48 KiB region
  for (WarpAccess& a : pool) {
    a.op = op;
    a.width = width;
    a.mask = (rng() % 4 == 0) ? static_cast<std::uint32_t>(rng()) : 0xffffffffu;
    const unsigned kind = rng() % 3;
    const std::uint32_t base = rng() % (elems / 2);
    const std::uint32_t stride = rng() % 65;
    for (int i = 0; i < banklab::kWarpSize; ++i) {
      std::uint32_t e = 0;
      if (kind == 0) e = rng() % elems;                                      // random
      else if (kind == 1) e = (base + static_cast<std::uint32_t>(i) * stride) % elems;  // strided
      else e = (base + static_cast<std::uint32_t>(i / 2) * stride) % elems;  // pairs share
      a.offset[static_cast<std::size_t>(i)] = e * static_cast<std::uint32_t>(width);
    }
    if (banklab::validate(a)) std::abort();  // the pool must be valid input
  }
  return pool;
}

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
