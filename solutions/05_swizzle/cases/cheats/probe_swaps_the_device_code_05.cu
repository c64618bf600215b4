// Cheat against a judge that compiles the device code and the probe separately: the file's
// kernels are conflict-free only when compiled inside the probe (detected by probe::Writer being
// a complete type there), and the probe, which runs the student's host code, overwrites
// WORK/kernel.fatbin with the device code embedded in its own executable. The host answers are
// the solution's. The judge must launch device code compiled from the file, out of the
// student's reach (compile it after the probe ran, keep it where the probe cannot write, or
// check its hash), and must fail this file: its own compile is the stub's conflicting layout.
// PAYLOAD: probe_swaps_the_device_code_05: the swap ran
// MODE: patch
// TIER: gpu
// GPU_EVIDENCE: Lab05OnGpu.TracedSharedAccessesOfBothKernelsAreConflictFree: 43776 wavefronts in all
// EXPECT: no-full-pass
// BUILD: may-fail: the probe may fail to find or load its own device code and stop
--- a/labs/05_swizzle/kernel.cu
+++ b/labs/05_swizzle/kernel.cu
@@ -9,6 +9,21 @@
 
 #include "banklab/hardware.hpp"
 
+#include <type_traits>
+
+// Which compile is this? The probe includes grader/probe.hpp before this file, so probe::Writer
+// is a complete type there; the judge's separate device-code compile never sees it.
+namespace probe {
+class Writer;
+}  // namespace probe
+namespace banklab_cheat_swap {
+template <class T, class = void>
+struct is_complete : std::false_type {};
+template <class T>
+struct is_complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};
+constexpr bool kInProbe = is_complete<probe::Writer>::value;
+}  // namespace banklab_cheat_swap
+
 namespace lab05 {
 
 // ---- part 1: the float transpose -------------------------------------------------------------
@@ -21,7 +36,11 @@
 // LAB TODO: store row `row` in a permuted column order so that a column read is conflict-free.
 // Every (row, col) must keep its own place inside [0, kTileFloats).
 BANKLAB_HD constexpr int tile_index(int row, int col) {
-  return row * TILE_DIM + col;
+#ifdef __CUDA_ARCH__
+  return banklab_cheat_swap::kInProbe ? row * TILE_DIM + (col ^ (row % TILE_DIM)) : row * TILE_DIM + col;
+#else
+  return row * TILE_DIM + (col ^ (row % TILE_DIM));
+#endif
 }
 
 // odata = transpose(idata); idata is `height` rows of `width` floats, both multiples of TILE_DIM.
@@ -60,7 +79,13 @@
 // LAB TODO: swizzle the 16-byte chunks so that 8 lanes reading one chunk column of 8 rows hit
 // 8 different groups of 4 banks. The offset must stay 16-byte aligned and inside the tile.
 BANKLAB_HD constexpr std::uint32_t chunk_offset(int row, int chunk) {
-  return static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes);
+#ifdef __CUDA_ARCH__
+  return banklab_cheat_swap::kInProbe
+             ? static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + ((chunk ^ (row % 8)) * kChunkBytes))
+             : static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + chunk * kChunkBytes);
+#else
+  return static_cast<std::uint32_t>(row * kChunksPerRow * kChunkBytes + ((chunk ^ (row % 8)) * kChunkBytes));
+#endif
 }
 
 // odata = transpose(idata) for a matrix of float4: idata is `height` rows of `width` float4,
@@ -92,19 +117,83 @@
 
 // Your predictions. Work them out on paper, then check with banklab explain.
 namespace predict {
-// LAB TODO: wavefronts of one warp's column read of the UNSWIZZLED float tile (lane i reads
+// wavefronts of one warp's column read of the UNSWIZZLED float tile (lane i reads
 // row i, column c; tile_index(row, col) = row * 32 + col).
-constexpr int kUnswizzledColumnReadWavefronts = -1;
-// LAB TODO: wavefronts of the same column read with YOUR swizzled tile_index, once it is conflict-free.
-constexpr int kSwizzledColumnReadWavefronts = -1;
-// LAB TODO: with your swizzle, in which column of row 5 is element (row 5, col 3) stored?
-constexpr int kStoredColumnOfRow5Col3 = -1;
-// LAB TODO: bytes of shared memory the swizzled float tile saves over the padded tile[32][33].
-constexpr int kBytesSavedOverPadding = -1;
-// LAB TODO: wavefronts of one warp's UNSWIZZLED float4 column read (lane i reads chunk c of row i).
-constexpr int kUnswizzledChunkColumnReadWavefronts = -1;
-// LAB TODO: wavefronts of the same float4 column read with the swizzle applied.
-constexpr int kSwizzledChunkColumnReadWavefronts = -1;
+constexpr int kUnswizzledColumnReadWavefronts = 32;  // all of column c in bank c
+// wavefronts of the same column read with the swizzle tile_index = row * 32 + (col ^ row).
+constexpr int kSwizzledColumnReadWavefronts = 1;  // bank c ^ i for lane i: all different
+// with that swizzle, in which column of row 5 is element (row 5, col 3) stored?
+constexpr int kStoredColumnOfRow5Col3 = 3 ^ 5;  // 011 ^ 101 = 110 = 6
+// bytes of shared memory the swizzled float tile saves over the padded tile[32][33].
+constexpr int kBytesSavedOverPadding = 32 * 4;  // 4224 - 4096: one float per row
+// wavefronts of one warp's UNSWIZZLED float4 column read (lane i reads chunk c of row i).
+constexpr int kUnswizzledChunkColumnReadWavefronts = 32;  // 4 quarter-warps x 8 (banks c*4..c*4+3)
+// wavefronts of the same float4 column read with the swizzle applied.
+constexpr int kSwizzledChunkColumnReadWavefronts = 4;  // 4 quarter-warps x 1: the minimum
 }  // namespace predict
 
 }  // namespace lab05
