// What of a PTX module the emulator does not know yet, kernel by kernel (the instructions the
// reader keeps as Unsupported, with their reasons and how many), and, given a launch shape, how
// each kernel's launch ends when every pointer param is a fresh zeroed buffer of 16 MiB and every
// other param N (default 64):
//   emu_census PTX [GRID BLOCK [N]]        (GRID, BLOCK as x[,y[,z]])
// A census of bench/trace_ops.cu, trace_many.cu, trace_atomics.cu (docs/dev/EMULATOR.md).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "banklab_emu/emulator.hpp"

namespace {

banklab::emu::Dim3 dims(const char* s) {
  banklab::emu::Dim3 d;
  unsigned v[3] = {1, 1, 1};
  std::sscanf(s, "%u,%u,%u", &v[0], &v[1], &v[2]);
  d.x = v[0], d.y = v[1], d.z = v[2];
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace banklab;
  if (argc < 2) {
    std::fprintf(stderr, "usage: emu_census PTX [GRID BLOCK [N]]\n");
    return 2;
  }
  std::ifstream f(argv[1]);
  std::ostringstream text;
  text << f.rdbuf();
  const emu::Module mod = emu::parse_ptx(text.str());
  int unknown_kernels = 0;
  for (const emu::Kernel& k : mod.kernels) {
    std::map<std::string, int> why;
    for (const emu::Inst& in : k.code)
      if (in.family == emu::Family::Unsupported) ++why[in.why];
    std::printf("%s: %zu instructions, %s\n", trace::display_name(k.name).c_str(), k.code.size(),
                why.empty() ? "every one known" : "not known:");
    for (const auto& [w, n] : why) std::printf("    %d x %s\n", n, w.c_str());
    unknown_kernels += !why.empty();
    if (argc < 4) continue;
    emu::Device dev;
    std::vector<unsigned char> params(k.param_bytes, 0);
    const std::uint64_t n = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 64;
    for (const emu::Param& p : k.params) {
      const std::uint64_t v = p.size == 8 ? dev.alloc(16u << 20) : n;
      std::memcpy(params.data() + p.offset, &v, p.size);
    }
    emu::LaunchConfig cfg;
    cfg.grid = dims(argv[2]);
    cfg.block = dims(argv[3]);
    emu::EmuTrace tr;
    const emu::LaunchResult r = emu::launch(mod, k, cfg, params, dev, &tr);
    std::uint64_t shared = 0;
    for (const trace::Instruction& i : tr.take_instructions()) shared += i.count;
    std::printf("    launch %s x %s: %s%s%s (%llu warp instructions, %llu shared)\n", argv[2], argv[3],
                r.ok() ? "ran to the end" : "stopped: ", r.message.c_str(), "", static_cast<unsigned long long>(r.warp_instructions),
                static_cast<unsigned long long>(shared));
  }
  std::printf("%zu kernels, %d with instructions not known\n", mod.kernels.size(), unknown_kernels);
  return 0;
}
