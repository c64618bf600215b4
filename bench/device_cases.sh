#!/usr/bin/env bash
# Every selftest case of every lab through the GPU tier on the GPU machine, labs in parallel (the
# GPU lock serialises the GPU tests): each lab's solution and stub graded --tier all --graded, then
# grader/selftest/run_cases.py --tier all --gpu --skip-slow on its cases (cheats, known-bad kernels,
# valid alternatives; the course's generic cheats with lab 05).
#   bash bench/device_cases.sh [LAB ...]          (default: 00 ... 07)
#   Env: KINDS (run_cases --kind values, default "cheat alternative bad"), JUDGE (an existing judge),
#   LIMIT (seconds for each lab's cases, default 420: what is not graded by then is not in its file),
#   LAB_ONLY=1 (only the lab's own cases of those KINDS, solutions/NN_name/cases/{cheats,alternatives,bad}/,
#   not the course's generic cheats), DRY_RUN=1 (builds and grades nothing: each lab's cases file
#   lists the commands and the cases they would grade; exit 0).
# Writes $OUT/cases_LAB.txt (run_cases' lines), $OUT/grades_LAB.txt (the solution's and the stub's
# failed GPU tests), $OUT/summary.txt; exit 0 when every case is as expected.
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
work=$(mktemp -d /tmp/device_cases.XXXXXX)  # the grades' work folders, never under $OUT
t0=$(date +%s)
if [[ -n ${JUDGE:-} ]]; then J=$JUDGE; else source bench/lib/build_judge.sh; build_judge "$PWD/build/cases" || exit 1; fi
labs=("$@"); [[ ${#labs[@]} -eq 0 ]] && labs=(00 01 02 03 04 05 06 07)
kinds=(); for k in ${KINDS:-cheat alternative bad}; do kinds+=(--kind "$k"); done
S=$out/summary.txt
echo "judge ready in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU'), $(nproc) CPUs" | tee "$S"
one_lab() {
  local lab=$1 dir only=() k sub c
  dir=$(ls -d solutions/${lab}_* | head -1); dir=${dir#solutions/}
  if [[ ${LAB_ONLY:-} == 1 ]]; then  # run_cases grades every --case given, whatever its kind: the kinds pick the folders
    for k in ${KINDS:-cheat alternative bad}; do
      case $k in cheat) sub=cheats ;; alternative) sub=alternatives ;; *) sub=$k ;; esac
      for c in solutions/"$dir"/cases/"$sub"/*.patch solutions/"$dir"/cases/"$sub"/*.cu; do
        [[ -f $c ]] && only+=(--case "$c")
      done
    done
    if [[ ${#only[@]} -eq 0 ]]; then
      echo "ERROR: lab $lab has no case of the kinds ${KINDS:-cheat alternative bad}" > "$out/cases_$lab.txt"
      : > "$out/grades_$lab.txt"; return 0
    fi
  fi
  if [[ ${DRY_RUN:-} == 1 ]]; then
    echo "DRY RUN: $J grade --lab $lab --source {solutions,labs}/$dir/kernel.cu --tier all --graded" > "$out/grades_$lab.txt"
    { echo "DRY RUN: python3 -u grader/selftest/run_cases.py --judge $J --lab $lab ${kinds[*]} ${only[*]} --tier all --gpu --skip-slow"
      echo "selftest cases: dry run, $(( ${#only[@]} / 2 )) case(s) named (0: every case of the kinds), nothing graded"; } > "$out/cases_$lab.txt"
    return 0
  fi
  {
    for who in solutions labs; do
      "$J" grade --lab "$lab" --source "$who/$dir/kernel.cu" --work "$work/w_${who}_$lab" --json "$out/g_${who}_$lab.json" \
        --tier all --graded > "$out/g_${who}_$lab.log" 2>&1
      python3 - "$out/g_${who}_$lab.json" "$who" <<'PY'
import json, sys
try:
    g = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit(f"ERROR {sys.argv[2]}: the judge wrote no readable grade ({e}); its output: g_{sys.argv[2]}_*.log")
v = g.get("verdicts", g.get("tests", []))
gpu = [t for t in v if t.get("tier") == "gpu"]
bad = [t["test"] for t in gpu if t.get("status") != "passed"]
print(f"{sys.argv[2]}: {len(gpu) - len(bad)} of {len(gpu)} GPU tests passed; not passed: {', '.join(bad) or 'none'}")
PY
    done
  } > "$out/grades_$lab.txt" 2>&1
  timeout "${LIMIT:-420}" python3 -u grader/selftest/run_cases.py --judge "$J" --lab "$lab" "${kinds[@]}" "${only[@]}" --tier all \
    --gpu --skip-slow --work "$work/cases_$lab" > "$out/cases_$lab.txt" 2>&1
  local rc=$?
  [[ $rc -eq 124 ]] && echo "NOT FINISHED: lab $lab's cases ran past ${LIMIT:-420} s" >> "$out/cases_$lab.txt"
  grep -q "^selftest cases:" "$out/cases_$lab.txt" ||  # run_cases crashed (a traceback) or was stopped
    echo "ERROR: lab $lab: run_cases ended (exit $rc) without its summary line; its output is above" >> "$out/cases_$lab.txt"
  return 0  # the verdict is the cases' lines, read below (run_cases exits 1 on any FAILED line too)
}
pids=()
for lab in "${labs[@]}"; do one_lab "$lab" & pids+=($!); done
rc=0; for p in "${pids[@]}"; do wait "$p"; done
for lab in "${labs[@]}"; do
  echo "== lab $lab" | tee -a "$S"; cat "$out/grades_$lab.txt" | tee -a "$S"
  grep -E "^(FAILED|ERROR|NOTE|NOT FINISHED|DRY RUN)|^selftest cases:" "$out/cases_$lab.txt" | tee -a "$S"
done
grep -q "^FAILED\|^ERROR\|^NOT FINISHED" "$out"/cases_*.txt "$out"/grades_*.txt && rc=1
echo "all in $(( $(date +%s) - t0 )) s (exit $rc)" | tee -a "$S"
rm -rf "$work"
exit $rc