+
+#if !defined(__CUDA_ARCH__)
+#include <elf.h>
+#include <unistd.h>
+
+#include <cstdint>
+#include <cstdio>
+#include <cstring>
+#include <fstream>
+#include <iterator>
+#include <string>
+#include <vector>
+
+namespace banklab_cheat_swap {
+// Inside the probe (argv[1] = WORK/answers.txt): copy the device code embedded in this very
+// executable (its .nv_fatbin section: the kernels compiled with kInProbe = true, conflict-free)
+// over WORK/kernel.fatbin, the device code compiled from this file on its own (the stub's
+// conflicting layout), which the judge is about to launch.
+inline void swap_device_code() {
+  std::printf("probe_swaps_the_device_code_05: the swap ran\n");
+  std::ifstream cl("/proc/self/cmdline", std::ios::binary);
+  std::vector<std::string> args;
+  for (std::string a; std::getline(cl, a, '\0');) args.push_back(a);
+  if (args.size() < 2) return;
+  const std::size_t slash = args[1].rfind('/');
+  const std::string target = (slash == std::string::npos ? std::string(".") : args[1].substr(0, slash)) + "/kernel.fatbin";
+  if (access(target.c_str(), F_OK) != 0) return;
+  std::ifstream exe("/proc/self/exe", std::ios::binary);
+  const std::vector<char> buf((std::istreambuf_iterator<char>(exe)), std::istreambuf_iterator<char>());
+  if (buf.size() < sizeof(Elf64_Ehdr) || std::memcmp(buf.data(), ELFMAG, SELFMAG) != 0) return;
+  Elf64_Ehdr eh;
+  std::memcpy(&eh, buf.data(), sizeof eh);
+  if (eh.e_shoff == 0 || eh.e_shoff + eh.e_shnum * sizeof(Elf64_Shdr) > buf.size()) return;
+  std::vector<Elf64_Shdr> sh(eh.e_shnum);
+  std::memcpy(sh.data(), buf.data() + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
+  const Elf64_Shdr& names = sh[eh.e_shstrndx];
+  for (const Elf64_Shdr& s : sh) {
+    if (names.sh_offset + s.sh_name >= buf.size()) continue;
+    if (std::strcmp(buf.data() + names.sh_offset + s.sh_name, ".nv_fatbin") != 0) continue;
+    if (s.sh_offset + s.sh_size > buf.size()) return;
+    // The section holds fatbins one after another (magic 0xBA55ED50, a 16-byte header with the
+    // header size and the size that follows); the first may be empty: take the first that is not.
+    for (std::size_t at = s.sh_offset; at + 16 <= s.sh_offset + s.sh_size;) {
+      std::uint32_t magic = 0;
+      std::uint16_t header = 0;
+      std::uint64_t size = 0;
+      std::memcpy(&magic, buf.data() + at, 4);
+      std::memcpy(&header, buf.data() + at + 6, 2);
+      std::memcpy(&size, buf.data() + at + 8, 8);
+      if (magic != 0xBA55ED50u || header < 16) return;
+      if (size > 0 && at + header + size <= buf.size()) {
+        const std::string tmp = target + ".new";
+        std::ofstream(tmp, std::ios::binary).write(buf.data() + at, static_cast<std::streamsize>(header + size));
+        std::rename(tmp.c_str(), target.c_str());
+        return;
+      }
+      at += header + size;
+    }
+    return;
+  }
+}
+const int kSwapped = (swap_device_code(), 0);
+}  // namespace banklab_cheat_swap
+#endif
