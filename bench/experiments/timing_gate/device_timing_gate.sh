#!/usr/bin/env bash
# Issue 33, the near-line flips: is the host's scheduling in the timed region what moves a verdict
# near the line when many judges run at once? The timed runs are queued behind a launch gate
# (grader/gpu/timing.cuh: a kernel that holds the GPU until the host has queued the start event,
# the timed launches and the stop event); BANKLAB_TIMING_GATE=0 turns it off for this measurement.
#   git apply bench/experiments/timing_gate/launch_gate.patch && bash bench/experiments/timing_gate/device_timing_gate.sh [SHARES...]
#   (default 12 10: lab 04's near-line kernels, P %)
# 1. lab 05's solution and stub, GPU tier, gate on and off: wall seconds and every verdict;
# 2. the flips of bench/gpu_throughput.py (16 at once + 4 whole GPU-tier grades, default lock
#    scope unless FLIP_SCOPE), gate off then on, on the same warm machine.
# Env: BUDGET_S (default 540). Writes $OUT/summary.txt, $OUT/flips-gate{0,1}/, $OUT/lab05-*.json.
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"; t0=$(date +%s)
B=$PWD/build/lockscope
source bench/lib/build_judge.sh; build_judge "$B" || exit 1
S=$out/summary.txt
echo "built the judge in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) CPUs" | tee "$S"
left() { echo $(( ${BUDGET_S:-540} - ($(date +%s) - t0) - ${1:-0} )); }
for g in 1 0; do for k in solutions labs; do
  s=$(date +%s.%N)
  BANKLAB_TIMING_GATE=$g "$J" grade --lab 05 --source $k/05_swizzle/kernel.cu --work "$B/w-$k-$g" --json "$out/lab05-$k-gate$g.json" \
    --tier gpu --graded > "$out/lab05-$k-gate$g.log" 2>&1
  python3 - "$out/lab05-$k-gate$g.json" "$k gate=$g" "$s" <<'PY' | tee -a "$S"
import json, sys, time
v = json.load(open(sys.argv[1]))["verdicts"]
print(f"lab 05 {sys.argv[2]}: {time.time() - float(sys.argv[3]):.1f} s; " + ", ".join(f"{x['test'].split('.')[-1]}={x['status']}" for x in v))
for x in v:
    if "TIMING" in x.get("message", "") or "ms, the grader" in x.get("message", ""):
        print("   ", x["message"].splitlines()[0][:220])
PY
done; done
shares=("$@"); [[ ${#shares[@]} -eq 0 ]] && shares=(12 10)
unset BANKLAB_GPU_LOCK_SCOPE
[[ -n ${FLIP_SCOPE:-} ]] && export BANKLAB_GPU_LOCK_SCOPE=$FLIP_SCOPE
for g in 0 1; do
  BANKLAB_TIMING_GATE=$g python3 bench/gpu_throughput.py --judge "$J" --no-class --flips 16 --flip-company 4 \
    --flip-shares "${shares[@]}" --budget "$(left 60)" --out "$out/flips-gate$g" > "$out/flips-gate$g.log" 2>&1
  echo "## BANKLAB_TIMING_GATE=$g" | tee -a "$S"; grep -E "P=|near-line|skipp" "$out/flips-gate$g/gpu_throughput.txt" | tee -a "$S"
done
echo "all in $(( $(date +%s) - t0 )) s" | tee -a "$S"
