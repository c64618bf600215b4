#!/usr/bin/env bash
# One device call (issue 47, every variant): each variant's solved file and stub of every lab
# (bench/variants_gpu_table.py renders them), graded on the H200 (--graded: a GPU test that cannot
# run fails) and on the emulator (BANKLAB_EMULATE=1, the judge's emulated twin) by the same judge,
# then compared test by test (emu/bench/emu_grades_compare.py: every GPU test but timing the same
# status, the traced test the same message).
#   run: bash emu/bench/emu_variants_device.sh [LAB...]   (default every lab; writes $OUT/emu_variants.tgz)
#   Env: JOBS (GPU grades at once, default 10), EMU_JOBS (default 16).
# Builds in /tmp/judge-emu-tier, as emu_tier_vs_gpu_device.sh does (kept while the machine is warm).
set -u
OUT=${OUT:-/tmp/out}
out=/tmp/emu-variants; rm -rf "$out"; mkdir -p "$out" "$OUT"
t0=$(date +%s)
source bench/lib/build_judge.sh
build_judge_and_cli /tmp/judge-emu-tier || exit 1
[[ -x ${J}-emu || ${DRY_RUN:-} == 1 ]] || { echo "no emulated twin beside $J"; exit 1; }
labs=("$@"); [[ ${#labs[@]} == 0 ]] && labs=(00 01 02 03 04 05 06 07)
echo "built in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)" | tee "$out/summary.txt"
python3 bench/variants_gpu_table.py --judge "$J" --out "$out/gpu" --jobs "${JOBS:-10}" --graded "${labs[@]}" > "$out/gpu.txt" 2>&1; rc=$?
echo "gpu graded at $(( $(date +%s) - t0 )) s (exit $rc)" | tee -a "$out/summary.txt"
BANKLAB_EMULATE=1 python3 bench/variants_gpu_table.py --judge "$J" --out "$out/emu" --jobs "${EMU_JOBS:-16}" "${labs[@]}" > "$out/emu.txt" 2>&1; rc=$?
echo "emulator graded at $(( $(date +%s) - t0 )) s (exit $rc)" | tee -a "$out/summary.txt"
python3 emu/bench/emu_grades_compare.py "$out/gpu/grades" "$out/emu/grades" > "$out/compare.txt"; rc=$?
echo "compared (exit $rc): $(tail -n 1 "$out/compare.txt")" | tee -a "$out/summary.txt"
grep DIFFERENT "$out/compare.txt" | head -20
rm -rf "$out"/gpu/work "$out"/emu/work
tar -C /tmp -czf "$OUT/emu_variants.tgz" emu-variants
