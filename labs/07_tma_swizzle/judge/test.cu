// Judge for lab 07 (a Hopper tile pipeline): C = A * B^T with mma.sync, both tiles copied into
// shared memory by TMA in the swizzle mode the student chose (kSwizzleBytes), every operand read
// with ldmatrix.x4 through tile_offset(). Never compiled with a student's file: it reads the
// answers of labs/07_tma_swizzle/judge/probe.cu and launches the student's compiled kernel.
//   Lab07Predictions  the handout's questions (wavefronts per mode, where TMA puts a byte),
//                     checked against the model (generated from labs/07_tma_swizzle/judge/lab.toml)
//   Lab07Layout       the tile's shape, the mode (one TMA has, with its box), tile_offset() reading
//                     every chunk where TMA put it in that mode, and every ldmatrix of the kernel
//                     at the model's minimum (generated from lab.toml's at_minimum)
//   Lab07OnGpu        (sm_90 only) the student's kernel fed by tensor maps the judge encodes over
//                     its own a and b in the student's mode: the product against the grader's own
//                     CPU product, and the traced shared-memory traffic (TMA's writes cost no LSU
//                     wavefront: measured on the H200, common/data/README.md, Hopper section)
#include <cuda.h>  // CUtensorMap and its enums; the encoder is the driver's, got through the runtime
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "banklab/hardware.hpp"
#include "grader/gemm_gpu.cuh"
#include "grader/gpu/buffers.cuh"
#include "grader/gpu/student.cuh"
#include "grader/gpu/trace.cuh"
#include "grader/grader.hpp"
#include "grader/lab07_description.hpp"
#include "grader/lab07_judge.hpp"
#include "grader/variants.hpp"

namespace {

using grader::answers;

long long constant(const char* name) { return answers().value(name); }

constexpr const char* kLdmatrixHint =
    "Load each fragment of A and B with ldmatrix.sync.aligned.m8n8.x4.shared.b16, as the handout's kernel does; "
    "conflict-free scalar loads of the same tile are not what this lab grades.";

// The TMA mode the student chose, if it is one (0, 32, 64, 128).
bool mode_of(long long bytes, banklab::TmaSwizzle* mode) {
  switch (bytes) {
    case 0: *mode = banklab::TmaSwizzle::None; return true;
    case 32: *mode = banklab::TmaSwizzle::Bytes32; return true;
    case 64: *mode = banklab::TmaSwizzle::Bytes64; return true;
    case 128: *mode = banklab::TmaSwizzle::Bytes128; return true;
    default: return false;
  }
}

// The graded variant's tile and box (lab.toml [variants]), never the student's constants: rows of
// `tilek` halves (64 as written), and `box`: 0 in the lab as written, where the box follows the mode,
// else the row in bytes of the box the course's tensor maps copy, whatever the mode.
int variant() { return grader::graded_variant(); }
long long tile_k() { return lab07_desc::variant_value("tilek", variant()); }
long long row_bytes() { return 2 * tile_k(); }
long long chunks_per_row() { return row_bytes() / 16; }
long long fixed_box() { return lab07_desc::variant_value("box", variant()); }
// "this lab's", or "variant 3's" (a variant's numbers are its own: lab 07's are variant 0's).
std::string whose() { return variant() ? "variant " + std::to_string(variant()) + "'s" : std::string("this lab's"); }

// The box of the grader's tensor maps in a mode: the variant's fixed box, else (the lab as written)
// the whole row without swizzle and the mode's span with it.
long long box_bytes_for(long long swizzle_bytes) {
  return fixed_box() ? fixed_box() : swizzle_bytes == 0 ? row_bytes() : swizzle_bytes;
}

std::string mode_name(long long bytes) { return bytes == 0 ? "no swizzle" : "the " + std::to_string(bytes) + "-byte mode"; }

}  // namespace

// ---- the tile and the mode --------------------------------------------------------------------

// The tile's constants as the graded variant's stub declares them: a tile of another row length (a
// classmate's file of another variant, or the lab as written's) is another exercise, graded against
// the student's own (every check below reads the variant's tile).
TEST(Lab07Layout, TheTileKeepsTheHandoutsShape) {
  const long long tk = tile_k();
  const bool ok = constant("kTileRows") == 64 && constant("kTileK") == tk && constant("kChunkBytes") == 16 &&
                  constant("kChunksPerRow") == chunks_per_row() && constant("kThreads") == 128 &&
                  constant("kTileBytes") == 64 * row_bytes();
  BANKLAB_CHECK(ok) << "kTileRows = " << constant("kTileRows") << ", kTileK = " << constant("kTileK")
                    << ", kChunkBytes = " << constant("kChunkBytes") << ", kChunksPerRow = " << constant("kChunksPerRow")
                    << ", kThreads = " << constant("kThreads") << ", kTileBytes = " << constant("kTileBytes") << ": "
                    << whose() << " tiles are 64 rows of " << tk << " halves (" << chunks_per_row()
                    << " chunks of 16 bytes, " << 64 * row_bytes()
                    << " bytes: TMA writes them whole, without padding) and a block is 128 threads"
                    << (variant() ? " (lab 07 variant " + std::to_string(variant()) + ", the variant graded here)"
                                  : std::string())
                    << ".\n  Try: keep the stub's constants as they are; change only kSwizzleBytes and tile_offset().";
}

