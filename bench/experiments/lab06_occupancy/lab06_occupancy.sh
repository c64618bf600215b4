#!/usr/bin/env bash
# Issue 32 item 7 on the GPU machine: builds bench/experiments/lab06_occupancy/lab06_occupancy.cu from the solution, the
# alternative launch_bounds_unrolled_shift_mask_swizzle.patch and the judge's reference kernel
# (cut out of labs/06_ldmatrix/test.cu), runs it, and writes both kernels' SASS (cuobjdump) and
# their diff under $OUT.
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"; w=$(mktemp -d)
lab=labs/06_ldmatrix; [[ -f $lab/test.cu ]] || lab=labs/06_ldmatrix/judge
python3 grader/selftest/materialize.py --case solutions/06_ldmatrix/cases/alternatives/launch_bounds_unrolled_shift_mask_swizzle.patch \
  --lab-dir solutions/06_ldmatrix --out $w/alt.cu || exit 1
cp solutions/06_ldmatrix/kernel.cu $w/sol.cu
python3 - $w/sol.cu $w/pad.cu <<'PY'
import sys, re
s = open(sys.argv[1]).read()
a = s.index('BANKLAB_HD constexpr std::uint32_t tile_offset'); b = s.index('}', a) + 1
s = s[:a] + 'BANKLAB_HD constexpr std::uint32_t tile_offset(int row, int chunk) { return row * 160u + chunk * 16u; }' + s[b:]
s = re.sub(r'constexpr std::uint32_t kTileBytes = [^;]*;', 'constexpr std::uint32_t kTileBytes = 64 * 160;', s)
open(sys.argv[2], 'w').write(s)
PY
python3 - "$(ls labs/06_ldmatrix/test.cu labs/06_ldmatrix/judge/test.cu 2>/dev/null | head -1)" $w/ref.cu <<'PY'
import sys
src = open(sys.argv[1]).read()
a = src.index('template <int K>\n__device__ __forceinline__ std::uint32_t ref_offset')
b = src.index('// The reference for the graded variant')
open(sys.argv[2], 'w').write(src[a:b])
PY
nvcc -std=c++17 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -Icommon/include -DSOL_FILE="\"$w/sol.cu\"" -DALT_FILE="\"$w/alt.cu\"" \
  -DREF_FILE="\"$w/ref.cu\"" -DPAD_FILE="\"$w/pad.cu\"" bench/experiments/lab06_occupancy/lab06_occupancy.cu -o $w/occ 2>$w/build.log || { cat $w/build.log; exit 1; }
for f in sol alt; do  # the student's build: -fatbin -lineinfo for sm_90 (grader/judge/build.cpp)
  nvcc -std=c++17 -Icommon/include -cubin -lineinfo -gencode arch=compute_90,code=sm_90 -Xptxas -v $w/$f.cu -o $w/$f.cubin 2>&1 | grep Used
  cuobjdump -sass $w/$f.cubin | grep -E '^\s+/\*[0-9a-f]{4}\*/' | sed -E 's@/\*[0-9a-f]+\*/@@; s@ +@ @g' > "$out/lab06_$f.sass"
done
diff "$out/lab06_sol.sass" "$out/lab06_alt.sass" > "$out/lab06_sass.diff"; wc -l "$out"/lab06_*.sass "$out/lab06_sass.diff"
nvidia-smi --query-gpu=name --format=csv,noheader
$w/occ | tee "$out/lab06_occupancy.txt"
