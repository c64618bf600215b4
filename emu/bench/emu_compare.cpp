// One kernel's emulated trace against a hardware trace, record for record (what
// emu/tests/hardware_trace_test.cpp asserts for labs 00 and 01, for any launch):
//   emu_compare TRACE.bltrace PTX KERNEL GRID BLOCK PARAM...
// KERNEL as PTXNAME=TRACENAME when the two spell it apart (an anonymous namespace's hash differs
// from one compile to the next).
// GRID and BLOCK as x[,y[,z]]; each PARAM `buf:BYTES` (a fresh zeroed buffer, its address), `file:PATH`
// (a buffer holding the file's bytes), `i32:N`, `u64:N`, or `map16:ROWS,COLS,BOX_BYTES,SWIZZLE_BYTES`
// (the address of a tensor map that encode_tiled made over a fresh ROWS x COLS matrix of halves,
// boxes of BOX_BYTES / 2 halves x 64 rows, as lab 07's judge encodes them: lab 07's solution at
// lab_driver's size is `3,2 128 buf:98304 map16:128,256,128,128 map16:192,256,128,128 i32:128
// i32:192 i32:256`). Prints the distinct and total warp instructions of each side, how many are equal,
// those only one side has (the first few shown), wavefronts per line; exit 0 when equal, 1 when not.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "banklab_emu/emulator.hpp"
#include "banklab_emu/tensor_map.hpp"

