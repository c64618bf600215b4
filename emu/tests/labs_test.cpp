// Labs 00, 01, 06 and 07, stub and solution, compiled by nvcc to PTX (sm_90, -lineinfo) and run on the
// emulator at the traced launch's size of the lab's description (256 tiles; 16384 rows; a GEMM of
// 128 x 192 x 384; lab 07's 128 x 192 x 256 through tensor maps): the
// output equals the judge's CPU reference, and the emulated trace, costed by the tracer's
// cost_of() as the judge's traced check costs it, takes per source line the wavefronts the model
// gives the accesses the lab's probe describes (lab_accesses.cu): the numbers the GPU tier's
// traced test compares.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "banklab/hardware.hpp"
#include "banklab/model.hpp"
#include "emu_harness.hpp"
#include "lab_accesses.hpp"

namespace banklab::emu::test {
namespace {

std::string source_line(const std::string& path, int line) {
  std::ifstream in(path);
  std::string l;
  for (int i = 0; i < line && std::getline(in, l); ++i) {}
  return l;
}

// grader::gpu::random_floats (grader/include/grader/gpu/buffers.cuh), fixed seed: 24-bit floats in [-1, 1).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    x = static_cast<float>(static_cast<std::int32_t>(z >> 40)) * 0x1p-23f - 1.0f;
  }
  return v;
}

// grader::gemm::random_halves (grader/include/grader/gemm_gpu.cuh), fixed seed: multiples of 1/8 in
// [-1, 1], never 0, as IEEE half bits; every sum of their products is exact in float.
std::vector<std::uint16_t> random_halves(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint16_t> v(n);
  for (std::uint16_t& h : v) {
    int q = 0;
    while (q == 0) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      q = static_cast<int>((seed >> 33) % 17) - 8;
    }
    int e = 0;
    const double m = std::frexp(std::fabs(q / 8.0), &e);  // |q| / 8 = m 2^e, m in [0.5, 1)
    const auto man = static_cast<std::uint16_t>(std::ldexp(m, 11)) & 1023u;
    h = static_cast<std::uint16_t>((q < 0 ? 0x8000u : 0u) | static_cast<unsigned>((e + 14) << 10) | man);
  }
  return v;
}
float half_value(std::uint16_t h) {
  const int exp = (h >> 10) & 31;
  const float v = std::ldexp(static_cast<float>((h & 1023) | 1024), exp - 25);
  return (h >> 15) ? -v : v;
}

enum class LabId { L00, L01, L06, L07 };

struct LabCase {
  const char* name;
  const char* ptx;
  const char* source;
  LabId lab;
  bool solution;
};

void PrintTo(const LabCase& c, std::ostream* os) { *os << c.name; }  // a stable test name in ctest

const LabCase kLabs[] = {
    {"Lab00Stub", BANKLAB_EMU_PTX_LAB00_STUB, BANKLAB_EMU_LAB00_STUB, LabId::L00, false},
    {"Lab00Solution", BANKLAB_EMU_PTX_LAB00_SOLUTION, BANKLAB_EMU_LAB00_SOLUTION, LabId::L00, true},
    {"Lab01Stub", BANKLAB_EMU_PTX_LAB01_STUB, BANKLAB_EMU_LAB01_STUB, LabId::L01, false},
    {"Lab01Solution", BANKLAB_EMU_PTX_LAB01_SOLUTION, BANKLAB_EMU_LAB01_SOLUTION, LabId::L01, true},
    {"Lab06Stub", BANKLAB_EMU_PTX_LAB06_STUB, BANKLAB_EMU_LAB06_STUB, LabId::L06, false},
    {"Lab06Solution", BANKLAB_EMU_PTX_LAB06_SOLUTION, BANKLAB_EMU_LAB06_SOLUTION, LabId::L06, true},
    {"Lab07Stub", BANKLAB_EMU_PTX_LAB07_STUB, BANKLAB_EMU_LAB07_STUB, LabId::L07, false},
    {"Lab07Solution", BANKLAB_EMU_PTX_LAB07_SOLUTION, BANKLAB_EMU_LAB07_SOLUTION, LabId::L07, true},
};

