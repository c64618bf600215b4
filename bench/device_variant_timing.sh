#!/usr/bin/env bash
# Issue 44's timing targets at the border, on the GPU machine (one H200: about 200 s): every
# variant's solved file of labs 00-06 and the known-bad timing cases of labs 04 and 06, each timing
# test run REPS times by the judge (interleaved with its reference, median of 31 runs each), against
# its target: bench/variant_timing.py. Builds banklab-judge and the model's `banklab` in
# build/timing (kept while the machine is warm).
#   bash bench/device_variant_timing.sh [LAB...]        (default: 04 06 00 01 02 03 05)
#   Env: REPS (runs of each test of labs 04 and 06, default 4), REPS_OTHERS (of the other labs',
#   default 1), BAD_LAST=1 (the known-bad cases as the last variant too), JOBS (builds at once,
#   default 12), TESTS (kernel: the kernel timing targets, the default; all: the instructions'
#   too), BUDGET (seconds of timing after which no file starts, default 110), ALT_GPU=0 (skip the GPU
#   tier of lab 06's alternative other_xor_key_for_every_row as variant 2, run after the timing),
#   JUDGE (an existing banklab-judge: no build, a check of the script where there is no GPU).
# Writes $OUT/variant_timing.tgz (variant_timing.txt, the table; variant_timing.json, every run's
# ratio; logs/, each build's and run's output; src/, the files timed; alt_gpu.txt) and prints the table.
# Exit: variant_timing.py's (0 as expected, 1 a solved file over its target or lab 06's scalar
# loads within it, 2 nothing timed).
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
t0=$(date +%s)
if [[ -n ${JUDGE:-} ]]; then
  J=$JUDGE
else
  source bench/lib/build_judge.sh; build_judge_and_cli "$PWD/build/timing" || exit 1
fi
echo "judge ready in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU'), $(nproc) CPUs, tree $(git rev-parse --short HEAD 2>/dev/null)"
W=$(mktemp -d)
python3 bench/variant_timing.py --judge "$J" --out "$W" --reps "${REPS:-4}" --reps-others "${REPS_OTHERS:-1}" ${BAD_LAST:+--bad-last} --jobs "${JOBS:-12}" \
  --tests "${TESTS:-kernel}" --budget "${BUDGET:-110}" "$@"
rc=$?
# The GPU tier (the traced launch against the declared layout included) of lab 06's alternative for
# every row length, as variant 2 (192-byte rows), where no other alternative of the lab is valid.
if [[ ${ALT_GPU:-1} == 1 ]]; then
  python3 grader/selftest/run_cases.py --judge "$J" --case solutions/06_ldmatrix/cases/alternatives/other_xor_key_for_every_row.patch \
    --lab 06 --variant 2 --tier gpu --graded --gpu --work "$W/alt_gpu" > "$W/alt_gpu.txt" 2>&1
  arc=$?; tail -n 3 "$W/alt_gpu.txt"; (( arc != 0 && rc == 0 )) && rc=1
fi
tar czf "$out/variant_timing.tgz" -C "$W" variant_timing.txt variant_timing.json logs src alt_gpu.txt 2>/dev/null
echo "all in $(( $(date +%s) - t0 )) s (exit $rc); $out/variant_timing.tgz"
exit $rc
