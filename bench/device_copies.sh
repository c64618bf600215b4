#!/usr/bin/env bash
# Issue 44's copy table on the GPU machine, every tier: bench/variant_copies.py --tier all --graded
# (variant i's solved file graded as variant j, against j's stub and j's own solved file), built
# here (build/copies, kept while the machine is warm), then issue 45's printf check
# (bench/device_printf_clean.sh) with the same judge.
#   bash bench/device_copies.sh [--pairs all|cyclic] LAB...       (env JOBS, default 8; JUDGE: no build)
# Writes $OUT/copies_LAB.txt (+ .json, .log) per lab as it is done, $OUT/printf_clean.txt,
# $OUT/summary.txt and, as one archive, $OUT/copies_work.tgz (each grade's JSON and log). Exit: variant_copies.py's (0 no copy over
# the target, 1 one over, 2 a grade with no verdict), or the printf check's failure.
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
t0=$(date +%s)
if [[ -n ${JUDGE:-} ]]; then
  J=$JUDGE   # a check of the script (no build; BANKLAB_CLI as banklab.lab.variants finds it)
else
  source bench/lib/build_judge.sh; build_judge_and_cli "$PWD/build/copies" || exit 1
fi
S=$out/summary.txt
echo "judge ready in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU'), $(nproc) CPUs, tree $(git rev-parse --short HEAD 2>/dev/null)" | tee "$S"
JUDGE=$J OUT=$out bash bench/device_printf_clean.sh > /dev/null 2>&1; prc=$?
echo "printf check: exit $prc ($(tail -n 1 "$out/printf_clean.txt" 2>/dev/null))" | tee -a "$S"
# One lab at a time, each table written as soon as it is made (a run cut short keeps the labs done);
# the grades' work folders stay outside $OUT until the end (one archive).
pairs=(); [[ ${1:-} == --pairs ]] && { pairs=(--pairs "$2"); shift 2; }
W=$(mktemp -d); rc=0
for lab in "$@"; do
  python3 bench/variant_copies.py --judge "$J" --out "$W/$lab" --tier all --graded --jobs "${JOBS:-8}" "${pairs[@]}" "$lab" \
    > "$out/copies_$lab.log" 2>&1
  r=$?; (( r > rc )) && rc=$r
  cp "$W/$lab/copies.txt" "$out/copies_$lab.txt" 2>/dev/null; cp "$W/$lab/copies.json" "$out/copies_$lab.json" 2>/dev/null
  echo "lab $lab: $(tail -n 1 "$out/copies_$lab.log") (exit $r, at $(( $(date +%s) - t0 )) s)" | tee -a "$S"
done
tar czf "$out/copies_work.tgz" -C "$W" . 2>/dev/null
echo "all in $(( $(date +%s) - t0 )) s" | tee -a "$S"
[[ $prc -eq 0 ]] || exit 1
exit $rc