// The launch of the lab's correctness check (the traced one), on the emulator.
struct LabRun {
  LaunchResult result;
  std::vector<float> in, out, expected;
  std::vector<trace::Instruction> shared;
  std::vector<trace::Unmodelled> unmodelled;  // what the model does not cost (lab 07: the TMA loads)
  long long units = 0;  // tiles (lab 00), blocks of 32 rows (lab 01), blocks x steps of 64 along k (lab 06)
};

// c = a * b^T of m x k and n x k halves, summed in k order in float (grader::gemm::cpu_product):
// the oracle of labs 06 and 07.
std::vector<float> cpu_product(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b, int m, int n,
                               int kk) {
  std::vector<float> c(static_cast<std::size_t>(m) * n, 0.0f);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int p = 0; p < kk; ++p)
        sum += half_value(a[static_cast<std::size_t>(i) * kk + p]) * half_value(b[static_cast<std::size_t>(j) * kk + p]);
      c[static_cast<std::size_t>(i) * n + j] = sum;
    }
  return c;
}

// Labs 06 and 07: gemm(c, a or map_a, b or map_b, m, n, k) at the traced size (lab.toml: gemm,
// sizes [[128, 192, 384], ...] and [[128, 192, 256], ...]): 64 x 64 blocks of c, 128 threads, as
// the labs' gemm launches them. Lab 07's tensor maps are encoded as the judge's encode_map()
// encodes them (the kernel's kSwizzleBytes and kBoxBytes), in global memory.
LabRun run_gemm(Emu& e, const LabCase& c) {
  LabRun r;
  const bool tma = c.lab == LabId::L07;
  const Kernel& k = e.kernel(tma ? "_ZN5lab078gemm_tmaEPfPK14CUtensorMap_stS3_iii" : "_ZN5lab0613gemm_ldmatrixEPfPK6__halfS3_iii");
  const int m = 128, n = 192, kk = tma ? 256 : 384;
  r.units = (m / 64) * (n / 64) * (kk / 64);
  const std::vector<std::uint16_t> a = random_halves(static_cast<std::size_t>(m) * kk, 47),
                                   b = random_halves(static_cast<std::size_t>(n) * kk, 48);
  r.expected = cpu_product(a, b, m, n, kk);
  const std::uint64_t dc = e.alloc(r.expected.size() * 4), da = e.upload(a), db = e.upload(b);
  std::uint64_t op_a = da, op_b = db;
  const Lab07Maps modes = lab07_maps(c.solution);
  if (tma) {
    const std::uint64_t dmaps = e.alloc(2 * sizeof(TensorMap));
    for (int t = 0; t < 2; ++t) {
      TensorMap map;
      std::string why;
      if (encode_halves_map(map, t == 0 ? da : db, t == 0 ? m : n, kk, modes.box_bytes, modes.swizzle_bytes, &why) != tma::kSuccess)
        throw std::runtime_error("encode_tiled refused the judge's map: " + why);
      e.dev.write(dmaps + t * sizeof(TensorMap), &map, sizeof map);
    }
    op_a = dmaps;
    op_b = dmaps + sizeof(TensorMap);
  }
  e.cfg.grid.x = n / 64;
  e.cfg.grid.y = m / 64;
  e.cfg.block.x = 128;
  r.result = e.run(k, {dc, op_a, op_b, static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(kk)});
  r.out = e.download<float>(dc, r.expected.size());
  r.shared = e.trace.take_instructions();
  r.unmodelled = e.trace.take_unmodelled();
  if (!tma) return r;
  // What the model is not asked: the TMA loads, kBoxesPerTile a tile, two tiles a unit of work.
  std::uint64_t tma_loads = 0;
  for (const trace::Unmodelled& u : r.unmodelled) tma_loads += u.what.find("TMA load") != std::string::npos ? u.count : 0;
  if (r.result.ok() && tma_loads != static_cast<std::uint64_t>(2 * modes.boxes_per_tile * r.units)) {
    r.result.status = LaunchResult::Status::Fault;
    r.result.message = "TMA loads recorded: " + std::to_string(tma_loads) + ", expected " + std::to_string(2 * modes.boxes_per_tile * r.units);
  }
  return r;
}

