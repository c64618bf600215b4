#!/usr/bin/env bash
# Issue 33 on the GPU machine: the GPU lock's scope `timed-kernels` (exclusive only around each
# interleaved timed pair, shared for all other GPU work; grader/gpu/gpu_lock.hpp, docs/dev/GRADER.md)
# against the default, one command:
#   bash bench/experiments/lock_scope/device_lock_scope.sh [all|class|flips]
#     class: lab 05 classes of N=8 (LABS="05 04" for lab 04 too) graded --tier all --graded at -j 8
#            with the default scope and timed-kernels interleaved (ROUNDS=2: A B B A), then at
#            -j 1 (default scope; last, so that a short budget loses it rather than the pair);
#            seconds a submission, every verdict against the first run (a -j 1 row that DIFFERs
#            names a verdict that moved under -j 8).
#     flips: lab 04's near-line kernels (1.09x, 1.17x) 16 at once beside 4 whole GPU-tier grades,
#            under timed-kernels (FLIP_SCOPE to change), each verdict against the kernel alone.
#   Env: BUDGET_S (default 510: no run starts past it; build included), N, LABS, ROUNDS, FLIP_SCOPE, FLIP_SHARES,
#   LOCK_WAITS=1 (count the judges' lock waits of a second or more: grade-class --keep-work, whose
#   copying adds to every scope's wall time alike).
# Builds the judge in build/lockscope (kept between calls while the machine is warm). Writes
# $OUT/class/gpu_throughput.txt, $OUT/flips/gpu_throughput.txt (+ .json), $OUT/summary.txt.
# DRY_RUN=1: no build, no GPU (instructor/batch/tests/fake_judge.py): checks the script here.
# Needs: nvcc, cmake, Ninja, GoogleTest, CLI11 (.carry/cli11), bubblewrap (.carry/bwrap/bwrap).
set -uo pipefail
part=${1:-all}
out=${OUT:-$PWD/out}; mkdir -p "$out"
t0=$(date +%s)
B=$PWD/build/lockscope
dry=(); [[ ${DRY_RUN:-} == 1 ]] && dry=(--dry-run)   # no GPU: the judge's test double (checks this script)
source bench/lib/build_judge.sh; build_judge "$B" || exit 1
S=$out/summary.txt
{ echo "built the judge in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nvidia-smi -L | wc -l) GPU(s), $(nproc) CPUs, tree $(git rev-parse --short HEAD 2>/dev/null)"
  if [[ ${DRY_RUN:-} != 1 ]]; then "$J" sandbox | head -1 | cut -c1-160; fi; } | tee "$S"
left() { echo $(( ${BUDGET_S:-510} - ($(date +%s) - t0) - ${1:-0} )); }
unset BANKLAB_GPU_LOCK_SCOPE
if [[ $part == class || $part == all ]]; then
  reserve=0; [[ $part == all ]] && reserve=200     # the flips' share of the budget
  python3 bench/gpu_throughput.py "${dry[@]}" --judge "$J" --labs ${LABS:-05} -n "${N:-8}" --jobs 8 1 --gpus 1 \
    --scopes timed-run default --rounds "${ROUNDS:-1}" --flips 0 --budget "$(left $reserve)" --out "$out/class" \
    ${LOCK_WAITS:+--lock-waits}
  cat "$out/class/gpu_throughput.txt" >> "$S"
fi
if [[ $part == flips || $part == all ]]; then
  BANKLAB_GPU_LOCK_SCOPE=${FLIP_SCOPE:-timed-kernels} python3 bench/gpu_throughput.py "${dry[@]}" --judge "$J" --no-class \
    --flips 16 --flip-company 4 --flip-shares ${FLIP_SHARES:-25 40} --budget "$(left 90)" --out "$out/flips"
  cat "$out/flips/gpu_throughput.txt" >> "$S"
fi
echo "all in $(( $(date +%s) - t0 )) s" | tee -a "$S"
