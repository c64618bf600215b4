// Cheat: macros that exist only when the file is #included by another (__INCLUDE_LEVEL__ > 0), as
// a probe that #includes the student's file does, and not when the file is compiled on its own (as
// a judge that lists the file's macros to #undef them does). They rename tile_index and
// chunk_offset to the swizzled versions for any code after the file, so a probe reports the
// solution's layout while the kernels keep the stub's conflicting one. The judge #undefs, after
// the student's file, every name the probe's own code uses: no macro of the student's, at any
// include level, reaches the probe's code, and the stub's layout is judged (its CPU tests fail).
// MODE: append
namespace lab05 {
BANKLAB_HD constexpr int banklab_cheat_tile_index(int row, int col) { return row * TILE_DIM + (col ^ (row % TILE_DIM)); }
BANKLAB_HD constexpr std::uint32_t banklab_cheat_chunk_offset(int row, int chunk) {
  const std::uint32_t b = static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes);
  return b ^ (((b >> 7) & 7u) << 4);
}
}  // namespace lab05
#if __INCLUDE_LEVEL__ > 0
#define tile_index banklab_cheat_tile_index
#define chunk_offset banklab_cheat_chunk_offset
#endif
