// The emulated trace against the hardware tracer's, record for record: traces of labs 00 to 07
// (stub and solution) that the tracer recorded on an H200 (emu/tests/data/h200_*.bltrace, made
// by emu/bench/emu_vs_trace_device.sh: tools/trace/tests/lab_driver.cu's launches at the sizes of
// lab_driver_labs.inc, under libbanklab_trace_inject.so; skipped for a lab whose trace is absent), decoded with the tracer's decode() and the
// cubin's line table, against the emulator's run of the same launch from nvcc's PTX. Every
// distinct warp instruction (kernel, source line, op, width, active mask, each lane's offset) must
// occur as often in both, and so must the TMA traffic (kernel, line, kind: warp instructions and
// bytes; lab 07's launch takes the tensor maps lab_driver encodes); the table says what each side has.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "emu_harness.hpp"
#include "lab_accesses.hpp"
#include "banklab_trace/trace.hpp"

namespace banklab::emu::test {
namespace {

using Key = std::tuple<std::string, int, int, int, std::uint32_t, std::array<std::uint32_t, kWarpSize>>;

Key key_of(const trace::Instruction& i) {
  return {i.kernel, i.line, static_cast<int>(i.access.op), i.access.width, i.access.mask, i.access.offset};
}

struct Side {
  std::map<Key, std::uint64_t> counts;
  std::map<std::tuple<std::string, int, int>, std::pair<std::uint64_t, std::uint64_t>> traffic;  // (kernel, line, kind): count, bytes
  std::map<int, std::uint64_t> wavefronts_by_line;
  std::uint64_t warp_instructions = 0;
  void add(const trace::Instruction& i) {
    counts[key_of(i)] += i.count;
    wavefronts_by_line[i.line] += static_cast<std::uint64_t>(trace::cost_of(i).wavefronts) * i.count;
    warp_instructions += i.count;
  }
};

struct HwCase {
  const char* name;
  const char* trace_file;  // under BANKLAB_EMU_TEST_DATA, beside its .source.sha256 (the text it is of)
  const char* source_sha;  // sha256 of the kernel.cu the PTX is made from now (CMake's file(SHA256))
  const char* ptx;
  const char* kernel;
  Dim3 grid, block;        // as the lab's launcher launches it at lab_driver's size (lab_driver_labs.inc)
  std::vector<long long> params;  // lab_driver's arguments: -1 a buffer (64 MiB, zeroed, as the driver's), else the number
  int lab07 = 0;  // 1: lab 07's stub, 2: its solution: params 1 and 2 hold the tensor maps, as lab_driver's gemm_tensor_maps
  // The H200 trace holds the TMA/wgmma traffic to compare: false where the device's tracer recorded
  // none (lab 07's traces of 2026-12-03: compute-sanitizer 2025.3.1, 1536 records, all LDSM; the
  // emulator's 48 TMA loads are then printed, not compared, and only the shared warp instructions are).
  bool hw_traffic = true;
};

constexpr long long B = -1;  // a buffer param
#define LAB(ID, FILE) FILE, BANKLAB_EMU_SHA_##ID, BANKLAB_EMU_PTX_##ID
const HwCase kHw[] = {
    {"Lab00Stub", LAB(LAB00_STUB, "h200_labs_00.bltrace"), "_ZN5lab0013multiply_by_iEPKfPf", {256}, {32}, {B, B}},
    {"Lab00Solution", LAB(LAB00_SOLUTION, "h200_solutions_00.bltrace"), "_ZN5lab0013multiply_by_iEPKfPf", {256}, {32}, {B, B}},
    {"Lab01Stub", LAB(LAB01_STUB, "h200_labs_01.bltrace"), "_ZN5lab018row_sumsEPKfPf", {512}, {32}, {B, B}},
    {"Lab01Solution", LAB(LAB01_SOLUTION, "h200_solutions_01.bltrace"), "_ZN5lab018row_sumsEPKfPf", {512}, {32}, {B, B}},
    // eval_channels_launch(x, coefs, y, 65536): 65536 / kBlockThreads (128) blocks of 128
    {"Lab02Stub", LAB(LAB02_STUB, "h200_labs_02.bltrace"), "_ZN5lab0213eval_channelsEPKfS1_Pf", {512}, {128}, {B, B, B}},
    {"Lab02Solution", LAB(LAB02_SOLUTION, "h200_solutions_02.bltrace"), "_ZN5lab0213eval_channelsEPKfS1_Pf", {512}, {128}, {B, B, B}},
    // split_pairs(a, b, in, 16384): 16384 / kPairsPerBlock (256) blocks of kThreads (256)
    {"Lab03Stub", LAB(LAB03_STUB, "h200_labs_03.bltrace"), "_ZN5lab0312deinterleaveEP6float4S1_PKS0_i", {64}, {256}, {B, B, B, 16384}},
    {"Lab03Solution", LAB(LAB03_SOLUTION, "h200_solutions_03.bltrace"), "_ZN5lab0312deinterleaveEP6float4S1_PKS0_i", {64}, {256}, {B, B, B, 16384}},
    // transpose(out, in, 256, 96): (256 / 32, 96 / 32) blocks of (TILE_DIM 32, BLOCK_ROWS 8)
    {"Lab04Stub", LAB(LAB04_STUB, "h200_labs_04.bltrace"), "_ZN5lab0416transpose_paddedEPfPKfii", {8, 3}, {32, 8}, {B, B, 256, 96}},
    {"Lab04Solution", LAB(LAB04_SOLUTION, "h200_solutions_04.bltrace"), "_ZN5lab0416transpose_paddedEPfPKfii", {8, 3}, {32, 8}, {B, B, 256, 96}},
    {"Lab05Stub", LAB(LAB05_STUB, "h200_labs_05.bltrace"), "_ZN5lab0518transpose_swizzledEPfPKfii", {8, 3}, {32, 8}, {B, B, 256, 96}},
    {"Lab05Solution", LAB(LAB05_SOLUTION, "h200_solutions_05.bltrace"), "_ZN5lab0518transpose_swizzledEPfPKfii", {8, 3}, {32, 8}, {B, B, 256, 96}},
    // transpose4(out, in, 64, 256): (64 / kChunksPerRow 8, 256 / kChunkRows 32) blocks of 32 x 8
    {"Lab05Float4Stub", LAB(LAB05_STUB, "h200_labs_05.bltrace"), "_ZN5lab0516transpose_float4EP6float4PKS0_ii", {8, 8}, {256}, {B, B, 64, 256}},
    {"Lab05Float4Solution", LAB(LAB05_SOLUTION, "h200_solutions_05.bltrace"), "_ZN5lab0516transpose_float4EP6float4PKS0_ii", {8, 8}, {256}, {B, B, 64, 256}},
    // gemm(c, a, b, 128, 192, 384): (192 / 64, 128 / 64) blocks of kThreads (128)
    {"Lab06Stub", LAB(LAB06_STUB, "h200_labs_06.bltrace"), "_ZN5lab0613gemm_ldmatrixEPfPK6__halfS3_iii", {3, 2}, {128}, {B, B, B, 128, 192, 384}},
    {"Lab06Solution", LAB(LAB06_SOLUTION, "h200_solutions_06.bltrace"), "_ZN5lab0613gemm_ldmatrixEPfPK6__halfS3_iii", {3, 2}, {128}, {B, B, B, 128, 192, 384}},
    // gemm(c, map_a, map_b, 128, 192, 256): (192 / 64, 128 / 64) blocks of kThreads (128)
    {"Lab07Stub", LAB(LAB07_STUB, "h200_labs_07.bltrace"), "_ZN5lab078gemm_tmaEPfPK14CUtensorMap_stS3_iii", {3, 2}, {128}, {B, B, B, 128, 192, 256}, 1, false},
    {"Lab07Solution", LAB(LAB07_SOLUTION, "h200_solutions_07.bltrace"), "_ZN5lab078gemm_tmaEPfPK14CUtensorMap_stS3_iii", {3, 2}, {128}, {B, B, B, 128, 192, 256}, 2, false},
};
#undef LAB

void PrintTo(const HwCase& c, std::ostream* os) { *os << c.name; }  // a stable test name in ctest

class HardwareTrace : public ::testing::TestWithParam<HwCase> {};

TEST_P(HardwareTrace, EmulatedRecordsEqualTheH200Tracers) {
  const HwCase& c = GetParam();
  const std::string path = std::string(BANKLAB_EMU_TEST_DATA) + "/" + c.trace_file;
  std::ifstream f(path, std::ios::binary);
  if (!f) GTEST_SKIP() << "no hardware trace " << path << " (emu/bench/emu_vs_trace_device.sh makes it on a GPU)";
  std::string recorded_sha;
  std::string sha_path = path.substr(0, path.size() - std::string(".bltrace").size()) + ".source.sha256";
  std::ifstream(sha_path) >> recorded_sha;
  if (recorded_sha != c.source_sha)
    GTEST_SKIP() << "the H200 trace " << c.trace_file << " is of another text of the kernel (sha256 " << recorded_sha.substr(0, 12)
                 << ", the file is now " << std::string(c.source_sha).substr(0, 12)
                 << "): record it again on a GPU with emu/bench/emu_vs_trace_device.sh";
  const trace::TraceData data = trace::read_trace(f);
  std::vector<trace::Instruction> hw_ins;
  std::vector<trace::Unmodelled> hw_un;
  std::vector<trace::Traffic> hw_traffic;
  trace::decode(data, hw_ins, hw_un, hw_traffic);
  Side hw, emu;
  for (const trace::Instruction& i : hw_ins)
    if (i.kernel == c.kernel) hw.add(i);
  for (const trace::Traffic& t : hw_traffic)
    if (t.kernel == c.kernel) {
      auto& [n, bytes] = hw.traffic[{t.kernel, t.line, static_cast<int>(t.kind)}];
      n += t.count;
      bytes += t.bytes;
    }
  EXPECT_TRUE(hw_un.empty()) << "the hardware trace has unmodelled instructions";

  Emu e(read_text(c.ptx));
  const Kernel* k = &e.kernel(c.kernel);
  std::vector<std::uint64_t> values;
  for (long long v : c.params) values.push_back(v == B ? e.alloc(std::size_t(64) << 20) : static_cast<std::uint64_t>(v));
  if (c.lab07) {  // lab_driver's maps: at the start of buffers 1 and 2, over a (m x k) and b (n x k) halves 1 MiB into them
    const Lab07Maps modes = lab07_maps(c.lab07 == 2);
    for (int t = 0; t < 2; ++t) {
      TensorMap map;
      ASSERT_EQ(encode_halves_map(map, values[1 + t] + (1u << 20), static_cast<std::uint64_t>(c.params[3 + t]),
                                  static_cast<std::uint64_t>(c.params[5]), modes.box_bytes, modes.swizzle_bytes),
                tma::kSuccess);
      e.dev.write(values[1 + t], &map, sizeof map);
    }
  }
  e.cfg.grid = c.grid;
  e.cfg.block = c.block;
  const LaunchResult r = e.run(*k, values);
  ASSERT_TRUE(r.ok()) << r.message;
  // The records decoded as the hardware's (the tracer's decode()), lines from the PTX's .loc (pc = index x 16).
  std::vector<trace::Instruction> emu_ins;
  std::vector<trace::Unmodelled> emu_un;
  std::vector<trace::Traffic> emu_traffic;
  trace::decode(e.trace.take_data(), emu_ins, emu_un, emu_traffic);
  auto line_of = [&](std::uint64_t pc) { return pc / 16 < k->code.size() ? k->code[pc / 16].line : -1; };
  for (trace::Instruction& i : emu_ins) {
    i.line = line_of(i.pc);
    emu.add(i);
  }
  for (const trace::Traffic& t : emu_traffic) {
    auto& [n, bytes] = emu.traffic[{t.kernel, line_of(t.pc), static_cast<int>(t.kind)}];
    n += t.count;
    bytes += t.bytes;
  }
  EXPECT_TRUE(emu_un.empty()) << "the emulator recorded unmodelled instructions";

  std::uint64_t both = 0, hw_only = 0, emu_only = 0;
  for (const auto& [key, n] : hw.counts) {
    auto it = emu.counts.find(key);
    const std::uint64_t m = it == emu.counts.end() ? 0 : it->second;
    both += std::min(n, m);
    hw_only += n > m ? n - m : 0;
  }
  for (const auto& [key, n] : emu.counts) {
    auto it = hw.counts.find(key);
    const std::uint64_t m = it == hw.counts.end() ? 0 : it->second;
    emu_only += n > m ? n - m : 0;
  }
  std::cout << "[ h200 vs emulator ] " << c.name << ": H200 " << hw.warp_instructions << " warp instructions ("
            << hw.counts.size() << " distinct), emulator " << emu.warp_instructions << " (" << emu.counts.size()
            << " distinct); equal " << both << ", H200 only " << hw_only << ", emulator only " << emu_only << "\n";
  for (const auto& [line, w] : hw.wavefronts_by_line)
    std::cout << "    kernel.cu:" << line << ": wavefronts H200 " << w << ", emulator " << emu.wavefronts_by_line[line] << "\n";
  EXPECT_EQ(hw_only, 0u);
  EXPECT_EQ(emu_only, 0u);
  EXPECT_EQ(hw.wavefronts_by_line, emu.wavefronts_by_line);
  for (const auto& [key, v] : hw.traffic)
    std::cout << "    kernel.cu:" << std::get<1>(key) << ": TMA/wgmma traffic H200 " << v.first << " instructions, " << v.second
              << " bytes; emulator " << emu.traffic[key].first << ", " << emu.traffic[key].second << "\n";
  if (!c.hw_traffic) {
    EXPECT_TRUE(hw.traffic.empty()) << "the H200 trace now holds TMA/wgmma traffic: compare it (hw_traffic = true)";
    for (const auto& [key, v] : emu.traffic)
      std::cout << "    kernel.cu:" << std::get<1>(key) << ": TMA/wgmma traffic of the emulator " << v.first
                << " instructions, " << v.second << " bytes; not compared (the H200 trace holds none)\n";
    return;
  }
  EXPECT_EQ(hw.traffic, emu.traffic);
}

INSTANTIATE_TEST_SUITE_P(Labs, HardwareTrace, ::testing::ValuesIn(kHw),
                         [](const ::testing::TestParamInfo<HwCase>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace banklab::emu::test
