#!/usr/bin/env bash
# On a GPU machine without the bubblewrap package (the H200): build the judge, check that its
# sandbox runs with the carried binary (.carry/bwrap/bwrap) as root and as nobody, grade every
# lab's solution (all tiers) and stub (CPU tier) as root, every solution (CPU tier) as nobody,
# and three cheats of issue 16 as nobody. Logs to $OUT (or ./out).
#   bench/experiments/grader_landing/device_sandbox.sh
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
# A world-readable copy: a judge run as nobody reads its own sources (probe files, headers).
rm -rf /tmp/sbx && mkdir -p /tmp/sbx && cp -r "$(dirname "$0")/../../.." /tmp/sbx/tree && chmod -R a+rX /tmp/sbx
cd /tmp/sbx/tree
b=build/gpu
cmake -S . -B $b -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build $b --target banklab_judge -j 16 >"$out/build.log" 2>&1 || { grep -B2 -A8 error "$out/build.log" | head -60; exit 1; }
chmod -R a+rX /tmp/sbx
J=$PWD/$b/grader/banklab-judge
echo "root:   $($J sandbox)"
echo "nobody: $(runuser -u nobody -- $J sandbox)"
mkdir -p /tmp/sbx/w && chmod 777 /tmp/sbx/w
while read -r n l <&3; do   # the labs, "NN NN_name" a line (python/banklab/lab/labs.py list)
  $J grade --lab $n --source solutions/$l/kernel.cu --work /tmp/sbx/w/sol-$n --json "$out/sol-$n.json" >"$out/sol-$n.log" 2>&1
  echo "root   solution $l: $(tail -1 "$out/sol-$n.log")"; grep -E "FAILED|SKIPPED" "$out/sol-$n.log" | head -5 | sed 's/^/   /'
  $J grade --lab $n --source labs/$l/kernel.cu --work /tmp/sbx/w/stub-$n --json /tmp/sbx/w/stub-$n.json --tier cpu >/tmp/sbx/w/stub-$n.log 2>&1
  echo "root   stub     $l: $(tail -1 /tmp/sbx/w/stub-$n.log)"
  runuser -u nobody -- $J grade --lab $n --source solutions/$l/kernel.cu --work /tmp/sbx/w/nsol-$n --json /tmp/sbx/w/nsol-$n.json --tier cpu >/tmp/sbx/w/nsol-$n.log 2>&1
  echo "nobody solution $l: $(tail -1 /tmp/sbx/w/nsol-$n.log)"
done 3< <(python3 python/banklab_run.py -m banklab.lab.labs list)
runuser -u nobody -- python3 grader/selftest/run_cases.py --judge $J --kind cheat --lab 05 --tier cpu --work /tmp/sbx/w/cases \
  --case grader/selftest/cheats/deep_process_chain_outlives_probe.cu --case solutions/05_swizzle/cases/cheats/probe_copies_course_answers_05.cu \
  --case grader/selftest/cheats/fork_bomb.cu 2>&1 | cut -c1-300