TEST(Lab07Layout, TheSwizzleModeIsOneTmaHas) {
  const long long sw = constant("kSwizzleBytes"), box = constant("kBoxBytes"), boxes = constant("kBoxesPerTile");
  banklab::TmaSwizzle mode{};
  BANKLAB_CHECK(mode_of(sw, &mode)) << "kSwizzleBytes = " << sw
                                    << ": TMA's swizzle modes are 0 (none), 32, 64 and 128 bytes (CU_TENSOR_MAP_SWIZZLE_"
                                       "NONE, _32B, _64B, _128B); the grader encodes the tensor maps with yours.";
  const long long fixed = fixed_box(), rb = row_bytes();
  if (fixed == 0) {  // the lab as written (and variant 4, rows of 256 bytes): the box follows the mode
    BANKLAB_CHECK(box == box_bytes_for(sw) && boxes * box == rb)
        << "kBoxBytes = " << box << ", kBoxesPerTile = " << boxes << " with kSwizzleBytes = " << sw
        << ": a swizzled box row may be at most the mode's span, so the grader's tensor maps have boxes of "
        << box_bytes_for(sw) << "-byte rows (64 rows) in " << mode_name(sw) << ", " << rb / box_bytes_for(sw)
        << " of them side by side per tile. Keep the handout's kBoxBytes and kBoxesPerTile, which follow from "
           "kSwizzleBytes.";
    return;
  }
  // A variant: the course's tensor maps copy boxes of `fixed` bytes a row, whatever the mode.
  BANKLAB_CHECK(box == fixed && boxes * box == rb)
      << "kBoxBytes = " << box << ", kBoxesPerTile = " << boxes << ": " << whose()
      << " tensor maps copy boxes of 64 rows of " << fixed << " bytes, " << rb / fixed << " side by side per "
      << rb << "-byte row of the tile (lab 07 variant " << variant()
      << ", the variant graded here).\n  Try: keep the stub's kTmaBoxBytes, kBoxBytes and kBoxesPerTile.";
  BANKLAB_CHECK(sw == 0 || sw >= fixed)
      << "kSwizzleBytes = " << sw << " with " << whose() << " boxes of " << fixed << "-byte rows: TMA refuses a box whose row is "
      << "wider than the mode's span (cuTensorMapEncodeTiled returns an error; the grader cannot encode the "
         "tensor maps).\n  Try: compare the spans of the modes with the box's row.";
  BANKLAB_CHECK(sw == 0 || sw <= fixed)
      << "kSwizzleBytes = " << sw << " with " << whose() << " boxes of " << fixed << "-byte rows: a box narrower than the mode's "
      << "span still takes the span's bytes a row in shared memory (measured on the H200: "
         "banklab::tma_box_pitch, common/data/README.md), so its 64 rows would take "
      << 64 * sw << " bytes, not the " << 64 * fixed << " the tile has for it, and tile_offset() could not read "
         "the tile as kTileBytes lays it out.\n  Try: compare the spans of the modes with the box's row.";
}

// Where the grader's tensor map makes TMA put chunk `chunk` of row `row` (the model's TMA layout,
// checked on the H200 against every measured byte: Measurements.TmaBoxOffsetIsWhereTheH200PutEveryMeasuredByte).
long long where_tma_puts(banklab::TmaSwizzle mode, long long box, int row, int chunk) {
  const int per_box = static_cast<int>(box / 16);
  return static_cast<long long>(chunk / per_box) * 64 * box +
         banklab::tma_box_offset(mode, static_cast<std::uint32_t>(box), static_cast<std::uint32_t>(row),
                                 static_cast<std::uint32_t>(chunk % per_box * 16));
}

