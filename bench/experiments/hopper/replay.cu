// Replays a kernel's recorded warp instructions one by one, so Nsight Compute can count each
// apart: the list comes from `banklab trace --format predict` through bench/experiments/hopper/replay_list.py
// (one line per distinct instruction: shared offsets of the 32 lanes and, for cp.async, each
// lane's global source bank). Each launch runs one pattern, in one of these ways:
//   ld, st     LDS/STS of the pattern's width (ld.shared / st.shared, inline PTX)
//   ca         cp.async.ca.shared.global of the width (SASS LDGSTS.E*)
//   ca128      the same with the .L2::128B prefetch hint (SASS LDGSTS.E*.LTC128B, what cuBLAS's
//              sm80 SGEMMs run)
//   cg         cp.async.cg.shared.global, 16 bytes (SASS LDGSTS.E.BYPASS.128)
//   ca128w, cgw  ca128 / cg after the lane loaded its source word into L1 (ld.global.ca): the
//              copy reads a line L1 already holds
//   ca128z, ca128h, ca128r  ca128 with src-size 0 (zero fill, no global read) for every lane, the
//              odd lanes, or the lanes the trace recorded without a source ("z" in the list)
// on BLOCKS blocks of WARPS warps, every warp running the pattern REPS times back to back, then
// cp.async.wait_all. Lane i copies from global byte 4 * src_i + 128 * L * k, k counting the earlier
// active lanes with the same source bank, so the lanes read distinct words in the recorded banks
// (L = 1, or the L of a way written "WAY@L": same-bank lanes L lines apart);
// every warp and repetition reads its own 4 KiB (no two warps share a line).
//   nvcc -O2 -arch=sm_90 -o replay bench/experiments/hopper/replay.cu
//   [REPLAY_WITH=LIST2] ./replay LIST LAUNCH_LOG SPEC...
//         SPEC = way:blocks:warps:reps:patterns (the first N of LIST; way "as" = ld/st as recorded,
//         cpasync as ca128; way "pair" = pattern i of LIST and pattern i of LIST2, both "as",
//         issued alternately by every warp: does one kind's count move when the other runs beside it?
//         "paircg": the same with the cp.async pattern as .cg)
// writes one line per launch and pattern to LAUNCH_LOG: "N id pc count traced op width way blocks
// warps reps" (a pair: two lines with the same N, ways "pair-...").
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

enum Way { kLd = 0, kSt = 1, kCa = 2, kCa128 = 3, kCg = 4, kCa128Warm = 5, kCgWarm = 6, kCa128Zero = 7 };
struct Pattern {
  unsigned off[32];
  unsigned src[32];  // byte offset of lane i's source inside its warp's 4 KiB
  unsigned mask;
  unsigned zero;     // kCa128Zero: lanes whose copy reads nothing (src-size 0: zero fill)
  int width, way;
};
__device__ __forceinline__ unsigned char* smem_base() {
  extern __shared__ __align__(128) unsigned char smem[];
  return smem;
}
constexpr size_t kGlobalBytes = size_t{32} << 20;  // small: ncu saves and restores it for every pass

