// Cheat: the predictions are objects that compare equal to any number (operator== always true)
// and convert to -1, the placeholder. A check that compares the student's object with the truth
// (EXPECT_EQ(predicted, truth)) passes; the truth must be compared with a plain number taken from
// the student's answers, and every prediction test must still fail.
// MODE: patch
// EXPECT: no-full-pass
--- a/labs/05_swizzle/kernel.cu
+++ b/labs/05_swizzle/kernel.cu
@@ -92,19 +92,26 @@
 
 // Your predictions. Work them out on paper, then check with banklab explain.
 namespace predict {
-// LAB TODO: wavefronts of one warp's column read of the UNSWIZZLED float tile (lane i reads
-// row i, column c; tile_index(row, col) = row * 32 + col).
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
+// Each "prediction" compares equal to any number; converted to a number it is whatever was last
+// compared with it.
+struct AnyNumber {
+  template <class T>
+  friend constexpr bool operator==(const AnyNumber&, const T&) { return true; }
+  template <class T>
+  friend constexpr bool operator==(const T&, const AnyNumber&) { return true; }
+  template <class T>
+  friend constexpr bool operator!=(const AnyNumber&, const T&) { return false; }
+  template <class T>
+  friend constexpr bool operator!=(const T&, const AnyNumber&) { return false; }
+  template <class T>
+  constexpr operator T() const { return T(-1); }
+};
+inline constexpr AnyNumber kUnswizzledColumnReadWavefronts{};
+inline constexpr AnyNumber kSwizzledColumnReadWavefronts{};
+inline constexpr AnyNumber kStoredColumnOfRow5Col3{};
+inline constexpr AnyNumber kBytesSavedOverPadding{};
+inline constexpr AnyNumber kUnswizzledChunkColumnReadWavefronts{};
+inline constexpr AnyNumber kSwizzledChunkColumnReadWavefronts{};
 }  // namespace predict
 
 }  // namespace lab05
