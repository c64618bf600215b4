#!/usr/bin/env bash
# Performance of the solutions and stubs on the GPU at hand, in one run: builds the judge, grades
# every lab's solution and stub with BANKLAB_PERF=1 (cycles per warp instruction of each replayed
# access, full-size 16384 x 16384 transposes against a tiled copy, whole-kernel timings against the
# grader's reference kernels), and writes a table.
#
#   bench/gpu_perf.sh [OUT.md]        default: docs/perf/gpu_perf.md
#
# Targets: every solution's access at most 1.05 cycles per warp instruction per minimum wavefront;
# the lab 04/05 solution transposes at >= 85 % of the copy's bandwidth.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/docs/perf/gpu_perf.md}
logs=$(mktemp -d)
b=$root/build/perf
cmake -S "$root" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$logs/cmake.log" 2>&1 || { cat "$logs/cmake.log"; exit 1; }
cmake --build "$b" --target banklab_judge banklab -j "$(nproc)" >"$logs/build.log" 2>&1 || { tail -50 "$logs/build.log"; exit 1; }
judge=$b/grader/banklab-judge

for grade in solutions labs; do
  # the labs: banklab.lab.labs list, one "NN NN_name" line each (python/banklab/lab/labs.py)
  while read -r n folder <&3; do
    work=$b/perf-$grade-$n
    echo "== $grade lab$n"
    BANKLAB_PERF=1 "$judge" grade --lab "$n" --source "$root/$grade/$folder/kernel.cu" --work "$work" \
      --json "$logs/$grade-$n.json" --tier gpu </dev/null >"$logs/$grade-grade_lab$n.summary" 2>&1
    # one log per lab: every test's output, then its verdict as a "[ OK/FAILED/SKIPPED ]" line
    for f in "$work"/logs/*.log; do cat "$f"; done >"$logs/$grade-grade_lab$n.log"
    python3 - "$logs/$grade-$n.json" >>"$logs/$grade-grade_lab$n.log" <<'PY'
import json, sys
tag = {"passed": "OK", "failed": "FAILED", "skipped": "SKIPPED"}
for v in json.load(open(sys.argv[1]))["verdicts"]:
    print(f"[ {tag[v['status']]:>8} ] {v['test']} (judge)")
PY
    grep -E '^\[ (TIMING|CYCLES|BANDWIDTH)|^\[ +(OK|FAILED|SKIPPED) +\] Lab' "$logs/$grade-grade_lab$n.log" | head -40
  done 3< <(python3 "$root/python/banklab_run.py" -m banklab.lab.labs list "$root")
done

python3 "$root/bench/perf_table.py" "$logs" >"$out"
cat "$out"
[[ -n "${OUT:-}" ]] && cp -r "$logs" "$OUT/perf-logs" 2>/dev/null
echo "table written to $out; logs in $logs"
