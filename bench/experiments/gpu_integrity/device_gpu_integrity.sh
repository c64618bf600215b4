#!/usr/bin/env bash
# On the GPU machine (issue 21, families 5 and 7; issue 23, the per-GPU lock): build the judge,
# grade the solutions of labs 03, 04 and 06 (all tiers), and run the selftest cases the GPU tier
# judges for those labs (alternatives, the GPU cheats, the known-bad kernels only a GPU test
# sees), four judges at a time so the per-GPU lock is exercised. Logs to $OUT (or ./out):
# summary.txt (one line per case and grade, the timing lines, the lock's waits) and a tarball.
#   bench/experiments/gpu_integrity/device_gpu_integrity.sh [cases|solutions|all|build]   (build: only build the judge, for
#   bench/experiments/gpu_integrity/gpu_lock_flips.sh and bench/experiments/gpu_integrity/gpu_tier_seconds.sh)
set -uo pipefail
part=${1:-all}
out=${OUT:-$PWD/out}; mkdir -p "$out"
src=$(cd "$(dirname "$0")/../../.." && pwd)
T=/tmp/gi/tree; b=$T/build/gpu; J=$b/grader/banklab-judge
t0=$(date +%s)
if [[ ! -x $J ]]; then
  rm -rf /tmp/gi && mkdir -p $T && tar -C "$src" --exclude=./build -cf - . | tar -C $T -xf -
  cmake -S $T -B $b -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 >/tmp/gi/configure.log 2>&1 || { tail -30 /tmp/gi/configure.log; exit 1; }
  cmake --build $b --target banklab_judge -j 16 >/tmp/gi/build.log 2>&1 || { grep -B2 -A8 error /tmp/gi/build.log | head -60; exit 1; }
  chmod -R a+rX /tmp/gi
fi
echo "build: $(( $(date +%s) - t0 )) s"
cd $T
W=/tmp/gi/w; mkdir -p $W && chmod 777 $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "sandbox: $($J sandbox | head -1)"
S=$out/summary.txt; : > $S
if [[ $part == solutions || $part == all ]]; then
  for l in 03_vector_lds 04_padding 06_ldmatrix; do
    n=${l:0:2}
    ( s0=$(date +%s); timeout ${GROUP_LIMIT:-420} $J grade --lab $n --source solutions/$l/kernel.cu --work $W/sol-$n --json $W/sol-$n.json --tier all --graded >$W/sol-$n.log 2>&1
      echo "solution $l: $(tail -1 $W/sol-$n.log) ($(( $(date +%s) - s0 )) s)" >> $S ) &
  done
fi
if [[ $part == cases || $part == all ]]; then
  group() {  # name, then case files
    local g=$1; shift; local args=()
    for f in "$@"; do args+=(--case "$f"); done
    timeout ${GROUP_LIMIT:-420} python3 grader/selftest/run_cases.py --judge $J --gpu --tier all --work $W/cases-$g "${args[@]}" >$W/cases-$g.log 2>&1 || echo "group $g: rc $?" >> $S
    grep -E "^(OK|FAILED|SKIPPED)|passed|failed" $W/cases-$g.log | cut -c1-600 >> $S
  }
  C=grader/selftest/cheats; A=grader/selftest/alternatives; B=grader/selftest/bad
  group 04 $A/04_padding/*.patch $C/conflicted_on_its_modules_first_launch_04.cu \
    $C/skips_work_unless_its_output_is_poisoned_04.cu $C/decoy_launch_before_the_work_04.cu \
    $C/kernel_bypasses_access_functions_04.cu $B/04_padding/unswapped_write_out.patch &
  group 03 $A/03_vector_lds/*.patch $C/conflicted_on_its_modules_first_launch_03.cu \
    $C/kernel_bypasses_access_functions_03.cu $C/partial_warp_loads_hide_a_conflict_03.cu \
    $B/03_vector_lds/a_and_b_swapped.patch &
  group 06 $A/06_ldmatrix/*.patch $B/06_ldmatrix/scalar_loads_instead_of_ldmatrix.patch \
    $B/06_ldmatrix/swizzled_stores_only.patch &
fi
wait
echo "== timing lines (solutions and cases), GPU lock waits" >> $S
grep -rh "\[ TIMING   \]\|\[ GPU LOCK \]" $W --include='*.log' 2>/dev/null | sed 's/^.*\[ /[ /' | sort | uniq -c | sort -rn | cut -c1-400 | head -80 >> $S
echo "== failed messages of the new cases" >> $S
for j in $(find $W -name grade.json -path '*first_launch*' -o -name grade.json -path '*poisoned*' -o -name grade.json -path '*decoy*' -o -name grade.json -path '*scalar_loads*'); do
  echo "-- $j" >> $S
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [print(v['test'], v['status'], v['message'][:700].replace('\n',' | ')) for v in d['verdicts'] if v['status']!='passed']" $j >> $S 2>&1
done
echo "total: $(( $(date +%s) - t0 )) s" >> $S
cat $S
tar czf "$out/gpu-integrity.tgz" -C $W --exclude='*/src' --exclude='*.fatbin' --exclude='probe_*' . 2>/dev/null
ls -la "$out"