TEST(Lab07Layout, TileOffsetIsWhereTmaPutsEveryChunk) {
  const long long sw = constant("kSwizzleBytes");
  banklab::TmaSwizzle mode{};
  BANKLAB_ASSERT(mode_of(sw, &mode) ? ::testing::AssertionSuccess()
                                    : ::testing::AssertionFailure() << "kSwizzleBytes = " << sw
                                                                    << " is no TMA mode (see "
                                                                       "Lab07Layout.TheSwizzleModeIsOneTmaHas)");
  const long long box = box_bytes_for(sw);
  BANKLAB_ASSERT(sw == 0 || sw == box ? ::testing::AssertionSuccess()
                                      : ::testing::AssertionFailure() << "kSwizzleBytes = " << sw << " with boxes of "
                                                                      << box << "-byte rows (see "
                                                                         "Lab07Layout.TheSwizzleModeIsOneTmaHas)");
  BANKLAB_ASSERT(constant("kTileRows") == 64 && constant("kChunksPerRow") == chunks_per_row()
                     ? ::testing::AssertionSuccess()
                     : ::testing::AssertionFailure() << "kChunksPerRow = " << constant("kChunksPerRow") << ": " << whose()
                                                     << " tile rows hold " << chunks_per_row()
                                                     << " chunks (see Lab07Layout.TheTileKeepsTheHandoutsShape)");
  const grader::Table& t = answers().table("tile_offset");
  const int chunks = static_cast<int>(chunks_per_row());
  int bad = 0, first_row = -1, first_chunk = -1;
  for (int row = 0; row < 64; ++row)
    for (int chunk = 0; chunk < chunks; ++chunk)
      if (t({row, chunk}) != where_tma_puts(mode, box, row, chunk) && bad++ == 0) {
        first_row = row;
        first_chunk = chunk;
      }
  const long long boxes = row_bytes() / box, per_box = box / 16;
  const long long in_box = first_row >= 0 ? first_chunk % per_box : 0;  // the first miss's chunk within its box
  BANKLAB_CHECK(bad == 0)
      << bad << " of the " << 64 * chunks << " chunks of " << (variant() ? whose() : std::string("a"))
      << " tile are read where TMA, in " << mode_name(sw) << " (kSwizzleBytes = " << sw
      << "), did not put them; the first, tile_offset(" << first_row << ", " << first_chunk
      << ") = " << (first_row >= 0 ? t({first_row, first_chunk}) : 0)
      << ". The kernel would multiply other halves than A's and B's (on a GPU: a wrong product).\n"
      << "  Try: the tile is " << (boxes == 1 ? std::string("one box") : std::to_string(boxes) + " boxes side by side")
      << " of 64 rows of " << box << " bytes (box j at byte j * 64 * " << box << ", holding chunks " << per_box
      << " j to " << per_box << " j + " << per_box - 1 << " of every row); inside a box, without swizzle, byte b of row r "
      << "is at r * " << box << " + b, and the mode moves it from there. Draw where " << mode_name(sw)
      << " puts chunk " << in_box << " of a box's rows 0-31 (lane = row; change the " << in_box
      << " for another chunk) and compare with your tile_offset():\n    "
      << grader::banklab_command() << " explain ld 16 \"lane*" << box << "+16*" << in_box << "\""
      << (sw ? " --tma-swizzle " + std::to_string(sw) : std::string());
}

// ---- on the GPU (sm_90) -----------------------------------------------------------------------

namespace {

const grader::gpu::KernelName kGemmKernel{lab07_judge::kernel_gemm_tma.symbol, lab07_judge::kernel_gemm_tma.readable};

// TMA exists from sm_90 on: elsewhere the GPU tier is skipped, as when no GPU is there.
std::string no_tma_reason() {
  int dev = 0, major = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
    return "no CUDA device";
  return major >= 9 ? "" : "this lab's kernel uses TMA, which needs an sm_90 (Hopper) GPU or newer; this one is sm_" +
                               std::to_string(major) + "x";
}
// Skipped like a missing GPU (the judge fails it in graded mode).
#define LAB07_REQUIRE_TMA()                                            \
  do {                                                                \
    const std::string lab07_reason_ = no_tma_reason();                 \
    if (!lab07_reason_.empty()) GTEST_SKIP() << lab07_reason_;         \
  } while (0)

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// The tensor map of a rows x k matrix of halves (row-major) in the student's mode: boxes of
// kBoxBytes / 2 halves x 64 rows. The grader's own encoding, from the probe's constants only.
::testing::AssertionResult encode_map(CUtensorMap* map, const __half* base, int rows, int k) {
  const long long sw = constant("kSwizzleBytes");
  CUtensorMapSwizzle mode = CU_TENSOR_MAP_SWIZZLE_NONE;
  switch (sw) {
    case 0: mode = CU_TENSOR_MAP_SWIZZLE_NONE; break;
    case 32: mode = CU_TENSOR_MAP_SWIZZLE_32B; break;
    case 64: mode = CU_TENSOR_MAP_SWIZZLE_64B; break;
    case 128: mode = CU_TENSOR_MAP_SWIZZLE_128B; break;
    default:
      return ::testing::AssertionFailure() << "kSwizzleBytes = " << sw << " is no TMA mode: the grader cannot encode "
                                           << "the tensor maps (see Lab07Layout.TheSwizzleModeIsOneTmaHas)";
  }
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess || fn == nullptr)
    return ::testing::AssertionFailure() << "the driver has no cuTensorMapEncodeTiled (a driver for CUDA 12 or newer "
                                            "is needed): the grader's problem, tell your instructor";
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(k) * 2};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_bytes_for(sw) / 2), 64};
  const cuuint32_t step[2] = {1, 1};
  const CUresult r = reinterpret_cast<EncodeTiled>(fn)(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<__half*>(base),
                                                       dims, strides, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE, mode,
                                                       CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return ::testing::AssertionFailure() << "cuTensorMapEncodeTiled refused " << mode_name(sw) << " with boxes of "
                                         << box[0] << " halves x 64 rows (error " << static_cast<int>(r) << ")";
  return ::testing::AssertionSuccess();
}

