#!/usr/bin/env bash
# Performance of the solutions and stubs on the GPU at hand, in one run: builds the grader against
# solutions/ and labs/, runs every GPU test with BANKLAB_PERF=1 (cycles per warp instruction of
# each access, full-size 16384 x 16384 transposes against a tiled copy), and writes a table.
#
#   bench/gpu_perf.sh [OUT.md]        default: docs/perf/gpu_perf.md
#
# Targets (issue "GPU tier"): every solution's access at most 1.05 cycles per warp instruction per
# minimum wavefront; the lab 04/05 solution transposes at >= 85 % of the copy's bandwidth.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/docs/perf/gpu_perf.md}
jobs=$(nproc)
logs=$(mktemp -d)

for grade in solutions labs; do
  b=$root/build/perf-$grade
  cmake -S "$root" -B "$b" -G Ninja -DBANKLAB_GRADE=$grade -DCMAKE_BUILD_TYPE=Release >"$logs/cmake-$grade.log" 2>&1 \
    || { cat "$logs/cmake-$grade.log"; exit 1; }
  cmake --build "$b" --target selftest_targets -j "$jobs" >"$logs/build-$grade.log" 2>&1 \
    || { tail -50 "$logs/build-$grade.log"; exit 1; }
  for exe in "$b"/grader/grade_lab??; do
    lab=$(basename "$exe")
    echo "== $grade $lab"
    BANKLAB_PERF=1 timeout 600 "$exe" --gtest_filter='*OnGpu.*' --gtest_color=no >"$logs/$grade-$lab.log" 2>&1
    echo "exit $?" >>"$logs/$grade-$lab.log"
    grep -E '^\[ (TIMING|CYCLES|BANDWIDTH)|^\[ +(OK|FAILED|SKIPPED) +\] Lab' "$logs/$grade-$lab.log" | grep -v ' listed below' | head -40
  done
done

python3 "$root/bench/perf_table.py" "$logs" >"$out"
cat "$out"
[[ -n "${OUT:-}" ]] && cp -r "$logs" "$OUT/perf-logs" 2>/dev/null
echo "table written to $out; logs in $logs"
