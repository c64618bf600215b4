#!/usr/bin/env bash
# Issue 35 on the GPU machine: every variant's solved file passes and its stub fails the GPU tier.
#   bash bench/device_variants_gpu.sh [LAB...]        (default: every lab with variants; 00-05, 5 variants
#                                                     each: 60 grades)
#   Env: JOBS (grades at once, default 8), TIER (default gpu), JUDGE (an existing banklab-judge: no build;
#   then the model's `banklab` is looked for as banklab.lab.variants does, or $BANKLAB_CLI).
# Builds banklab-judge and the model's `banklab` command (it renders a variant's solved file) in
# build/variants (kept while the machine is warm), then bench/variants_gpu_table.py grades each file
# as its variant (--variant K, --graded: a missing GPU fails). Writes $OUT/variants_gpu.txt (+ .json),
# $OUT/summary.txt and each grade's JSON and log under $OUT/grades/. Exit: 0 all as expected, 1 a row
# against the expectation, 2 something not judged (e.g. no GPU: that is how it runs on a machine without one).
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
t0=$(date +%s)
graded=(--graded)
if [[ -n ${JUDGE:-} ]]; then
  J=$JUDGE; graded=()                                   # a check of the script where there is no GPU
else
  source bench/lib/build_judge.sh; build_judge_and_cli "$PWD/build/variants" || exit 1
fi
S=$out/summary.txt
echo "judge ready in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU'), $(nproc) CPUs, tree $(git rev-parse --short HEAD 2>/dev/null)" | tee "$S"
python3 bench/variants_gpu_table.py --judge "$J" --out "$out" --tier "${TIER:-gpu}" --jobs "${JOBS:-8}" "${graded[@]}" "$@" | tee -a "$S"
rc=${PIPESTATUS[0]}
echo "all in $(( $(date +%s) - t0 )) s (exit $rc)" | tee -a "$S"
exit $rc
