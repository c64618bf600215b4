// A kernel around a few lines of PTX, for the tests of instruction families and the benchmark:
// lane t has %r10 = %tid.x, leaves its result in %rd1, and the harness stores it to out[t].
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "banklab_emu/emulator.hpp"

namespace banklab::emu::test {

inline std::string kernel_around(const std::string& body) {
  return ".version 9.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry t(\n\t.param .u64 t_param_0,\n\t.param .u64 t_param_1\n)\n{\n"
         "\t.reg .pred %p<8>;\n\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n"
         "\t.reg .f32 %f<16>;\n\t.reg .f64 %fd<8>;\n"
         "\t.shared .align 16 .b8 buf[1024];\n"
         "\tld.param.u64 %rd10, [t_param_0];\n\tld.param.u64 %rd13, [t_param_1];\n"
         "\tmov.u32 %r10, %tid.x;\n\tmul.wide.u32 %rd11, %r10, 8;\n\tadd.s64 %rd12, %rd10, %rd11;\n"
         "\tmov.u64 %rd1, 0;\n" + body + "\n\tst.global.u64 [%rd12], %rd1;\n\tret;\n}\n";
}

struct BodyRun {
  LaunchResult result;
  std::vector<std::uint64_t> out;  ///< one value a thread
  std::vector<trace::Instruction> shared;  ///< the shared-memory records
};

/// Runs the body in one block of `threads` threads; `in` is the second param (global memory).
inline BodyRun run_body(const std::string& body, unsigned threads = 32, std::uint64_t max_instructions = 1'000'000,
                    const std::vector<std::uint64_t>& in = std::vector<std::uint64_t>(64, 0)) {
  const Module mod = parse_ptx(kernel_around(body));
  Device dev;
  const std::uint64_t out = dev.alloc(threads * 8ull), inp = dev.alloc(in.size() * 8);
  dev.write(inp, in.data(), in.size() * 8);
  void* args[] = {const_cast<std::uint64_t*>(&out), const_cast<std::uint64_t*>(&inp)};
  const Kernel& k = mod.kernels.at(0);
  LaunchConfig cfg;
  cfg.block.x = threads;
  cfg.max_warp_instructions = max_instructions;
  EmuTrace tr;
  BodyRun r;
  r.result = launch(mod, k, cfg, pack_params(k, args), dev, &tr);
  r.out.resize(threads);
  dev.read(out, r.out.data(), threads * 8ull);
  r.shared = tr.take_instructions();
  return r;
}

}  // namespace banklab::emu::test
