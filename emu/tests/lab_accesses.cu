// Each lab's kernel.cu (stub and solution) in a namespace of its own, so that both can be in one
// program; the access functions below are the lab's probe's (labs/00_bank_mapping/judge/probe.cu,
// labs/01_32way_conflict/judge/probe.cu, labs/06_ldmatrix/judge/probe.cu,
// labs/07_tma_swizzle/judge/probe.cu), line for line.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "banklab/hardware.hpp"
#include "lab_accesses.hpp"

namespace stub00 {
#include BANKLAB_EMU_LAB00_STUB
}
namespace solution00 {
#include BANKLAB_EMU_LAB00_SOLUTION
}
namespace stub01 {
#include BANKLAB_EMU_LAB01_STUB
}
namespace solution01 {
#include BANKLAB_EMU_LAB01_SOLUTION
}
namespace stub06 {
#include BANKLAB_EMU_LAB06_STUB
}
namespace solution06 {
#include BANKLAB_EMU_LAB06_SOLUTION
}
namespace stub07 {
#include BANKLAB_EMU_LAB07_STUB
}
namespace solution07 {
#include BANKLAB_EMU_LAB07_SOLUTION
}

namespace banklab::emu::test {

namespace {

template <typename Offset>
WarpAccess warp(Op op, Offset offset, int width = 4) {
  WarpAccess a;
  a.op = op;
  a.width = width;
  for (int lane = 0; lane < 32; ++lane) a.offset[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(offset(lane));
  return a;
}

template <typename Cell, typename Byte>
Described lab00(Cell cell_of, Byte tile_byte_offset) {
  Group st{Op::Store, "tile[", {}}, ld{Op::Load, "tile[", {}};
  for (int s = 0; s < 32; ++s) {
    st.accesses.push_back(warp(Op::Store, [&](int lane) { const auto e = cell_of(lane, s); return tile_byte_offset(e.row, e.col); }));
    ld.accesses.push_back(warp(Op::Load, [&](int lane) { const auto e = cell_of(lane, s); return tile_byte_offset(e.row, e.col ^ 1); }));
  }
  return Described{{st, ld}};
}

template <typename Index, typename Walk>
Described lab01(Index tile_index, Walk walk_col) {
  Group st{Op::Store, "tile[", {}}, ld{Op::Load, "tile[", {}};
  for (int s = 0; s < 32; ++s) {
    st.accesses.push_back(warp(Op::Store, [&](int lane) { return 4LL * tile_index(s, lane); }));
    ld.accesses.push_back(warp(Op::Load, [&](int lane) { return 4LL * tile_index(lane, walk_col(lane, s)); }));
  }
  return Described{{st, ld}};
}

// Lab 06's probe: per block and step of k, the stores filling A's tile (line `tile_a + ...`) and
// B's (`tile_b + ...`): tile t, warp w, pass p, thread 32 w + lane copies chunk e = 32 w + lane +
// kThreads p; and the ldmatrix.x4 of both tiles (ldmatrix_x4's asm statement, whose .loc is its
// operand line `: "r"(addr)`): A's of warp w, step s,
// block i, lane l: row 32 (w / 2) + 16 i + l % 16, chunk 2 s + l / 16; B's at kTileBytes: row
// 32 (w % 2) + 16 j + 8 (l / 16) + l % 8, chunk 2 s + (l / 8) % 2.
// The ldmatrix.x4 of labs 06 and 07 (the same fragments): per warp w and step s of 16 along k, for
// i = 0, 1, A's at row 32 (w / 2) + 16 i + l % 16, chunk 2 s + l / 16, and B's (at tile_bytes) at row
// 32 (w % 2) + 16 i + 8 (l / 16) + l % 8, chunk 2 s + (l / 8) % 2.
template <typename Offset>
void add_fragment_loads(Group& ld, Offset tile_offset, int threads, int tile_k, long long tile_bytes) {
  for (int w = 0; w < threads / 32; ++w)
    for (int s = 0; s < tile_k / 16; ++s)
      for (int i = 0; i < 2; ++i) {
        ld.accesses.push_back(warp(Op::LoadMatrix, [&](int l) { return tile_offset(32 * (w / 2) + 16 * i + l % 16, 2 * s + l / 16); }, 16));
        ld.accesses.push_back(warp(Op::LoadMatrix, [&](int l) {
          return tile_bytes + tile_offset(32 * (w % 2) + 16 * i + 8 * (l / 16) + l % 8, 2 * s + (l / 8) % 2);
        }, 16));
      }
}

template <typename Offset>
Described lab06(Offset tile_offset, int threads, int chunks_per_row, int tile_rows, int tile_k, long long tile_bytes) {
  Group sa{Op::Store, "tile_a + ", {}}, sb{Op::Store, "tile_b + ", {}}, ld{Op::LoadMatrix, "\"r\"(addr)", {}};
  for (int t = 0; t < 2; ++t)
    for (int w = 0; w < threads / 32; ++w)
      for (int p = 0; p < tile_rows * chunks_per_row / threads; ++p)
        (t == 0 ? sa : sb).accesses.push_back(warp(Op::Store, [&](int lane) {
          const int e = 32 * w + lane + threads * p;
          return t * tile_bytes + tile_offset(e / chunks_per_row, e % chunks_per_row);
        }, 16));
  add_fragment_loads(ld, tile_offset, threads, tile_k, tile_bytes);
  return Described{{sa, sb, ld}};
}

// Lab 07's probe: per block and step of k, the ldmatrix.x4 of both tiles (ldmatrix_x4's asm
// statement, whose .loc is its operand line `: "r"(shared_address(row_address))`); TMA writes the
// tiles (no LSU instruction). A's of warp w, step s, block i, lane l: row 32 (w / 2) + 16 i + l % 16,
// chunk 2 s + l / 16; B's at kTileBytes: row 32 (w % 2) + 16 j + 8 (l / 16) + l % 8, chunk 2 s + (l / 8) % 2.
template <typename Offset>
Described lab07(Offset tile_offset, int threads, int tile_k, long long tile_bytes) {
  Group ld{Op::LoadMatrix, "row_address))", {}};
  add_fragment_loads(ld, tile_offset, threads, tile_k, tile_bytes);
  return Described{{ld}};
}

}  // namespace

Described lab07_gemm(bool solution) {
  if (solution) {
    using namespace solution07::lab07;
    return lab07([](int r, int c) { return static_cast<long long>(tile_offset(r, c)); }, kThreads, kTileK, kTileBytes);
  }
  using namespace stub07::lab07;
  return lab07([](int r, int c) { return static_cast<long long>(tile_offset(r, c)); }, kThreads, kTileK, kTileBytes);
}

Lab07Maps lab07_maps(bool solution) {
  if (solution) return {solution07::lab07::kSwizzleBytes, solution07::lab07::kBoxBytes, solution07::lab07::kBoxesPerTile};
  return {stub07::lab07::kSwizzleBytes, stub07::lab07::kBoxBytes, stub07::lab07::kBoxesPerTile};
}

Described lab06_gemm(bool solution) {
  if (solution) {
    using namespace solution06::lab06;
    return lab06([](int r, int c) { return static_cast<long long>(tile_offset(r, c)); }, kThreads, kChunksPerRow, kTileRows, kTileK, kTileBytes);
  }
  using namespace stub06::lab06;
  return lab06([](int r, int c) { return static_cast<long long>(tile_offset(r, c)); }, kThreads, kChunksPerRow, kTileRows, kTileK, kTileBytes);
}

Described lab00_multiply_by_i(bool solution) {
  if (solution) return lab00([](int l, int s) { return solution00::lab00::cell_of(l, s); },
                             [](int r, int c) { return solution00::lab00::tile_byte_offset(r, c); });
  return lab00([](int l, int s) { return stub00::lab00::cell_of(l, s); },
               [](int r, int c) { return stub00::lab00::tile_byte_offset(r, c); });
}

Described lab01_row_sums(bool solution) {
  if (solution) return lab01([](int r, int c) { return solution01::lab01::tile_index(r, c); },
                             [](int l, int s) { return solution01::lab01::walk_col(l, s); });
  return lab01([](int r, int c) { return stub01::lab01::tile_index(r, c); },
               [](int l, int s) { return stub01::lab01::walk_col(l, s); });
}

}  // namespace banklab::emu::test
