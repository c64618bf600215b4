#!/usr/bin/env bash
# Edit -> verdict: how long a student waits after editing labs/05_swizzle/kernel.cu until
# `ctest -L lab05` has judged the CPU tier, in a configured build (the judge is compiled once;
# only the student's file is recompiled), and how much of it is the lab's build step
# (labNN.build: the sandboxed compiles and the probe) as ctest timed it, paired with a bare
# `nvcc -c` of the same kernel.cu (one after each loop, for the build's first architecture): the
# target is a verdict no later than that compile, on the same machine (issue 32).
#   bench/edit_to_verdict.sh [runs] [lab folder]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
folder=${2:-05_swizzle}
n=${folder%%_*}   # its lab number: labs/NN_name (no tool of the instructor's kit, wherever it lives)
[[ $n =~ ^[0-9][0-9]$ && -f labs/$folder/kernel.cu ]] || { echo "edit_to_verdict: $folder is not a lab (labs/NN_name/kernel.cu)"; exit 2; }
src=labs/$folder/kernel.cu
[[ -f build/dev/CTestTestfile.cmake ]] || cmake --preset dev >/dev/null
cmake --build build/dev --target "banklab_judge_lab$n" banklab >/dev/null
backup=$(mktemp)
log=$(mktemp)
cp "$src" "$backup"
arch=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:STRING=//p' build/dev/CMakeCache.txt); arch=${arch%%;*}; arch=${arch%%-*}
nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' build/dev/CMakeCache.txt)
obj=$(mktemp)
trap 'cp "$backup" "$src"; rm -f "$backup" "$log" "$obj"' EXIT
loop=() build=() bare=()
for ((i = 0; i < runs; ++i)); do
  cp "$backup" "$src"
  echo "// edit $i $RANDOM" >>"$src"  # a real change: the build stamp is the file's content
  t0=$(date +%s.%N)
  ctest --test-dir build/dev -L "^lab$n\$" -LE gpu >"$log" 2>&1 || true  # the stub fails tests: that is a verdict
  t1=$(date +%s.%N)
  loop+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')")
  # ctest's own line for the build step: "1/18 Test #119: lab05.build ....   Passed    2.61 sec"
  b=$(awk -v t="lab$n.build" '$0 ~ "Test +#[0-9]+: " t " " {for (k = 1; k <= NF; ++k) if ($k == "sec") print $(k - 1)}' "$log")
  [[ -n $b ]] || { echo "edit_to_verdict: no lab$n.build line in ctest's output:"; tail -5 "$log"; exit 1; }
  build+=("$b")
  t0=$(date +%s.%N)
  CCACHE_DISABLE=1 "$nvcc" -c -arch="sm_${arch:-90}" -std=c++17 -Icommon/include "$src" -o "$obj" 2>/dev/null  # its warnings
  bare+=("$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.3f", b - a}')")
done
med() { sort -n | awk '{a[NR] = $1} END {printf "median %.2f s, min %.2f s, max %.2f s", a[int((NR + 1) / 2)], a[1], a[NR]}'; }
echo "edit -> ctest -L lab$n (CPU tier) over $runs runs: $(printf '%s\n' "${loop[@]}" | med)"
echo "  of it lab$n.build (ctest's time):      $(printf '%s\n' "${build[@]}" | med)"
echo "  the rest (other tests, ctest itself):  $(paste -d' ' <(printf '%s\n' "${loop[@]}") <(printf '%s\n' "${build[@]}") | awk '{print $1 - $2}' | med)"
echo "bare nvcc -c -arch=sm_${arch:-90} of $src:   $(printf '%s\n' "${bare[@]}" | med)"
echo "  load: $(uptime | sed 's/.*load average/load average/')"