// The launcher's operands after c: the tensor maps of a and b (made anew for every judged call,
// in device memory: TMA reads them there). TMA's writes of the tiles cost no LSU wavefront, so
// ncu's op_ld counts only the LDSM wavefronts (common/data/README.md).
const grader::gemm::Gemm kGemm{
    kGemmKernel,
    "lab07::gemm_tma",
    "gemm_tma",
    "map_a, map_b",
    lab07_judge::instructions_of_gemm_tma,
    false,
    [](const __half* a, const __half* b, int m, int n, int k, grader::gemm::Operands* out) -> ::testing::AssertionResult {
      CUtensorMap maps[2];
      if (auto ok = encode_map(&maps[0], a, m, k); !ok) return ok;
      if (auto ok = encode_map(&maps[1], b, n, k); !ok) return ok;
      struct DeviceMaps {
        grader::gpu::DeviceBuffer<CUtensorMap> a{1}, b{1};
      };
      const auto d = std::make_shared<DeviceMaps>();
      d->a.upload({maps[0]});
      d->b.upload({maps[1]});
      out->after_c = {{d->a.get(), sizeof(CUtensorMap)}, {d->b.get(), sizeof(CUtensorMap)}};
      out->keep = d;
      return ::testing::AssertionSuccess();
    },
    [] {
      return "\n  TMA wrote both tiles in " + mode_name(constant("kSwizzleBytes")) +
             ": if tile_offset() reads elsewhere, ldmatrix multiplies the wrong halves (see "
             "Lab07Layout.TileOffsetIsWhereTmaPutsEveryChunk).";
    },
    [] { return static_cast<int>(tile_k()); }};

}  // namespace

TEST(Lab07OnGpu, ProductIsCorrectFor128x192x256) {
  BANKLAB_REQUIRE_GPU();
  LAB07_REQUIRE_TMA();
  const grader::gemm::StudentGemm st(kGemm);
  const std::vector<long long>& s = lab07_desc::size("gemm", "traced");  // 128 x 192 x 256
  BANKLAB_EXPECT(grader::gemm::ProductIsCorrect(st, static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2])));
}

TEST(Lab07OnGpu, ProductIsCorrectForATallThinMatrix) {
  BANKLAB_REQUIRE_GPU();
  LAB07_REQUIRE_TMA();
  const grader::gemm::StudentGemm st(kGemm);
  const std::vector<long long>& s = lab07_desc::size("gemm", "correct");  // 320 x 64 x 128
  BANKLAB_EXPECT(grader::gemm::ProductIsCorrect(st, static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2])));
}

TEST(Lab07OnGpu, TracedSharedAccessesAreConflictFree) {
  BANKLAB_REQUIRE_GPU();
  LAB07_REQUIRE_TMA();
  BANKLAB_REQUIRE_TRACE();
  const grader::gemm::StudentGemm st(kGemm);
  // The first correctness check's launch, traced.
  const std::vector<long long>& s = lab07_desc::size("gemm", "traced");
  const int m = static_cast<int>(s[0]), n = static_cast<int>(s[1]), k = static_cast<int>(s[2]);
  grader::gemm::ExpectTracedSharedAccessesAreConflictFree(
      st, m, n, k, lab07_judge::hint_LdmatrixLoadsOfTheATileAreConflictFree,
      "per block and step of " + std::to_string(tile_k()) + " along k: " + std::to_string(tile_k() / 4) +
          " ldmatrix.x4 per warp at full warps; TMA's writes of the tiles take no LSU wavefront",
      grader::gpu::described_kinds(lab07_desc::kInstructions, "gemm_tma",
                                   grader::gemm::units(m, n, k, static_cast<int>(tile_k())), kLdmatrixHint));
}
