#!/usr/bin/env bash
# Issue 44's copy table on the GPU machine, every tier: bench/variant_copies.py --tier all --graded
# (variant i's solved file graded as variant j, against j's stub and j's own solved file), built
# here (build/copies, kept while the machine is warm), then issue 45's printf check
# (bench/device_printf_clean.sh) with the same judge.
#   bash bench/device_copies.sh [--pairs all|cyclic] LAB...       (env JOBS, default 8)
# Writes $OUT/copies/copies.txt (+ .json), $OUT/printf_clean.txt, $OUT/summary.txt and, as one
# archive, $OUT/copies_work.tgz (each grade's JSON and log). Exit: variant_copies.py's (0 no copy over
# the target, 1 one over, 2 a grade with no verdict), or the printf check's failure.
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
t0=$(date +%s)
B=$PWD/build/copies
source bench/lib/build_judge.sh; build_judge "$B" || exit 1
cmake --build "$B" --target banklab -j "$(nproc)" >> "$out/build.log" 2>&1 || { tail -n 30 "$out/build.log"; exit 1; }
export BANKLAB_CLI=$B/tools/banklab
S=$out/summary.txt
echo "judge ready in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU'), $(nproc) CPUs, tree $(git rev-parse --short HEAD 2>/dev/null)" | tee "$S"
python3 bench/variant_copies.py --judge "$J" --out "$out/copies" --tier all --graded --jobs "${JOBS:-8}" "$@" > "$out/copies.log" 2>&1
rc=$?
tail -n 3 "$out/copies.log" | tee -a "$S"
echo "copies in $(( $(date +%s) - t0 )) s (exit $rc)" | tee -a "$S"
JUDGE=$J OUT=$out bash bench/device_printf_clean.sh > /dev/null 2>&1; prc=$?
echo "printf check: exit $prc ($(tail -n 1 "$out/printf_clean.txt" 2>/dev/null))" | tee -a "$S"
tar czf "$out/copies_work.tgz" -C "$out/copies" work 2>/dev/null && rm -rf "$out/copies/work"
echo "all in $(( $(date +%s) - t0 )) s" | tee -a "$S"
[[ $prc -eq 0 ]] || exit 1
exit $rc