__device__ __forceinline__ void issue(const Pattern& q, unsigned lane, const unsigned char* base, unsigned& sink) {
  const int width = q.width, way = q.way;
  if (!((q.mask >> lane) & 1u)) return;
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem_base() + q.off[lane]));
  const unsigned char* s = base + q.src[lane];
  if (way == kCa128Zero) {  // src-size 0 for the zero lanes: they write zeros and read nothing
    const unsigned n = (q.zero >> lane) & 1u ? 0u : static_cast<unsigned>(width);
    if (width == 4) asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 4, %2;" ::"r"(a), "l"(s), "r"(n) : "memory");
    else if (width == 8) asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 8, %2;" ::"r"(a), "l"(s), "r"(n) : "memory");
    else asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 16, %2;" ::"r"(a), "l"(s), "r"(n) : "memory");
    return;
  }
  if (way == kCa128Warm || way == kCgWarm) {
    // Warm: the lane's source word is loaded into L1 first (ld.global.ca), and the copy's
    // address is made to depend on the loaded value, so the copy issues after the line is in L1.
    unsigned v;
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(s));
    asm volatile("" : "+l"(s) : "r"(v));
    sink += v;
  }
  if (way == kLd) {
    unsigned x, y, z, w;
    if (width == 4) { asm volatile("ld.shared.b32 %0, [%1];" : "=r"(x) : "r"(a)); sink += x; }
    else if (width == 8) { asm volatile("ld.shared.v2.b32 {%0,%1}, [%2];" : "=r"(x), "=r"(y) : "r"(a)); sink += x + y; }
    else if (width == 16) { asm volatile("ld.shared.v4.b32 {%0,%1,%2,%3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a)); sink += x + y + z + w; }
    else if (width == 2) { asm volatile("ld.shared.u16 %0, [%1];" : "=r"(x) : "r"(a)); sink += x; }
    else { asm volatile("ld.shared.u8 %0, [%1];" : "=r"(x) : "r"(a)); sink += x; }
  } else if (way == kSt) {
    if (width == 4) asm volatile("st.shared.b32 [%0], %1;" ::"r"(a), "r"(lane) : "memory");
    else if (width == 8) asm volatile("st.shared.v2.b32 [%0], {%1,%1};" ::"r"(a), "r"(lane) : "memory");
    else if (width == 16) asm volatile("st.shared.v4.b32 [%0], {%1,%1,%1,%1};" ::"r"(a), "r"(lane) : "memory");
    else if (width == 2) asm volatile("st.shared.u16 [%0], %1;" ::"r"(a), "h"(static_cast<unsigned short>(lane)) : "memory");
    else asm volatile("st.shared.u8 [%0], %1;" ::"r"(a), "r"(lane) : "memory");
  } else if (way == kCa) {
    if (width == 4) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(a), "l"(s) : "memory");
    else if (width == 8) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(a), "l"(s) : "memory");
    else asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(a), "l"(s) : "memory");
  } else if (way == kCa128 || way == kCa128Warm) {
    if (width == 4) asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 4;" ::"r"(a), "l"(s) : "memory");
    else if (width == 8) asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 8;" ::"r"(a), "l"(s) : "memory");
    else asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 16;" ::"r"(a), "l"(s) : "memory");
  } else {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(a), "l"(s) : "memory");
  }
}

// npat patterns (1, or 2 for a pair), each issued once per repetition, interleaved.
__global__ void replay(const Pattern* p, int npat, const unsigned char* g, int reps) {
  const unsigned lane = threadIdx.x & 31u;
  const size_t warp = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  unsigned sink = 0;
  for (int r = 0; r < reps; ++r)
    for (int k = 0; k < npat; ++k)
      issue(p[k], lane, g + ((warp * reps + r) * 4096u) % kGlobalBytes, sink);
  asm volatile("cp.async.wait_all;" ::: "memory");
  if (sink == 0xdeadbeefu) asm volatile("st.global.u32 [%0], %1;" ::"l"(g), "r"(sink));  // keeps the loads
}

struct Row { int id; std::string pc; long count; int traced; std::string op; Pattern p; int banks[32]; };

