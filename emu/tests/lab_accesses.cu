// Each lab's kernel.cu (stub and solution) in a namespace of its own, so that both can be in one
// program; the access functions below are the lab's probe's (labs/00_bank_mapping/judge/probe.cu,
// labs/01_32way_conflict/judge/probe.cu), line for line.
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

namespace banklab::emu::test {

namespace {

template <typename Offset>
WarpAccess warp(Op op, Offset offset) {
  WarpAccess a;
  a.op = op;
  a.width = 4;
  for (int lane = 0; lane < 32; ++lane) a.offset[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(offset(lane));
  return a;
}

template <typename Cell, typename Byte>
Described lab00(Cell cell_of, Byte tile_byte_offset) {
  Described d;
  for (int s = 0; s < 32; ++s) {
    d.stores.push_back(warp(Op::Store, [&](int lane) { const auto e = cell_of(lane, s); return tile_byte_offset(e.row, e.col); }));
    d.loads.push_back(warp(Op::Load, [&](int lane) { const auto e = cell_of(lane, s); return tile_byte_offset(e.row, e.col ^ 1); }));
  }
  return d;
}

template <typename Index, typename Walk>
Described lab01(Index tile_index, Walk walk_col) {
  Described d;
  for (int s = 0; s < 32; ++s) {
    d.stores.push_back(warp(Op::Store, [&](int lane) { return 4LL * tile_index(s, lane); }));
    d.loads.push_back(warp(Op::Load, [&](int lane) { return 4LL * tile_index(lane, walk_col(lane, s)); }));
  }
  return d;
}

}  // namespace

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
