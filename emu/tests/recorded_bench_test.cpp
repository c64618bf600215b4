// The emulator's shared-memory records of the bench kernels whose H200 traces are in the tree
// (trace/tests/data/trace_ops.bltrace, trace_atomics.bltrace: bench/trace_ops.cu and
// bench/trace_atomics.cu run under the tracer on an H200, 4 blocks of 64 threads each;
// trace_many.bltrace.xz, which the build decompresses: bench/trace_many.cu's 32 kernels as
// `trace_many 1 1` launches them), kernel by kernel against the hardware's, record for record
// (line, op, width, mask, every lane's offset, count). Each case says what to expect: the same
// records, or the differences the emulator cannot see from PTX, which the case names and the test
// confines:
//  - Narrowed: ptxas loads 4 bytes where the PTX loads 8 and uses only the low half (the
//    hardware's 4-byte load has the emulator's 8-byte load's mask and offsets);
//  - Contention: the warps of a block compete for one word in a compare-and-swap loop, in an order
//    the GPU's scheduler picks: the hardware has extra passes (loads and atomloop records), never
//    fewer on a loop's lines; where a lane of another warp wins first, the emulator's later passes
//    (not its whole-warp first one) may have other lanes;
//  - Merged: ptxas keeps one of three identical ldmatrix of a loop (nothing stores between them):
//    the hardware has the same records, fewer times;
//  - Widened: ptxas makes one 8- or 16-byte load of a lane's 2 or 4 adjacent 4-byte PTX loads
//    (s[2t] and s[2t + 1]; As[ty][k..k+3]): the hardware's wide load has the mask, line and count of
//    the emulator's narrow ones, at their first lane offsets;
//  - Unlined: the PTX gives an access no line (`.loc 1 0 0`), ptxas's line table one of its
//    neighbours': the emulator's line-0 record is the hardware's on its lines, the same otherwise.
#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "emu_harness.hpp"
#include "banklab_trace/trace.hpp"

