#!/usr/bin/env bash
# Edit -> verdict: how long a student waits after editing labs/05_swizzle/kernel.cu until
# `ctest -L lab05` has judged the CPU tier, in a configured build (the judge is compiled once;
# only the student's file is recompiled). The target is 3 s on a 2-core machine.
#   bench/edit_to_verdict.sh [runs] [lab folder]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
folder=${2:-05_swizzle}
n=$(python3 tools/labs-check --list | awk -v f="$folder" '$2 == f {print $1}')   # its lab number
[[ -n $n ]] || { echo "edit_to_verdict: $folder is not a lab (tools/labs-check --list)"; exit 2; }
src=labs/$folder/kernel.cu
[[ -f build/dev/CTestTestfile.cmake ]] || cmake --preset dev >/dev/null
cmake --build build/dev --target banklab_judge banklab >/dev/null
backup=$(mktemp)
cp "$src" "$backup"
trap 'cp "$backup" "$src"; rm -f "$backup"' EXIT
times=()
for ((i = 0; i < runs; ++i)); do
  cp "$backup" "$src"
  echo "// edit $i $RANDOM" >>"$src"  # a real change: the build stamp is the file's content
  t0=$(date +%s.%N)
  ctest --test-dir build/dev -L "lab$n" -LE gpu >/dev/null 2>&1 || true  # the stub fails tests: that is a verdict
  t1=$(date +%s.%N)
  times+=("$(echo "$t1 - $t0" | bc)")
done
printf '%s\n' "${times[@]}" | sort -n | awk -v lab="$n" '{a[NR]=$1} END {printf "edit -> ctest -L lab%s (CPU tier) over %d runs: median %.2f s, min %.2f s, max %.2f s\n", lab, NR, a[int((NR+1)/2)], a[1], a[NR]}'
