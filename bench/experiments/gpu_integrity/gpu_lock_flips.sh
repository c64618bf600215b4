#!/usr/bin/env bash
# On the GPU machine, after bench/experiments/gpu_integrity/device_gpu_integrity.sh built the judge (issue 23, item 2):
# lab 04 kernels just above the timing target's line, judged one at a time and sixteen at a
# time, with the per-GPU lock and without it. A kernel's distance from the line is set by the
# share P (percent) of its blocks that read an unpadded tile (32-way conflicted column reads);
# the rest is the solution. The P whose ratio lies nearest 1.05 and nearest 1.15 are chosen from
# a short sweep, then the timing test runs N times at -j 1, 16 at once with the lock, and 16 at
# once without it (each judge given a lock folder of its own). Prints the ratios and verdicts.
#   bench/experiments/gpu_integrity/gpu_lock_flips.sh [P...]     (default: 25 40 55 70 85)
set -uo pipefail
T=/tmp/gi/tree; J=$T/build/gpu/grader/banklab-judge
[[ -x $J ]] || { echo "build the judge first (bench/experiments/gpu_integrity/device_gpu_integrity.sh)"; exit 1; }
cd $T
W=/tmp/gi/flips; rm -rf $W; mkdir -p $W && chmod 777 $W
TEST=Lab04OnGpu.TransposeMeetsTheKernelTimingTarget
ps=("$@"); [[ ${#ps[@]} -gt 0 ]] || ps=(25 40 55 70 85)
for p in "${ps[@]}"; do
  python3 bench/near_line_kernel.py $p > $W/k$p.cu || exit 1
  $J build --lab 04 --source $W/k$p.cu --work $W/w$p >$W/build$p.log 2>&1 &
done
wait
# one run: prints "ratio verdict"
one() {  # P, results dir, [lock dir]
  local p=$1 r=$2; mkdir -p $r
  local out; out=$(BANKLAB_GPU_LOCK_DIR=${3:-} $J test --lab 04 --work $W/w$p --test $TEST --results $r 2>&1)
  local ratio; ratio=$(grep -o "interleaved): [0-9.]*x" <<<"$out" | grep -o "[0-9.]*x$" | head -1)
  echo "${ratio:-?} $(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['status'])" $r/lab04/$TEST.json 2>/dev/null || echo none)"
}
declare -A ratio
for p in "${ps[@]}"; do
  rs=$(for i in 1 2 3; do one $p $W/sweep-$p-$i | cut -d' ' -f1; done | tr -d x | sort -n | tr '\n' ' ')
  ratio[$p]=$(echo $rs | cut -d' ' -f2)
  echo "sweep P=$p%: ratios $rs-> median ${ratio[$p]}"
done
pick() {  # the P whose median ratio lies nearest $1
  for p in "${ps[@]}"; do echo "$(python3 -c "print(abs(${ratio[$p]:-9} - $1))") $p"; done | sort -n | head -1 | cut -d' ' -f2
}
for target in 1.05 1.15; do
  p=$(pick $target)
  echo "== near ${target}x: P=$p% (median ${ratio[$p]}x)"
  s=$(for i in $(seq 1 ${SEQ_RUNS:-8}); do one $p $W/seq-$p-$i; done | sort | uniq -c | tr '\n' ';')
  echo "  -j 1:             $s"
  s=$(for i in $(seq 1 16); do one $p $W/lock-$p-$i & done | sort | uniq -c | tr '\n' ';'; wait)
  echo "  -j 16, lock:      $s"
  s=$(for i in $(seq 1 16); do one $p $W/nolock-$p-$i $W/nolock-dir-$p-$i & done | sort | uniq -c | tr '\n' ';'; wait)
  echo "  -j 16, no lock:   $s"
done