int main(int argc, char** argv) {
  if (argc < 4) { std::fprintf(stderr, "usage: %s LIST LAUNCH_LOG way:blocks:warps:reps:patterns...\n", argv[0]); return 2; }
  auto read_list = [](const char* path) {
    std::vector<Row> rows;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      std::istringstream ss(line);
      Row r{};
      std::string mask;
      ss >> r.id >> r.pc >> r.count >> r.traced >> r.op >> r.p.width >> mask;
      if (!ss) continue;
      r.p.mask = static_cast<unsigned>(std::stoul(mask, nullptr, 16));
      for (unsigned& o : r.p.off) ss >> o;
      for (int& b : r.banks) ss >> b;
      rows.push_back(r);
    }
    return rows;
  };
  const std::vector<Row> rows = read_list(argv[1]);
  const char* with = std::getenv("REPLAY_WITH");
  const std::vector<Row> others = with ? read_list(with) : std::vector<Row>{};
  std::fprintf(stderr, "%zu patterns\n", rows.size());
  unsigned char* g;
  CHECK(cudaMalloc(&g, kGlobalBytes + 8192));
  CHECK(cudaMemset(g, 1, kGlobalBytes + 8192));
  Pattern* dp;
  CHECK(cudaMalloc(&dp, 2 * sizeof(Pattern)));
  CHECK(cudaFuncSetAttribute(replay, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
  FILE* log = std::fopen(argv[2], "w");
  int launch = 0;
  for (int s = 3; s < argc; ++s) {
    char way[16];
    int blocks, warps, reps, n;
    if (std::sscanf(argv[s], "%15[^:]:%d:%d:%d:%d", way, &blocks, &warps, &reps, &n) != 5) { std::fprintf(stderr, "bad spec %s\n", argv[s]); return 2; }
    // "WAY@L": lanes with one source bank read words L lines (128 bytes each) apart (default 1).
    std::string w = way;
    unsigned lines = 1;
    if (const size_t at = w.find('@'); at != std::string::npos) { lines = static_cast<unsigned>(std::stoul(w.substr(at + 1))); w.resize(at); }
    auto sources = [lines](Row& r) {
      int seen[32] = {};
      for (int i = 0; i < 32; ++i) {
        const int b = r.banks[i] < 0 ? (4 * i) % 32 : r.banks[i];  // -1 inactive, -2 no source (zero fill)
        r.p.src[i] = 4u * b + 128u * lines * seen[b]++;
        r.p.src[i] &= ~static_cast<unsigned>(r.p.width - 1);  // an aligned source, as the instruction needs
      }
    };
    const bool pair = w == "pair" || w == "paircg";  // paircg: the cp.async pattern as .cg
    if (pair && others.empty()) { std::fprintf(stderr, "spec %s needs REPLAY_WITH=LIST2\n", argv[s]); return 2; }
    auto way_of = [&](const Row& r, const std::string& how) {
      return how == "as" ? (r.op == "ld" ? kLd : r.op == "st" ? kSt : kCa128)
           : how == "ld" ? kLd : how == "st" ? kSt : how == "ca" ? kCa : how == "ca128" ? kCa128
           : how == "ca128w" ? kCa128Warm : how == "cgw" ? kCgWarm
           : how == "ca128z" || how == "ca128h" || how == "ca128r" ? kCa128Zero : kCg;
    };
    for (int i = 0; i < n && i < static_cast<int>(rows.size()); ++i) {
      std::vector<Row> run{rows[i]};
      if (pair) run.push_back(others[i % others.size()]);
      unsigned top = 0;
      bool skip = false;
      for (Row& r : run) {
        sources(r);
        r.p.way = w == "paircg" && r.op == "cpasync" ? kCg : way_of(r, pair ? "as" : w);
        // zero fill: every lane (z), the odd lanes (h), or the lanes the trace recorded without a source (r)
        r.p.zero = 0;
        for (int l = 0; l < 32; ++l)
          if (w == "ca128z" || (w == "ca128h" && (l & 1)) || (w == "ca128r" && r.banks[l] == -2)) r.p.zero |= 1u << l;
        if ((r.p.way == kCg || r.p.way == kCgWarm) && r.p.width != 16) skip = true;
        for (int l = 0; l < 32; ++l) if ((r.p.mask >> l) & 1u) top = std::max(top, r.p.off[l] + 16u);
      }
      const size_t bytes = (top + 1023u) / 1024u * 1024u;
      if (bytes > 227 * 1024) { std::fprintf(stderr, "pattern %d needs %zu bytes of shared memory: skipped\n", run[0].id, bytes); skip = true; }
      if (skip) continue;
      Pattern ps[2];
      for (size_t k = 0; k < run.size(); ++k) ps[k] = run[k].p;
      CHECK(cudaMemcpy(dp, ps, sizeof(Pattern) * run.size(), cudaMemcpyHostToDevice));
      replay<<<blocks, 32 * warps, bytes>>>(dp, static_cast<int>(run.size()), g, reps);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      static const char* names[] = {"ld", "st", "ca", "ca128", "cg", "ca128w", "cgw", "ca128z"};
      const std::string at = lines == 1 ? "" : "@" + std::to_string(lines);
      for (const Row& r : run)  // a pair: two lines with the same launch number
        std::fprintf(log, "%d %d %s %ld %d %s %d %s%s%s %d %d %d\n", launch, r.id, r.pc.c_str(), r.count, r.traced, r.op.c_str(),
                     r.p.width, pair ? "pair-" : "", r.p.way == kCa128Zero ? w.c_str() : names[r.p.way], at.c_str(), blocks, warps, reps);
      ++launch;
    }
  }
  std::fclose(log);
  std::printf("%d launches\n", launch);
  return 0;
}