LabRun run_lab(const LabCase& c) {
  Emu e(read_text(c.ptx));
  if (c.lab == LabId::L06 || c.lab == LabId::L07) return run_gemm(e, c);
  const bool lab01 = c.lab == LabId::L01;
  const Kernel& k = e.kernel(lab01 ? "_ZN5lab018row_sumsEPKfPf" : "_ZN5lab0013multiply_by_iEPKfPf");
  LabRun r;
  if (!lab01) {
    r.units = 256;  // lab.toml: multiply_by_i_tiles, sizes [[256], ...], "traced"
    r.in = random_floats(static_cast<std::size_t>(r.units) * 1024, 47);
    r.expected.resize(r.in.size());
    for (std::size_t i = 0; i + 1 < r.in.size(); i += 2) {  // test.cu's times_i
      r.expected[i] = -r.in[i + 1];
      r.expected[i + 1] = r.in[i];
    }
  } else {
    const long long rows = 16384;  // lab.toml: row_sums_launch, sizes [[16384], ...], "traced"
    r.units = rows / 32;
    r.in = random_floats(static_cast<std::size_t>(rows) * 32, 47);
    for (float& x : r.in) x = std::round(x * 16.0f);  // test.cu's whole_numbers
    r.expected.assign(static_cast<std::size_t>(rows), 0.0f);  // test.cu's row_sums_of
    for (std::size_t row = 0; row < r.expected.size(); ++row)
      for (int col = 0; col < 32; ++col) r.expected[row] += r.in[row * 32 + static_cast<std::size_t>(col)];
  }
  e.cfg.grid.x = static_cast<unsigned>(r.units);
  const std::uint64_t d_in = e.upload(r.in), d_out = e.alloc(r.expected.size() * 4);
  r.result = e.run(k, {d_in, d_out});
  r.out = e.download<float>(d_out, r.expected.size());
  r.shared = e.trace.take_instructions();
  return r;
}

class Lab : public ::testing::TestWithParam<LabCase> {};

TEST_P(Lab, OutputEqualsTheCpuReference) {
  const LabRun r = run_lab(GetParam());
  ASSERT_TRUE(r.result.ok()) << r.result.message;
  ASSERT_EQ(r.out.size(), r.expected.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < r.out.size(); ++i) bad += std::memcmp(&r.out[i], &r.expected[i], 4) != 0;
  EXPECT_EQ(bad, 0u) << "of " << r.out.size() << " outputs";
}

