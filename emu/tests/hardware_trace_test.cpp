// The emulated trace against the hardware tracer's, record for record: traces of labs 00 and 01
// (stub and solution) that the tracer recorded on an H200 (emu/tests/data/h200_*.bltrace, made
// by emu/bench/emu_vs_trace_device.sh: tools/trace/tests/lab_driver.cu's launches, 256 tiles and
// 16384 rows, under libbanklab_trace_inject.so), decoded with the tracer's decode() and the
// cubin's line table, against the emulator's run of the same launch from nvcc's PTX. Every
// distinct warp instruction (kernel, source line, op, width, active mask, each lane's offset) must
// occur as often in both; the table says what each side has.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "banklab_emu/emulator.hpp"
#include "banklab_trace/trace.hpp"

namespace banklab::emu::test {
namespace {

using Key = std::tuple<std::string, int, int, int, std::uint32_t, std::array<std::uint32_t, kWarpSize>>;

Key key_of(const trace::Instruction& i) {
  return {i.kernel, i.line, static_cast<int>(i.access.op), i.access.width, i.access.mask, i.access.offset};
}

struct Side {
  std::map<Key, std::uint64_t> counts;
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
  unsigned grid;
  std::uint64_t in_bytes, out_bytes;
};

const HwCase kHw[] = {
    {"Lab00Stub", "h200_labs_00.bltrace", BANKLAB_EMU_SHA_LAB00_STUB, BANKLAB_EMU_PTX_LAB00_STUB, "_ZN5lab0013multiply_by_iEPKfPf", 256, 256 * 4096, 256 * 4096},
    {"Lab00Solution", "h200_solutions_00.bltrace", BANKLAB_EMU_SHA_LAB00_SOLUTION, BANKLAB_EMU_PTX_LAB00_SOLUTION, "_ZN5lab0013multiply_by_iEPKfPf", 256, 256 * 4096, 256 * 4096},
    {"Lab01Stub", "h200_labs_01.bltrace", BANKLAB_EMU_SHA_LAB01_STUB, BANKLAB_EMU_PTX_LAB01_STUB, "_ZN5lab018row_sumsEPKfPf", 512, 16384 * 128, 16384 * 4},
    {"Lab01Solution", "h200_solutions_01.bltrace", BANKLAB_EMU_SHA_LAB01_SOLUTION, BANKLAB_EMU_PTX_LAB01_SOLUTION, "_ZN5lab018row_sumsEPKfPf", 512, 16384 * 128, 16384 * 4},
};

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
  trace::decode(data, hw_ins, hw_un);
  Side hw, emu;
  for (const trace::Instruction& i : hw_ins)
    if (i.kernel == c.kernel) hw.add(i);
  EXPECT_TRUE(hw_un.empty()) << "the hardware trace has unmodelled instructions";

  std::ifstream p(c.ptx);
  std::ostringstream text;
  text << p.rdbuf();
  const Module mod = parse_ptx(text.str());
  const Kernel* k = mod.find(c.kernel);
  ASSERT_NE(k, nullptr);
  Device dev;
  std::uint64_t bufs[2] = {dev.alloc(c.in_bytes), dev.alloc(c.out_bytes)};
  void* args[] = {&bufs[0], &bufs[1]};
  LaunchConfig cfg;
  cfg.grid.x = c.grid;
  cfg.block.x = 32;
  EmuTrace tr;
  const LaunchResult r = launch(mod, *k, cfg, pack_params(*k, args), dev, &tr);
  ASSERT_TRUE(r.ok()) << r.message;
  for (const trace::Instruction& i : tr.take_instructions()) emu.add(i);

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
}

INSTANTIATE_TEST_SUITE_P(Labs, HardwareTrace, ::testing::ValuesIn(kHw),
                         [](const ::testing::TestParamInfo<HwCase>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace banklab::emu::test