namespace {

using namespace banklab;
using Key = std::tuple<int, int, int, std::uint32_t, std::array<std::uint32_t, kWarpSize>>;

emu::Dim3 dims(const char* s) {
  emu::Dim3 d;
  unsigned v[3] = {1, 1, 1};
  std::sscanf(s, "%u,%u,%u", &v[0], &v[1], &v[2]);
  d.x = v[0], d.y = v[1], d.z = v[2];
  return d;
}

struct Side {
  std::map<Key, std::uint64_t> n;
  std::map<int, std::uint64_t> wavefronts;
  std::uint64_t total = 0;
  void add(const trace::Instruction& i) {
    n[{i.line, static_cast<int>(i.access.op), i.access.width, i.access.mask, i.access.offset}] += i.count;
    wavefronts[i.line] += static_cast<std::uint64_t>(trace::cost_of(i).wavefronts) * i.count;
    total += i.count;
  }
};

std::uint64_t only(const Side& a, const Side& b, const char* name) {
  std::uint64_t missing = 0;
  int shown = 0;
  for (const auto& [k, c] : a.n) {
    auto it = b.n.find(k);
    const std::uint64_t m = it == b.n.end() ? 0 : it->second;
    if (c <= m) continue;
    missing += c - m;
    if (shown++ < (std::getenv("EMU_COMPARE_SHOW") ? std::atoi(std::getenv("EMU_COMPARE_SHOW")) : 3))
      std::printf("  only %s: line %d %s width %d mask %08x x%llu\n", name, std::get<0>(k), to_string(static_cast<Op>(std::get<1>(k))),
                  std::get<2>(k), std::get<3>(k), static_cast<unsigned long long>(c - m));
  }
  return missing;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: emu_compare TRACE.bltrace PTX KERNEL GRID BLOCK PARAM...\n");
    return 2;
  }
  std::ifstream tf(argv[1], std::ios::binary);
  const trace::TraceData data = trace::read_trace(tf);
  std::vector<trace::Instruction> ins;
  std::vector<trace::Unmodelled> un;
  trace::decode(data, ins, un);
  Side hw, em;
  const std::string both = argv[3];
  const std::size_t eq = both.find('=');
  const std::string ptx_name = both.substr(0, eq), trace_name = eq == std::string::npos ? both : both.substr(eq + 1);
  for (const trace::Instruction& i : ins)
    if (i.kernel == trace_name) hw.add(i);
  std::ifstream pf(argv[2]);
  std::ostringstream text;
  text << pf.rdbuf();
  const emu::Module mod = emu::parse_ptx(text.str());
  const emu::Kernel* k = mod.find(ptx_name);
  if (!k) { std::fprintf(stderr, "no kernel %s in %s\n", ptx_name.c_str(), argv[2]); return 2; }
  emu::Device dev;
  std::vector<unsigned char> params(k->param_bytes, 0);
  for (int a = 6, p = 0; a < argc && p < static_cast<int>(k->params.size()); ++a, ++p) {
    std::uint64_t v = 0;
    if (std::strncmp(argv[a], "buf:", 4) == 0) v = dev.alloc(std::strtoull(argv[a] + 4, nullptr, 10));
    else if (std::strncmp(argv[a], "file:", 5) == 0) {  // a buffer holding the file's bytes
      std::ifstream in(argv[a] + 5, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      v = dev.alloc(bytes.size());
      dev.write(v, bytes.data(), bytes.size());
    }
    else if (std::strncmp(argv[a], "map16:", 6) == 0) {
      unsigned long long rows = 0, cols = 0, box = 0, sw = 0;
      std::sscanf(argv[a] + 6, "%llu,%llu,%llu,%llu", &rows, &cols, &box, &sw);
      const std::uint64_t dims[2] = {cols, rows}, strides[1] = {2 * cols};
      const std::uint32_t boxes[2] = {static_cast<std::uint32_t>(box / 2), 64}, step[2] = {1, 1};
      const int mode = sw == 32 ? emu::tma::kSwizzle32B : sw == 64 ? emu::tma::kSwizzle64B : sw == 128 ? emu::tma::kSwizzle128B : emu::tma::kSwizzleNone;
      emu::TensorMap map;
      std::string why;
      if (emu::encode_tiled(&map, emu::tma::kTypeFloat16, 2, dev.alloc(rows * cols * 2), dims, strides, boxes, step,
                            emu::tma::kInterleaveNone, mode, emu::tma::kL2None, emu::tma::kOobFillNone, &why) != emu::tma::kSuccess) {
        std::fprintf(stderr, "%s: encode_tiled refused it: %s\n", argv[a], why.c_str());
        return 2;
      }
      v = dev.alloc(sizeof map);
      dev.write(v, &map, sizeof map);
    }
    else v = std::strtoull(argv[a] + 4, nullptr, 10);
    std::memcpy(params.data() + k->params[static_cast<std::size_t>(p)].offset, &v, k->params[static_cast<std::size_t>(p)].size);
  }
  emu::LaunchConfig cfg;
  cfg.grid = dims(argv[4]);
  cfg.block = dims(argv[5]);
  emu::EmuTrace tr;
  const emu::LaunchResult r = emu::launch(mod, *k, cfg, params, dev, &tr);
  if (!r.ok()) { std::printf("%s: emulator: %s\n", argv[3], r.message.c_str()); return 1; }
  for (const trace::Instruction& i : tr.take_instructions()) em.add(i);
  std::printf("%s: hardware %llu warp instructions (%zu distinct), emulator %llu (%zu distinct)\n", ptx_name.c_str(),
              static_cast<unsigned long long>(hw.total), hw.n.size(), static_cast<unsigned long long>(em.total), em.n.size());
  const std::uint64_t h = only(hw, em, "hardware"), e = only(em, hw, "emulator");
  std::printf("  equal %llu, hardware only %llu, emulator only %llu\n", static_cast<unsigned long long>(hw.total - h),
              static_cast<unsigned long long>(h), static_cast<unsigned long long>(e));
  for (const auto& [line, w] : hw.wavefronts)
    std::printf("  line %d: wavefronts hardware %llu, emulator %llu\n", line, static_cast<unsigned long long>(w),
                static_cast<unsigned long long>(em.wavefronts[line]));
  return h == 0 && e == 0 ? 0 : 1;
}