namespace banklab::emu::test {
namespace {

enum Expect : unsigned { Equal = 0, Narrowed = 1, Contention = 2, Merged = 4, Widened = 8, Unlined = 16 };

#define OPS BANKLAB_EMU_TRACE_TEST_DATA "/trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS
#define ATOMICS BANKLAB_EMU_TRACE_TEST_DATA "/trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS

// One param of a launch: a zeroed buffer of n bytes, the int n, or a buffer of n histogram keys as
// trace_many's main() makes them (x = x * 1664525 + 1013904223 from 12345, key x >> 8).
struct Arg {
  enum Kind { None, Buf, Int, Keys } kind;
  std::uint64_t n;
};
constexpr Arg B(std::uint64_t bytes) { return {Arg::Buf, bytes}; }
constexpr Arg I(std::uint64_t v) { return {Arg::Int, v}; }
constexpr Arg K(std::uint64_t n) { return {Arg::Keys, n}; }

struct BenchCase {
  const char* trace;   // the H200's trace file
  const char* ptx;     // nvcc's PTX of the bench source (emu/tests/CMakeLists.txt)
  const char* kernel;  // the name after the anonymous namespace ("16a32_min_samewordEPj")
  bool keys;           // its first param is trace_ops' keys: (i * 2654435761) >> 7
  unsigned expect;
  // The launch: trace_ops and trace_atomics run 4 blocks of 64 threads, each param a 1 MiB buffer;
  // trace_many's kernels as its main() launches them at SCALE 1 (its name for the kernel).
  std::array<unsigned, 2> grid{4, 1}, block{64, 1};
  std::array<Arg, 4> args{};
  const char* name = nullptr;
};

const BenchCase kBench[] = {
    {OPS, "16ldsm_x4_rowmajorEPj", false, Merged},
    {OPS, "16ldsm_x4_swizzledEPj", false, Merged},
    {OPS, "22ldsm_x4_trans_rowmajorEPj", false, Merged},
    {OPS, "16ldsm_x2_rowmajorEPj", false, Merged},
    {OPS, "16ldsm_x1_rowmajorEPj", false, Merged},
    {OPS, "14ldsm_x4_packedEPj", false, Merged},
    {OPS, "16stsm_x4_rowmajorEPj", false, Equal},
    {OPS, "16stsm_x4_swizzledEPj", false, Equal},
    {OPS, "22stsm_x2_trans_rowmajorEPj", false, Equal},
    {OPS, "16atom32_histogramEPKjPj", true, Equal},
    {OPS, "21atom32_sameword_valueEPj", false, Equal},
    {OPS, "13atom64_strideEPj", false, Narrowed},
    {OPS, "17atom32_cas_columnEPj", false, Equal},
    {ATOMICS, "15a32_exch_columnEPj", false, Equal},
    {ATOMICS, "16a32_min_samewordEPj", false, Equal},
    {ATOMICS, "14a32_max_share2EPi", false, Equal},
    {ATOMICS, "23a32_or_unused_histogramEPKjPj", true, Equal},
    {ATOMICS, "17a32_inc_histogramEPKjPj", true, Equal},
    {ATOMICS, "20a32_add_unused_valueEPKjPj", true, Equal},
    {ATOMICS, "17f32_add_histogramEPKjPf", true, Equal},
    {ATOMICS, "22f32_add_sameword_valueEPf", false, Contention},
    {ATOMICS, "15a64_exch_strideEPj", false, Narrowed},
    {ATOMICS, "14a64_cas_columnEPj", false, Narrowed},
    {ATOMICS, "14a64_min_share4EPj", false, Narrowed | Contention},
    {ATOMICS, "14f64_add_strideEPd", false, Equal},
#ifdef BANKLAB_EMU_TRACE_MANY
#define MANY BANKLAB_EMU_TRACE_MANY, BANKLAB_EMU_PTX_TRACE_MANY
    // bench/trace_many.cu, `trace_many 1 1` (REPEATS 1, SCALE 1: one launch of each kernel).
    {MANY, "9transposeItLi0EEEvPKT_PS1_i", false, Equal, {8, 8}, {32, 8}, {B(131072), B(131072), I(256)}, "transpose_u16_naive"},
    {MANY, "9transposeItLi1EEEvPKT_PS1_i", false, Equal, {8, 8}, {32, 8}, {B(131072), B(131072), I(256)}, "transpose_u16_padded"},
    {MANY, "9transposeItLi2EEEvPKT_PS1_i", false, Equal, {8, 8}, {32, 8}, {B(131072), B(131072), I(256)}, "transpose_u16_swizzled"},
    {MANY, "9transposeIfLi0EEEvPKT_PS1_i", false, Equal, {8, 8}, {32, 8}, {B(262144), B(262144), I(256)}, "transpose_f32_naive"},
    {MANY, "9transposeIfLi1EEEvPKT_PS1_i", false, Equal, {8, 8}, {32, 8}, {B(262144), B(262144), I(256)}, "transpose_f32_padded"},
    {MANY, "9transposeIfLi2EEEvPKT_PS1_i", false, Equal, {8, 8}, {32, 8}, {B(262144), B(262144), I(256)}, "transpose_f32_swizzled"},
    {MANY, "9transposeIdLi0EEEvPKT_PS1_i", false, Equal, {8, 8}, {32, 8}, {B(524288), B(524288), I(256)}, "transpose_f64_naive"},
    {MANY, "9transposeIdLi1EEEvPKT_PS1_i", false, Equal, {8, 8}, {32, 8}, {B(524288), B(524288), I(256)}, "transpose_f64_padded"},
    {MANY, "9transposeIdLi2EEEvPKT_PS1_i", false, Equal, {8, 8}, {32, 8}, {B(524288), B(524288), I(256)}, "transpose_f64_swizzled"},
    {MANY, "9transposeI6float4Li0EEEvPKT_PS2_i", false, Equal, {8, 8}, {32, 8}, {B(1048576), B(1048576), I(256)}, "transpose_f128_naive"},
    {MANY, "9transposeI6float4Li1EEEvPKT_PS2_i", false, Equal, {8, 8}, {32, 8}, {B(1048576), B(1048576), I(256)}, "transpose_f128_padded"},
    {MANY, "9transposeI6float4Li2EEEvPKT_PS2_i", false, Equal, {8, 8}, {32, 8}, {B(1048576), B(1048576), I(256)}, "transpose_f128_swizzled"},
    {MANY, "6reduceILi0EEEvPKfPfi", false, Equal, {512, 1}, {256, 1}, {B(1 << 20), B(512 * 4), I(1 << 18)}, "reduce_divergent"},
    {MANY, "6reduceILi1EEEvPKfPfi", false, Widened, {512, 1}, {256, 1}, {B(1 << 20), B(512 * 4), I(1 << 18)}, "reduce_interleaved"},
    {MANY, "6reduceILi2EEEvPKfPfi", false, Equal, {512, 1}, {256, 1}, {B(1 << 20), B(512 * 4), I(1 << 18)}, "reduce_sequential"},
    {MANY, "6reduceILi3EEEvPKfPfi", false, Equal, {512, 1}, {256, 1}, {B(1 << 20), B(512 * 4), I(1 << 18)}, "reduce_sequential_shuffle"},
    {MANY, "9histogramIjLi32EEEvPKjPT_i", false, Equal, {64, 1}, {256, 1}, {K(1 << 18), B(128), I(1 << 18)}, "histogram_u32_32"},
    {MANY, "9histogramIjLi256EEEvPKjPT_i", false, Equal, {64, 1}, {256, 1}, {K(1 << 18), B(1024), I(1 << 18)}, "histogram_u32_256"},
    {MANY, "9histogramIjLi1024EEEvPKjPT_i", false, Equal, {64, 1}, {256, 1}, {K(1 << 18), B(4096), I(1 << 18)}, "histogram_u32_1024"},
    {MANY, "9histogramIyLi256EEEvPKjPT_i", false, Contention, {64, 1}, {256, 1}, {K(1 << 18), B(2048), I(1 << 18)}, "histogram_u64_256"},
    {MANY, "7stencilIfEEvPKfPfi", false, Equal, {1024, 1}, {256, 1}, {B(1 << 20), B(1 << 20), I(1 << 18)}, "stencil_f32"},
    {MANY, "7stencilI6float2EEvPKfPfi", false, Equal, {512, 1}, {256, 1}, {B(1 << 20), B(1 << 20), I(1 << 18)}, "stencil_f32x2"},
    {MANY, "7stencilI6float4EEvPKfPfi", false, Equal, {256, 1}, {256, 1}, {B(1 << 20), B(1 << 20), I(1 << 18)}, "stencil_f32x4"},
    {MANY, "5sgemmILi0EEEvPKfS2_Pfi", false, Widened, {8, 8}, {16, 16}, {B(128 * 128 * 4), B(128 * 128 * 4), B(128 * 128 * 4), I(128)}, "sgemm_tile"},
    {MANY, "5sgemmILi1EEEvPKfS2_Pfi", false, Equal, {8, 8}, {16, 16}, {B(128 * 128 * 4), B(128 * 128 * 4), B(128 * 128 * 4), I(128)}, "sgemm_tile_transposed_a"},
    {MANY, "4scanEPKfPf", false, Unlined, {512, 1}, {512, 1}, {B(1 << 20), B(1 << 20)}, "scan_hillis_steele"},
    {MANY, "13tile_pipelineILi4ELb0EEEvPK6__halfPS1_", false, Equal, {64, 1}, {128, 1}, {B(64 * 8192), B(64 * 8192)}, "pipeline_cp4_rowmajor"},
    {MANY, "13tile_pipelineILi8ELb0EEEvPK6__halfPS1_", false, Equal, {64, 1}, {128, 1}, {B(64 * 8192), B(64 * 8192)}, "pipeline_cp8_rowmajor"},
    {MANY, "13tile_pipelineILi16ELb0EEEvPK6__halfPS1_", false, Equal, {64, 1}, {128, 1}, {B(64 * 8192), B(64 * 8192)}, "pipeline_cp16_rowmajor"},
    {MANY, "13tile_pipelineILi4ELb1EEEvPK6__halfPS1_", false, Equal, {64, 1}, {128, 1}, {B(64 * 8192), B(64 * 8192)}, "pipeline_cp4_swizzled"},
    {MANY, "13tile_pipelineILi8ELb1EEEvPK6__halfPS1_", false, Equal, {64, 1}, {128, 1}, {B(64 * 8192), B(64 * 8192)}, "pipeline_cp8_swizzled"},
    {MANY, "13tile_pipelineILi16ELb1EEEvPK6__halfPS1_", false, Equal, {64, 1}, {128, 1}, {B(64 * 8192), B(64 * 8192)}, "pipeline_cp16_swizzled"},
#endif
};

using Key = std::tuple<int, int, int, std::uint32_t, std::array<std::uint32_t, kWarpSize>>;  // line, op, width, mask, offsets
Key key_of(const trace::Instruction& i) { return {i.line, static_cast<int>(i.access.op), i.access.width, i.access.mask, i.access.offset}; }

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void PrintTo(const BenchCase& c, std::ostream* os) { *os << c.kernel; }

class RecordedBench : public ::testing::TestWithParam<BenchCase> {};

TEST_P(RecordedBench, EmulatedRecordsAreTheH200sButForWhatTheCaseNames) {
  const BenchCase& c = GetParam();
#ifdef BANKLAB_EMU_TRACE_MANY
  if (std::strcmp(c.trace, BANKLAB_EMU_TRACE_MANY) == 0) {
    ASSERT_STREQ(BANKLAB_EMU_SHA_TRACE_MANY, BANKLAB_EMU_SHA_TRACE_MANY_TRACED)
        << "trace_many.bltrace.xz is a trace of another bench/trace_many.cu (trace/tests/data/trace_many.source.sha256): "
           "trace it again (emu/bench/emu_vs_trace_device.sh)";
  }
#endif
  std::ifstream tf(c.trace, std::ios::binary);
  ASSERT_TRUE(tf) << c.trace;
  const trace::TraceData data = trace::read_trace(tf);
  std::vector<trace::Instruction> ins;
  std::vector<trace::Unmodelled> un;
  trace::decode(data, ins, un);
  std::map<Key, long long> hw, em;
  std::uint64_t hw_n = 0, hw_w = 0, em_n = 0, em_w = 0;  // warp instructions, wavefronts
  for (const trace::Instruction& i : ins)
    if (ends_with(i.kernel, std::string("_main") + c.kernel)) {
      hw[key_of(i)] += static_cast<long long>(i.count);
      hw_n += i.count, hw_w += static_cast<std::uint64_t>(trace::cost_of(i).wavefronts) * i.count;
    }
  ASSERT_FALSE(hw.empty()) << c.kernel << " is not in " << c.trace;

  Emu e(read_text(c.ptx));
  const Kernel& k = e.kernel(std::string("_main") + c.kernel);
  std::vector<std::uint64_t> values;
  for (std::size_t p = 0; p < k.params.size(); ++p) {
    const Arg a = c.args[0].kind == Arg::None ? Arg{Arg::Buf, 1 << 20} : p < c.args.size() ? c.args[p] : Arg{};
    ASSERT_NE(a.kind, Arg::None) << c.kernel << " takes " << k.params.size() << " params";
    if (a.kind == Arg::Int) {
      values.push_back(a.n);
      continue;
    }
    std::vector<std::uint32_t> keys;
    if (a.kind == Arg::Keys) {
      std::uint32_t x = 12345;
      for (std::uint64_t i = 0; i < a.n; ++i) keys.push_back((x = x * 1664525u + 1013904223u) >> 8);
    } else if (p == 0 && c.keys) {
      for (std::uint32_t i = 0; i < 1024; ++i) keys.push_back((i * 2654435761u) >> 7);
    }
    values.push_back(e.alloc(a.kind == Arg::Keys ? a.n * 4 : a.n));
    if (!keys.empty()) e.dev.write(values.back(), keys.data(), keys.size() * 4);
  }
  ASSERT_TRUE(c.args[0].kind == Arg::None || k.params.size() == 4 || c.args[k.params.size()].kind == Arg::None)
      << c.kernel << " takes " << k.params.size() << " params";
  e.cfg.grid.x = c.grid[0];
  e.cfg.grid.y = c.grid[1];
  e.cfg.block.x = c.block[0];
  e.cfg.block.y = c.block[1];
  const LaunchResult r = e.run(k, values);
  ASSERT_TRUE(r.ok()) << r.message;
  for (const trace::Instruction& i : e.trace.take_instructions()) {
    em[key_of(i)] += static_cast<long long>(i.count);
    em_n += i.count, em_w += static_cast<std::uint64_t>(trace::cost_of(i).wavefronts) * i.count;
  }
  std::printf("%s: H200 %llu warp instructions, %llu wavefronts; emulator %llu, %llu\n", c.kernel,
              static_cast<unsigned long long>(hw_n), static_cast<unsigned long long>(hw_w),
              static_cast<unsigned long long>(em_n), static_cast<unsigned long long>(em_w));

  // What differs, then what the case's reasons account for.
  std::map<Key, long long> hw_only, em_only;
  for (const auto& [key, n] : hw)
    if (n > (em.count(key) ? em[key] : 0)) hw_only[key] = n - (em.count(key) ? em[key] : 0);
  for (const auto& [key, n] : em)
    if (n > (hw.count(key) ? hw[key] : 0)) em_only[key] = n - (hw.count(key) ? hw[key] : 0);
  if (c.expect & Narrowed)  // an emulated 8-byte load against the hardware's 4-byte one
    for (auto it = em_only.begin(); it != em_only.end();) {
      auto [line, op, width, mask, offsets] = it->first;
      auto twin = hw_only.find({line, op, 4, mask, offsets});
      if (op == static_cast<int>(Op::Load) && width == 8 && twin != hw_only.end() && twin->second == it->second) {
        hw_only.erase(twin);
        it = em_only.erase(it);
      } else {
        ++it;
      }
    }
  if (c.expect & Merged)  // the hardware ran some of the emulator's ldmatrix fewer times
    for (auto it = em_only.begin(); it != em_only.end();)
      it = std::get<1>(it->first) == static_cast<int>(Op::LoadMatrix) && hw.count(it->first) ? em_only.erase(it) : std::next(it);
  if (c.expect & Widened)  // the hardware's 8- or 16-byte load where the emulator has 2 or 4 of 4 bytes
    for (auto it = hw_only.begin(); it != hw_only.end();) {
      auto [line, op, width, mask, offsets] = it->first;
      std::vector<std::map<Key, long long>::iterator> parts;
      for (int j = 0; op == static_cast<int>(Op::Load) && (width == 8 || width == 16) && j < width / 4; ++j) {
        std::array<std::uint32_t, kWarpSize> at = offsets;
        for (int l = 0; l < kWarpSize; ++l)
          if (mask >> l & 1u) at[static_cast<std::size_t>(l)] += 4u * static_cast<std::uint32_t>(j);
        auto part = em_only.find({line, op, 4, mask, at});
        if (part == em_only.end() || part->second < it->second) break;
        parts.push_back(part);
      }
      if (parts.empty() || static_cast<int>(parts.size()) != width / 4) {
        ++it;
        continue;
      }
      for (auto part : parts)
        if ((part->second -= it->second) == 0) em_only.erase(part);
      it = hw_only.erase(it);
    }
  if (c.expect & Unlined) {  // the emulator's line-0 accesses on the hardware's lines (same op, lanes, count)
    std::map<std::tuple<int, int, std::uint32_t, std::array<std::uint32_t, kWarpSize>>, long long> hw_lines;
    for (const auto& [key, n] : hw_only) hw_lines[{std::get<1>(key), std::get<2>(key), std::get<3>(key), std::get<4>(key)}] += n;
    for (auto it = em_only.begin(); it != em_only.end();) {
      auto [line, op, width, mask, offsets] = it->first;
      if (line != 0 || hw_lines[{op, width, mask, offsets}] != it->second) {
        ++it;
        continue;
      }
      for (auto h = hw_only.begin(); h != hw_only.end();)
        h = std::get<0>(h->first) != 0 && std::get<1>(h->first) == op && std::get<2>(h->first) == width &&
                    std::get<3>(h->first) == mask && std::get<4>(h->first) == offsets
                ? hw_only.erase(h) : std::next(h);
      it = em_only.erase(it);
    }
  }
  if (c.expect & Contention) {  // extra passes of a compare-and-swap loop on the hardware
    // On a loop's lines the emulator's later passes (not the whole warp) may have other lanes than the
    // hardware's, where a lane of another warp won first; there the hardware never has fewer passes.
    std::map<int, long long> loop_hw, loop_em;  // Load and AtomicCasLoop records by line
    auto in_loop = [](const Key& k) { return std::get<1>(k) == static_cast<int>(Op::Load) || std::get<1>(k) == static_cast<int>(Op::AtomicCasLoop); };
    for (const auto& [key, n] : hw)
      if (std::get<1>(key) == static_cast<int>(Op::AtomicCasLoop)) loop_hw[std::get<0>(key)] = 0;
    for (const auto& [key, n] : hw)
      if (in_loop(key) && loop_hw.count(std::get<0>(key))) loop_hw[std::get<0>(key)] += n;
    for (const auto& [key, n] : em)
      if (in_loop(key) && loop_hw.count(std::get<0>(key))) loop_em[std::get<0>(key)] += n;
    for (auto it = em_only.begin(); it != em_only.end();)
      it = in_loop(it->first) && std::get<3>(it->first) != 0xffffffffu && loop_hw.count(std::get<0>(it->first)) &&
                   loop_hw[std::get<0>(it->first)] >= loop_em[std::get<0>(it->first)]
               ? em_only.erase(it) : std::next(it);
    for (auto it = hw_only.begin(); it != hw_only.end();) it = in_loop(it->first) ? hw_only.erase(it) : std::next(it);
  }
  EXPECT_TRUE(hw_only.empty()) << c.kernel << ": " << hw_only.size() << " records only the H200 has";
  EXPECT_TRUE(em_only.empty()) << c.kernel << ": " << em_only.size() << " records only the emulator has";
  if (c.expect == Equal) {
    EXPECT_TRUE(hw == em) << c.kernel;
  }
}

INSTANTIATE_TEST_SUITE_P(H200, RecordedBench, ::testing::ValuesIn(kBench), [](const ::testing::TestParamInfo<BenchCase>& i) {
  if (i.param.name) return std::string(i.param.name);
  std::string n;
  for (const char* p = i.param.kernel; *p && *p != 'E'; ++p)
    if (std::isalpha(static_cast<unsigned char>(*p)) || *p == '_' || (!n.empty() && std::isdigit(static_cast<unsigned char>(*p)))) n += *p;
  return n;
});

}  // namespace
}  // namespace banklab::emu::test