TEST_P(Lab, TracedWavefrontsPerLineAreTheModelsForTheDescribedAccesses) {
  const LabCase& c = GetParam();
  const LabRun r = run_lab(c);
  ASSERT_TRUE(r.result.ok()) << r.result.message;
  const Described d = c.lab == LabId::L01 ? lab01_row_sums(c.solution)
                      : c.lab == LabId::L00 ? lab00_multiply_by_i(c.solution)
                      : c.lab == LabId::L06 ? lab06_gemm(c.solution)
                                            : lab07_gemm(c.solution);
  // The model over the described accesses, times the units of work launched.
  std::map<Op, long long> model_w, model_min, model_n;
  for (const Group& g : d.groups)
    for (const WarpAccess& a : g.accesses) {
      model_w[a.op] += count_wavefronts(a) * r.units;
      model_min[a.op] += minimum_wavefronts(a) * r.units;
      model_n[a.op] += r.units;
    }
  // The trace as the judge's check sums it: per source line, through trace::cost_of().
  std::map<int, long long> line_w, line_min;
  std::map<int, std::set<Op>> line_ops;
  std::map<Op, long long> traced_w, traced_min, traced_n;
  for (const trace::Instruction& i : r.shared) {
    const trace::Cost cost = trace::cost_of(i);
    const long long n = static_cast<long long>(i.count);
    line_w[i.line] += cost.wavefronts * n;
    line_min[i.line] += cost.minimum * n;
    line_ops[i.line].insert(i.access.op);
    traced_w[i.access.op] += cost.wavefronts * n;
    traced_min[i.access.op] += cost.minimum * n;
    traced_n[i.access.op] += n;
    // Every traced warp instruction is one of the described accesses, lane for lane.
    bool described = false;
    for (const Group& g : d.groups)
      for (const WarpAccess& a : g.accesses)
        described = described || (a.op == i.access.op && a.width == i.access.width && a.mask == i.access.mask && a.offset == i.access.offset);
    EXPECT_TRUE(described) << "line " << i.line << ": " << trace::explain_command(i.access);
  }
  EXPECT_EQ(traced_n, model_n) << "warp instructions per op";
  EXPECT_EQ(traced_w, model_w) << "wavefronts per op";
  EXPECT_EQ(traced_min, model_min) << "minimum per op";
  // Each source line has one op and is the line of one group (its op, its text): its wavefronts
  // are the model's for that group's accesses.
  ASSERT_EQ(line_w.size(), d.groups.size());
  for (const auto& [line, w] : line_w) {
    ASSERT_EQ(line_ops[line].size(), 1u) << "line " << line;
    const Op op = *line_ops[line].begin();
    const std::string text = source_line(c.source, line);
    const Group* g = nullptr;
    for (const Group& h : d.groups)
      if (h.op == op && text.find(h.marker) != std::string::npos) g = &h;
    ASSERT_NE(g, nullptr) << c.source << ":" << line << " is no described line: " << text;
    long long gw = 0, gmin = 0;
    for (const WarpAccess& a : g->accesses) {
      gw += count_wavefronts(a) * r.units;
      gmin += minimum_wavefronts(a) * r.units;
    }
    EXPECT_EQ(w, gw) << "line " << line;
    EXPECT_EQ(line_min[line], gmin) << "line " << line;
  }
  // The traced check's verdict on these figures: the solution at the work's minimum, the stub over it.
  long long all_w = 0, all_min = 0, all_n = 0;
  for (const auto& [op, w] : traced_w) all_w += w;
  for (const auto& [op, m] : model_min) all_min += m;
  for (const auto& [op, n] : traced_n) all_n += n;
  if (c.solution) EXPECT_EQ(all_w, all_min);
  else EXPECT_GT(all_w, all_min);
  std::cout << "[ emulated ] " << c.name << ": " << all_n << " shared warp instructions, "
            << all_w << " wavefronts (work minimum " << all_min << "), " << r.result.warp_instructions
            << " warp instructions, " << r.result.lane_instructions << " lane instructions\n";
}

TEST(Lab00, RealAddressesHaveTheBanksOfTheFormula) {
  // Lab00OnGpu.RealAddressesHaveTheBanksOfTheFormula on the emulator: report_banks, one warp.
  for (const char* ptx : {BANKLAB_EMU_PTX_LAB00_STUB, BANKLAB_EMU_PTX_LAB00_SOLUTION}) {
    Emu e(read_text(ptx));
    const std::uint64_t out = e.alloc(5 * 32 * 4);
    const LaunchResult res = e.run(e.kernel("_ZN5lab0012report_banksEPi"), {out}, false);
    ASSERT_TRUE(res.ok()) << res.message;
    const std::vector<int> got = e.download<int>(out, 5 * 32);
    for (unsigned i = 0; i < 32; ++i) {
      EXPECT_EQ(got[0 * 32 + i], bank_of(5u * i)) << i;
      EXPECT_EQ(got[1 * 32 + i], bank_of(2u * 3u * i)) << i;
      EXPECT_EQ(got[2 * 32 + i], bank_of((32u * i + 7u) * 4u)) << i;
      EXPECT_EQ(got[3 * 32 + i], bank_of(8u * i)) << i;
      EXPECT_EQ(got[4 * 32 + i], bank_of(16u * i)) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Labs, Lab, ::testing::ValuesIn(kLabs),
                         [](const ::testing::TestParamInfo<LabCase>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace banklab::emu::test
