#!/usr/bin/env bash
# On the GPU machine, after bench/experiments/gpu_integrity/device_gpu_integrity.sh built the judge (issue 23, item 3):
# seconds per submission of a lab, all tiers, graded, when N judges grade at once on one GPU
# (the per-GPU lock serialises their timed and traced tests). N copies of the lab's solution
# start together; the figure is the batch's wall time / N.
#   bench/experiments/gpu_integrity/gpu_tier_seconds.sh [LAB_FOLDER [N...]]     (default: 04_padding 1 4 16)
set -uo pipefail
T=/tmp/gi/tree; J=$T/build/gpu/grader/banklab-judge
[[ -x $J ]] || { echo "build the judge first (bench/experiments/gpu_integrity/device_gpu_integrity.sh)"; exit 1; }
cd $T
l=${1:-04_padding}; shift || true
ns=("$@"); [[ ${#ns[@]} -gt 0 ]] || ns=(1 4 16)
n=${l:0:2}
for j in "${ns[@]}"; do
  W=/tmp/gi/secs-$n-$j; rm -rf $W; mkdir -p $W && chmod 777 $W
  t0=$(date +%s.%N)
  for i in $(seq 1 $j); do
    $J grade --lab $n --source solutions/$l/kernel.cu --work $W/s$i --json $W/s$i.json --tier all --graded >$W/s$i.log 2>&1 &
  done
  wait
  t1=$(date +%s.%N)
  ok=$(python3 -c "import json,glob,sys; print(sum(any(v['status'] != 'passed' for v in json.load(open(f))['verdicts']) for f in glob.glob(sys.argv[1] + '/s*.json')))" $W)
  python3 -c "import sys; w=float(sys.argv[2])-float(sys.argv[1]); j=int(sys.argv[3]); print(f'lab {sys.argv[4]} -j {j}: {w:.1f} s for {j} submissions, {w/j:.1f} s per submission; grades with a failed test: {sys.argv[5]}')" $t0 $t1 $j $n $ok
done
