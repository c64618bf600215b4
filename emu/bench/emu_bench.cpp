// The emulator's speed (issue 47's target: at least 20 million lane-instructions a second), a
// Google Benchmark, not a timed test:
//   build/selftest/emu/bench/emu_bench --benchmark_min_time=1
// LabKernel: the traced launch of a lab's kernel (its PTX from nvcc), recorded as the judge
// records it (EmuTrace). ArithmeticLoop: a loop of integer arithmetic, nothing recorded.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "banklab_emu/emulator.hpp"

namespace {

using namespace banklab::emu;

std::string slurp(const char* path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

void run(benchmark::State& state, const Module& mod, const Kernel& k, const LaunchConfig& cfg,
         const std::vector<std::uint64_t>& sizes, bool traced) {
  Device dev;
  std::vector<std::uint64_t> bufs;
  for (std::uint64_t s : sizes) bufs.push_back(dev.alloc(s));
  std::vector<void*> args;
  for (std::uint64_t& b : bufs) args.push_back(&b);
  const std::vector<unsigned char> params = pack_params(k, args.data());
  std::uint64_t lanes = 0, warps = 0;
  for (auto _ : state) {
    EmuTrace tr;
    const LaunchResult r = launch(mod, k, cfg, params, dev, traced ? &tr : nullptr);
    if (!r.ok()) state.SkipWithError(r.message.c_str());
    lanes += r.lane_instructions;
    warps += r.warp_instructions;
    if (traced) benchmark::DoNotOptimize(tr.take_instructions());
  }
  state.counters["lane_instructions/s"] = benchmark::Counter(static_cast<double>(lanes), benchmark::Counter::kIsRate);
  state.counters["warp_instructions/s"] = benchmark::Counter(static_cast<double>(warps), benchmark::Counter::kIsRate);
}

void LabKernel(benchmark::State& state, const char* ptx, const char* kernel, bool lab01) {
  const Module mod = parse_ptx(slurp(ptx));
  const Kernel* k = mod.find(kernel);
  if (!k) return state.SkipWithError("kernel not in the PTX");
  LaunchConfig cfg;
  cfg.block.x = 32;
  cfg.grid.x = lab01 ? 512 : 256;  // the traced launch's size (lab.toml)
  run(state, mod, *k, cfg, {lab01 ? 16384ull * 128 : 256ull * 4096, lab01 ? 16384ull * 4 : 256ull * 4096}, true);
}

void ArithmeticLoop(benchmark::State& state) {
  const std::string ptx =
      ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry loop(\n.param .u64 p\n)\n{\n"
      ".reg .pred %p<2>;\n.reg .b32 %r<8>;\n"
      "mov.u32 %r1, %tid.x;\nmov.u32 %r2, 0;\nmov.u32 %r3, 0;\n$L1:\n"
      "mad.lo.s32 %r3, %r3, 3, %r1;\nxor.b32 %r3, %r3, %r2;\nshr.u32 %r4, %r3, 3;\nadd.s32 %r3, %r3, %r4;\n"
      "add.s32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, 1000;\n@%p1 bra $L1;\nret;\n}\n";
  const Module mod = parse_ptx(ptx);
  LaunchConfig cfg;
  cfg.block.x = 256;
  cfg.grid.x = 8;
  run(state, mod, mod.kernels.at(0), cfg, {8}, false);
}

}  // namespace

BENCHMARK_CAPTURE(LabKernel, lab00_solution, BANKLAB_EMU_PTX_LAB00_SOLUTION, "_ZN5lab0013multiply_by_iEPKfPf", false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(LabKernel, lab00_stub, BANKLAB_EMU_PTX_LAB00_STUB, "_ZN5lab0013multiply_by_iEPKfPf", false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(LabKernel, lab01_solution, BANKLAB_EMU_PTX_LAB01_SOLUTION, "_ZN5lab018row_sumsEPKfPf", true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(LabKernel, lab01_stub, BANKLAB_EMU_PTX_LAB01_STUB, "_ZN5lab018row_sumsEPKfPf", true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(ArithmeticLoop)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
