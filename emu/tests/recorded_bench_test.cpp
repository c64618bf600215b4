// The emulator's shared-memory records of the bench kernels whose H200 traces are in the tree
// (trace/tests/data/trace_ops.bltrace, trace_atomics.bltrace: bench/trace_ops.cu and
// bench/trace_atomics.cu run under the tracer on an H200, 4 blocks of 64 threads each), kernel by
// kernel against the hardware's, record for record (line, op, width, mask, every lane's offset,
// count). Each case says what to expect: the same records, or the differences the emulator cannot
// see from PTX, which the case names and the test confines:
//  - Narrowed: ptxas loads 4 bytes where the PTX loads 8 and uses only the low half (the
//    hardware's 4-byte load has the emulator's 8-byte load's mask and offsets);
//  - Contention: the warps of a block compete for one word in a compare-and-swap loop, in an order
//    the GPU's scheduler picks: the hardware has extra passes (loads and atomloop records), never
//    fewer;
//  - Merged: ptxas keeps one of three identical ldmatrix of a loop (nothing stores between them):
//    the hardware has the same records, fewer times.
#include <gtest/gtest.h>

#include <array>
#include <cctype>
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

enum Expect : unsigned { Equal = 0, Narrowed = 1, Contention = 2, Merged = 4 };

struct BenchCase {
  const char* trace;   // under trace/tests/data
  const char* ptx;     // nvcc's PTX of the bench source (emu/tests/CMakeLists.txt)
  const char* kernel;  // the name after the anonymous namespace ("16a32_min_samewordEPj")
  bool keys;           // its first param is main()'s keys: (i * 2654435761) >> 7
  unsigned expect;
};

const BenchCase kBench[] = {
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "16ldsm_x4_rowmajorEPj", false, Merged},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "16ldsm_x4_swizzledEPj", false, Merged},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "22ldsm_x4_trans_rowmajorEPj", false, Merged},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "16ldsm_x2_rowmajorEPj", false, Merged},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "16ldsm_x1_rowmajorEPj", false, Merged},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "14ldsm_x4_packedEPj", false, Merged},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "16stsm_x4_rowmajorEPj", false, Equal},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "16stsm_x4_swizzledEPj", false, Equal},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "22stsm_x2_trans_rowmajorEPj", false, Equal},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "16atom32_histogramEPKjPj", true, Equal},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "21atom32_sameword_valueEPj", false, Equal},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "13atom64_strideEPj", false, Narrowed},
    {"trace_ops.bltrace", BANKLAB_EMU_PTX_TRACE_OPS, "17atom32_cas_columnEPj", false, Equal},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "15a32_exch_columnEPj", false, Equal},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "16a32_min_samewordEPj", false, Equal},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "14a32_max_share2EPi", false, Equal},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "23a32_or_unused_histogramEPKjPj", true, Equal},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "17a32_inc_histogramEPKjPj", true, Equal},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "20a32_add_unused_valueEPKjPj", true, Equal},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "17f32_add_histogramEPKjPf", true, Equal},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "22f32_add_sameword_valueEPf", false, Contention},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "15a64_exch_strideEPj", false, Narrowed},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "14a64_cas_columnEPj", false, Narrowed},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "14a64_min_share4EPj", false, Narrowed | Contention},
    {"trace_atomics.bltrace", BANKLAB_EMU_PTX_TRACE_ATOMICS, "14f64_add_strideEPd", false, Equal},
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
  std::ifstream tf(std::string(BANKLAB_EMU_TRACE_TEST_DATA) + "/" + c.trace, std::ios::binary);
  ASSERT_TRUE(tf) << c.trace;
  const trace::TraceData data = trace::read_trace(tf);
  std::vector<trace::Instruction> ins;
  std::vector<trace::Unmodelled> un;
  trace::decode(data, ins, un);
  std::map<Key, long long> hw, em;
  for (const trace::Instruction& i : ins)
    if (ends_with(i.kernel, std::string("_main") + c.kernel)) hw[key_of(i)] += static_cast<long long>(i.count);
  ASSERT_FALSE(hw.empty()) << c.kernel << " is not in " << c.trace;

  Emu e(read_text(c.ptx));
  const Kernel& k = e.kernel(std::string("_main") + c.kernel);
  std::vector<std::uint64_t> buffers;
  for (std::size_t p = 0; p < k.params.size(); ++p) {
    buffers.push_back(e.alloc(1 << 20));
    if (p == 0 && c.keys) {
      std::vector<std::uint32_t> keys(1024);
      for (std::uint32_t i = 0; i < 1024; ++i) keys[i] = (i * 2654435761u) >> 7;
      e.dev.write(buffers.back(), keys.data(), keys.size() * 4);
    }
  }
  e.cfg.grid.x = 4;
  e.cfg.block.x = 64;
  const LaunchResult r = e.run(k, buffers);
  ASSERT_TRUE(r.ok()) << r.message;
  for (const trace::Instruction& i : e.trace.take_instructions()) em[key_of(i)] += static_cast<long long>(i.count);

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
  if (c.expect & Contention)  // extra passes of a compare-and-swap loop on the hardware
    for (auto it = hw_only.begin(); it != hw_only.end();)
      it = std::get<1>(it->first) == static_cast<int>(Op::Load) || std::get<1>(it->first) == static_cast<int>(Op::AtomicCasLoop)
               ? hw_only.erase(it) : std::next(it);
  EXPECT_TRUE(hw_only.empty()) << c.kernel << ": " << hw_only.size() << " records only the H200 has";
  EXPECT_TRUE(em_only.empty()) << c.kernel << ": " << em_only.size() << " records only the emulator has";
  if (c.expect == Equal) {
    EXPECT_EQ(hw, em) << c.kernel;
  }
}

INSTANTIATE_TEST_SUITE_P(H200, RecordedBench, ::testing::ValuesIn(kBench), [](const ::testing::TestParamInfo<BenchCase>& i) {
  std::string n;
  for (const char* p = i.param.kernel; *p && *p != 'E'; ++p)
    if (std::isalpha(static_cast<unsigned char>(*p)) || *p == '_' || (!n.empty() && std::isdigit(static_cast<unsigned char>(*p)))) n += *p;
  return n;
});

}  // namespace
}  // namespace banklab::emu::test
