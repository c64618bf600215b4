#!/usr/bin/env bash
# Issue 33's table on the GPU machine: each lab's seconds a submission per GPU at -j 1/4/8/16, on
# one GPU and on two where the machine has two (rows for 2 GPUs are skipped, and say so, on one),
# every verdict against the lab's -j 1 run, and a course of 200 students x 8 labs from them.
#   bash bench/device_throughput_table.sh [LAB...]     (default: 00 01 02; all eight do not fit in
#                                                       one 9-minute call: 00 01 02 | 03 04 05 | 06 07)
#   Env: N (default 4 submissions a lab), SCOPES (default "default"; e.g. "default timed-kernels"
#   for both, interleaved at each -j), JOBS (default "1 4 8 16"), GPUS (default "1 2"), BUDGET_S
#   (default 510: no run starts past it, the build included).
# Builds the judge in build/lockscope (shared with bench/experiments/lock_scope/device_lock_scope.sh, kept while the machine
# is warm). Writes $OUT/table/gpu_throughput.txt (+ .json) and $OUT/summary.txt.
# DRY_RUN=1: no build, no GPU (instructor/batch/tests/fake_judge.py): checks the script here.
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
t0=$(date +%s)
B=$PWD/build/lockscope
dry=(); [[ ${DRY_RUN:-} == 1 ]] && dry=(--dry-run)   # no GPU: the judge's test double (checks this script)
source bench/lib/build_judge.sh; build_judge "$B" || exit 1
S=$out/summary.txt
echo "built the judge in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nvidia-smi -L | wc -l) GPU(s), $(nproc) CPUs, tree $(git rev-parse --short HEAD 2>/dev/null)" | tee "$S"
labs=("$@"); [[ ${#labs[@]} -eq 0 ]] && labs=(00 01 02)
unset BANKLAB_GPU_LOCK_SCOPE
# shellcheck disable=SC2086
python3 bench/gpu_throughput.py "${dry[@]}" --judge "$J" --labs "${labs[@]}" -n "${N:-4}" --jobs ${JOBS:-1 4 8 16} \
  --gpus ${GPUS:-1 2} --scopes ${SCOPES:-default} --flips 0 \
  --budget $(( ${BUDGET_S:-510} - ($(date +%s) - t0) )) --out "$out/table"
cat "$out/table/gpu_throughput.txt" >> "$S"
echo "all in $(( $(date +%s) - t0 )) s" | tee -a "$S"
