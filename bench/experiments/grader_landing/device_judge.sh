#!/usr/bin/env bash
# On a GPU machine: build the judge, then grade every lab's solution and stub (all tiers) and
# print each verdict that is not what it must be. Logs and grade files go to $OUT (or ./out).
#   bench/experiments/grader_landing/device_judge.sh [build-dir]
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-out}; mkdir -p "$out"
b=${1:-build/devjudge}
cmake -S . -B "$b" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$b" --target banklab_judge banklab -j 16 >"$out/build.log" 2>&1 || { grep -B2 -A8 error "$out/build.log" | head -60; exit 1; }
J=$b/grader/banklab-judge
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for dir in solutions labs; do
  while read -r n l <&3; do   # the labs, "NN NN_name" a line (python/banklab/lab/labs.py list)
    $J grade --lab "$n" --source "$dir/$l/kernel.cu" --work "/tmp/judge-$dir-$n" --json "$out/$dir-$n.json" >"$out/$dir-$n.log" 2>&1
    echo "== $dir $l: $(tail -1 "$out/$dir-$n.log")"
    grep -E "FAILED|SKIPPED" "$out/$dir-$n.log" | sed 's/^/   /'
  done 3< <(python3 python/banklab_run.py -m banklab.lab.labs list)
done
