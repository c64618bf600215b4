// Judge for lab 04 (padding): the tiled transpose through tile[32][32 + kPad]. Never compiled with
// a student's file: it reads the answers of labs/04_padding/judge/probe.cu and launches the student's
// compiled kernel.
//   Lab04Predictions  the handout's questions, checked against the bank model (generated from
//                     labs/04_padding/judge/lab.toml, see python/banklab/lab/gen.py)
//   Lab04Layout       tile_index(): in bounds, one-to-one, every warp instruction conflict-free,
//                     the smallest pad that works
//   Lab04OnGpu        the student's kernel on a GPU: correct, traced traffic at the minimum, timing;
//                     all generated from lab.toml's [gpu.transpose] and its instructions' timing
// The "at the model's minimum" tests of each instruction (Lab04Layout, from lab.toml's
// at_minimum), the instructions' labels and the kernels' symbols are generated from the
// description: grader/lab04_judge.hpp and lab04_questions_test.cpp (python/banklab/lab/gen.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grader/grader.hpp"
#include "grader/lab04_description.hpp"
#include "grader/variants.hpp"

namespace {

using banklab::Op;
using grader::Instruction;
using grader::answers;

long long constant(const char* name) { return answers().value(name); }

// The kernel's tile: `rows` rows of 32 floats, the graded variant's (lab.toml [variants] rows; 32,
// as written). The checks read the variant's, never the student's constant.
int variant_rows() { return static_cast<int>(lab04_desc::variant_value("rows", grader::graded_variant())); }

// Column c of a tile of `elem`-byte elements whose rows are `row_bytes` long, `rows` rows: a warp
// reads 32 / rows columns, lane i row i % rows of column c + i / rows (rows = 32: lane i reads row i).
Instruction column_of(const std::string& what, int elem, int row_bytes, int c = 0, int rows = 32) {
  return grader::instruction(what, Op::Load, elem,
                             [=](int lane) { return (lane % rows) * row_bytes + (c + lane / rows) * elem; });
}

bool conflict_free(const Instruction& in) {
  return !banklab::validate(in.access) && banklab::count_wavefronts(in.access) == banklab::minimum_wavefronts(in.access);
}

// Smallest row padding in bytes (a multiple of `step`) whose column read of `elem`-byte elements,
// 32 per row, `rows` rows, is valid and at the minimum: the grader's own search with the model.
int smallest_conflict_free_pad_bytes(int elem, int step, int rows = 32) {
  for (int pad = 0; pad <= 256; pad += step)
    if (conflict_free(column_of("", elem, 32 * elem + pad, 0, rows))) return pad;
  return -1;
}

// The tile as the stub declares it for the graded variant: rows of 32 floats, the variant's rows
// (the probe tabulates kTileFloats / (TILE_DIM + kPad) rows: TILE_DIM as written, kTileRows in a
// variant's stub). A classmate's file of another variant fails here, named, never its answer.
::testing::AssertionResult TileKept() {
  const int rows = variant_rows();
  const grader::Table& t = answers().table("tile_index");
  const long long declared = t.dims.empty() ? -1 : t.dims[0];
  if (constant("TILE_DIM") == 32 && declared == rows) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "TILE_DIM = " << constant("TILE_DIM") << ", kTileFloats = " << constant("kTileFloats") << ", kPad = "
         << constant("kPad") << ": a tile of " << declared << " rows of TILE_DIM + kPad floats. "
         << (grader::graded_variant() ? "Your variant's" : "This lab's") << " tile is " << rows
         << " rows of 32 floats, as its stub declares it (TILE_DIM" << (rows != 32 ? ", kTileRows" : "")
         << " and kTileFloats). Is this kernel.cu your own variant's? Keep the stub's tile and pad its rows "
            "with kPad only.";
}

}  // namespace

// ---- the layout -------------------------------------------------------------------------------

TEST(Lab04Layout, TileIndexIsInBoundsAndOneToOne) {
  BANKLAB_ASSERT(TileKept());
  const grader::Table& t = answers().table("tile_index");
  const int rows = variant_rows();
  BANKLAB_EXPECT(grader::FunctionIsInBoundsAndOneToOne(
      {"tile_index", &t, rows, 32, constant("kTileFloats"), "kTileFloats, the floats of the padded tile",
       "the padded tile is " + std::to_string(rows) + " rows of 32 + kPad floats: kTileFloats must hold all of them, "
       "and tile_index(row, col) must stay inside row `row`.",
       "row r must start where row r - 1 ends (plus its padding): tile_index(row, col) = row * (32 + kPad) + col."}));
}

TEST(Lab04Layout, TheTileUsesTheSmallestConflictFreePad) {
  BANKLAB_ASSERT(TileKept());
  const int rows = variant_rows();
  const int smallest = smallest_conflict_free_pad_bytes(4, 4, rows) / 4;
  const long long pad = constant("kPad");
  BANKLAB_CHECK(pad <= smallest) << "kPad = " << pad << " makes the column read conflict-free, but every pad float costs "
                                 << rows * 4 << " bytes per tile (" << (pad - smallest) * rows * 4
                                 << " bytes more than needed here): shared memory limits how many blocks fit on an "
                                    "SM. Find the smallest pad that works.";
}

// The GPU tier (correct, traced, the kernel's timing, its bandwidth beside a tiled copy, each
// instruction's timing) is the description's: lab.toml's [gpu.transpose] and timing =, generated
// into lab04_gpu_test.cu (python/banklab/lab/gen_gpu.py, grader/generated_gpu_tests.cuh).
