// The emulator's tests' one launch set-up (every emu test file uses it): a module read from PTX, a
// Device with the test's buffers, the launch's shape and the trace, in one object; and, for the
// instruction families and the benchmark, a kernel around a few lines of PTX (kernel_around:
// lane t has %r10 = %tid.x, leaves its result in %rd1, and the harness stores it to out[t]).
#pragma once
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "banklab_emu/emulator.hpp"
#include "banklab_emu/tensor_map.hpp"

namespace banklab::emu::test {

/// A file's whole text ("" when it cannot be read: the parse then fails naming nothing found).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

/// One emulated device with one module: make it, allocate and fill its buffers, set `cfg`, run a
/// kernel, read back. Not copyable (the trace keeps the module's kernels by address).
class Emu {
 public:
  /// The module of PTX text; parse_ptx()'s std::runtime_error when it is refused.
  explicit Emu(const std::string& ptx) : mod(parse_ptx(ptx)) { cfg.block.x = 32; }
  Emu(const Emu&) = delete;
  Emu& operator=(const Emu&) = delete;

  Module mod;
  Device dev;
  EmuTrace trace;
  LaunchConfig cfg;  ///< one block of one warp unless the test says otherwise

  /// The kernel whose name is `name` or ends with it ("": the module's first); std::runtime_error
  /// naming it when there is none.
  const Kernel& kernel(const std::string& name = "") const {
    if (name.empty() && !mod.kernels.empty()) return mod.kernels.front();
    for (const Kernel& k : mod.kernels)
      if (k.name.size() >= name.size() && k.name.compare(k.name.size() - name.size(), name.size(), name) == 0) return k;
    throw std::runtime_error("no kernel " + name + " in the PTX");
  }
  bool has_kernel(const std::string& name) const {
    for (const Kernel& k : mod.kernels)
      if (k.name.size() >= name.size() && k.name.compare(k.name.size() - name.size(), name.size(), name) == 0) return true;
    return false;
  }

  std::uint64_t alloc(std::size_t bytes) { return dev.alloc(bytes); }
  /// A buffer holding `v`.
  template <class T>
  std::uint64_t upload(const std::vector<T>& v) {
    const std::uint64_t at = dev.alloc(v.size() * sizeof(T));
    dev.write(at, v.data(), v.size() * sizeof(T));
    return at;
  }
  /// n values of type T from device address `at`.
  template <class T>
  std::vector<T> download(std::uint64_t at, std::size_t n) const {
    std::vector<T> out(n);
    dev.read(at, out.data(), n * sizeof(T));
    return out;
  }

  /// The kernel's params from one value each, at its param's offset: its low bytes (little-endian:
  /// an int param takes the low 4 bytes of its value, a pointer all 8).
  static std::vector<unsigned char> params_of(const Kernel& k, const std::vector<std::uint64_t>& values) {
    if (values.size() != k.params.size())
      throw std::runtime_error(k.name + " takes " + std::to_string(k.params.size()) + " params, given " +
                               std::to_string(values.size()));
    std::vector<unsigned char> params(k.param_bytes, 0);
    for (std::size_t i = 0; i < values.size(); ++i)
      std::memcpy(params.data() + k.params[i].offset, &values[i], k.params[i].size < 8 ? k.params[i].size : 8);
    return params;
  }

  /// Runs `k` with `cfg` and these param bytes, recorded in `trace` unless `traced` is false.
  LaunchResult run_params(const Kernel& k, const std::vector<unsigned char>& params, bool traced = true) {
    return launch(mod, k, cfg, params, dev, traced ? &trace : nullptr);
  }
  /// The same with one value a param (params_of()).
  LaunchResult run(const Kernel& k, const std::vector<std::uint64_t>& values, bool traced = true) {
    return run_params(k, params_of(k, values), traced);
  }
};

/// The tensor map of a rows x k matrix of halves (row-major) at `address`, as lab 07's judge encodes
/// it (labs/07_tma_swizzle/judge/test.cu, encode_map()): boxes of box_bytes / 2 halves x 64 rows in
/// the kernel's swizzle mode (its kSwizzleBytes: 0, 32, 64 or 128). tma::kSuccess or the refusal.
inline int encode_halves_map(TensorMap& map, std::uint64_t address, std::uint64_t rows, std::uint64_t k, int box_bytes,
                             int swizzle_bytes, std::string* why = nullptr) {
  const int mode = swizzle_bytes == 32 ? tma::kSwizzle32B : swizzle_bytes == 64 ? tma::kSwizzle64B
                   : swizzle_bytes == 128 ? tma::kSwizzle128B : tma::kSwizzleNone;
  const std::uint64_t dims[2] = {k, rows}, strides[1] = {k * 2};
  const std::uint32_t box[2] = {static_cast<std::uint32_t>(box_bytes / 2), 64}, step[2] = {1, 1};
  return encode_tiled(&map, tma::kTypeFloat16, 2, address, dims, strides, box, step, tma::kInterleaveNone, mode,
                      tma::kL2None, tma::kOobFillNone, why);
}

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
  Emu e(kernel_around(body));
  const std::uint64_t out = e.alloc(threads * 8ull), inp = e.upload(in);
  e.cfg.block.x = threads;
  e.cfg.max_warp_instructions = max_instructions;
  BodyRun r;
  r.result = e.run(e.kernel(), {out, inp});
  r.out = e.download<std::uint64_t>(out, threads);
  r.shared = e.trace.take_instructions();
  return r;
}

}  // namespace banklab::emu::test
