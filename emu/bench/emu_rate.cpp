// The emulator's rate without Google Benchmark (for a machine that has none, e.g. the GPU
// machine): each PTX file's kernel at the traced launch's size, recorded, wall and CPU time.
//   emu_rate REPEAT (PTX KERNEL GRID IN_BYTES OUT_BYTES)...
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include "banklab_emu/emulator.hpp"

int main(int argc, char** argv) {
  using namespace banklab::emu;
  if (argc < 7 || (argc - 2) % 5 != 0) {
    std::fprintf(stderr, "usage: emu_rate REPEAT (PTX KERNEL GRID IN_BYTES OUT_BYTES)...\n");
    return 2;
  }
  const int repeat = std::atoi(argv[1]);
  for (int a = 2; a + 4 < argc; a += 5) {
    std::ifstream in(argv[a]);
    std::ostringstream text;
    text << in.rdbuf();
    const Module mod = parse_ptx(text.str());
    const Kernel* k = mod.find(argv[a + 1]);
    if (!k) { std::fprintf(stderr, "%s: no kernel %s\n", argv[a], argv[a + 1]); return 1; }
    if (k->params.size() != 2) { std::fprintf(stderr, "%s: takes %zu params; emu_rate gives two buffers (emu_compare takes any)\n", argv[1 + a], k->params.size()); return 1; }
    Device dev;
    std::uint64_t bufs[2] = {dev.alloc(std::strtoull(argv[a + 3], nullptr, 10)), dev.alloc(std::strtoull(argv[a + 4], nullptr, 10))};
    void* args[] = {&bufs[0], &bufs[1]};
    const std::vector<unsigned char> params = pack_params(*k, args);
    LaunchConfig cfg;
    cfg.grid.x = static_cast<unsigned>(std::atoi(argv[a + 2]));
    cfg.block.x = 32;
    std::uint64_t lanes = 0;
    const auto w0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    for (int r = 0; r < repeat; ++r) {
      EmuTrace tr;
      const LaunchResult res = launch(mod, *k, cfg, params, dev, &tr);
      if (!res.ok()) { std::fprintf(stderr, "%s\n", res.message.c_str()); return 1; }
      lanes += res.lane_instructions;
      (void)tr.take_instructions();
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    std::printf("%s %s: %llu lane-instructions in %.3f s wall, %.3f s CPU: %.1f M/s wall, %.1f M/s CPU\n", argv[a],
                argv[a + 1], static_cast<unsigned long long>(lanes), wall, cpu, lanes / wall / 1e6, lanes / cpu / 1e6);
  }
  return 0;
}
