#!/usr/bin/env bash
# One device call (issue 47): the judge's own GPU tests of every lab whose description says
# [gpu] emulated = true (python/banklab/lab/labs.py emulated-labs: labs 00-07), stub and solution,
# graded on the H200 and on the emulator (BANKLAB_EMULATE=1: the judge's emulated twin) on the same
# machine, then every GPU-tier case (each `TIER: gpu` cheat and `EXPECT_FAIL: LabNNOnGpu.*` bad case
# of solutions/NN_name/cases) through the selftest's run_case.py on both: every GPU test but timing
# must have the same status and, for the traced test, the same message; every case the same outcome.
#   run: bash emu/bench/emu_tier_vs_gpu_device.sh [all|labs|cases]   (default all; writes $OUT/emu_tier.tgz)
#   Env: LABS ("04 05": only those), JUDGE (a built judge: no build; BANKLAB_CLI then as banklab.lab.variants finds it),
#   KINDS and VARIANTS (the cases: below), JOBS, GPU_JOBS.
# `labs` grades the stubs and solutions only; `cases` the cases only, over the stubs' grades a
# `labs` call left in /tmp/emu-tier-results while the machine stays warm (graded again where
# absent): two calls of under 10 minutes each where one call may not take the two.
# What comes back: per lab and file gpu.json, emu.json (the grades), seconds.txt (each grade's wall
# time), compare.txt (one line per test: same, or both statuses and the first differing line);
# cases.txt (one line per case: run_case.py's exit status on the GPU and on the emulator, 0 the
# expectation holds, 1 not, 77 not judged, and its seconds on each), cases/ (each run's log and
# grade: the GPU's messages of a case whose GPU_EVIDENCE names only a timing test, for a traced line).
# The emulated case runs go 8 at a time, the GPU's GPU_JOBS (default 4) at a time: the judge's GPU lock
# holds the GPU only while a test measures, so their builds overlap.
set -u
OUT=${OUT:-/tmp/out}
what=${1:-all}
out=/tmp/emu-tier-results; mkdir -p "$out/cases" "$OUT"
finish() { tar -C "$(dirname "$out")" -czf "$OUT/emu_tier.tgz" "$(basename "$out")"; }
source bench/lib/build_judge.sh
if [[ -n ${JUDGE:-} ]]; then J=$JUDGE   # a judge built already (a check of the script where there is no GPU)
else build_judge_and_cli /tmp/judge-emu-tier || exit 1; fi
[[ -x ${J}-emu || ${DRY_RUN:-} == 1 ]] || { echo "no emulated twin beside $J"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/versions.txt" 2>&1
labs=${LABS:-$(python3 python/banklab_run.py -m banklab.lab.labs emulated-labs . | tr ';' ' ')}
echo "emulated labs: $labs" >> "$out/versions.txt"

grade() {  # grade DEV LAB SOURCE JSON LOG WORK
  local dev=$1 lab=$2 src=$3 json=$4 log=$5 w=$6
  rm -rf "$w"
  if [[ $dev == emu ]]; then
    BANKLAB_EMULATE=1 "$J" grade --lab "$lab" --source "$src" --work "$w" --json "$json" --tier gpu > "$log" 2>&1
  else
    "$J" grade --lab "$lab" --source "$src" --work "$w" --json "$json" --tier gpu > "$log" 2>&1
  fi
}

# The stub and the solution of every emulated lab on both (the stub's grades are the cheats' baseline
# below), JOBS at once (default 6: the GPU's parts wait for the judge's GPU lock, the rest overlaps).
one_grade() {  # one_grade DEV LAB WHO
  local dev=$1 lab=$2 who=$3 folder d t0
  folder=$(basename "$(ls -d solutions/${lab}_*)"); d=$out/$lab-$who; mkdir -p "$d"
  t0=$(date +%s%N)
  grade $dev "$lab" "$who/$folder/kernel.cu" "$d/$dev.json" "$d/$dev.log" "/tmp/emu-tier/$lab-$who-$dev"
  mkdir -p "$out/cmp-labs/$dev"   # for emu_grades_compare.py: its work folder's path written <work>
  sed "s#/tmp/emu-tier/$lab-$who-$dev#<work>#g" "$d/$dev.json" > "$out/cmp-labs/$dev/$lab-$who.json" 2>/dev/null
  echo "$lab $who $dev $(( ($(date +%s%N) - t0) / 1000000 )) ms" >> "$out/seconds.txt"
}
export -f grade one_grade; export J out
for lab in $labs; do
  for who in labs solutions; do
    [[ $what == cases && $who == solutions ]] && continue
    for dev in gpu emu; do
      [[ $what == cases && -s $out/$lab-$who/$dev.json ]] && continue
      echo "$dev $lab $who"
    done
  done
done | xargs -P "${JOBS:-6}" -L 1 bash -c 'one_grade "$@"' _
python3 emu/bench/emu_grades_compare.py "$out/cmp-labs/gpu" "$out/cmp-labs/emu" > "$out/compare.txt"
[[ $what == labs ]] && { finish; exit 0; }
rm -f "$out"/cases.*.raw

# Every GPU-tier case of the emulated labs, on both devices (run_case.py decides with expect.py):
# KINDS (default "bad cheat"; "alternative" adds the valid alternatives, which must pass every test
# but timing), VARIANTS (default "-": as written; "0 1 2 3 4": the known-bad cases and alternatives
# as each variant, rendered by variant_case.py with the model's banklab; cheats as written only).
# Each grade is also kept with its work folder's path written <case> (cases/cmp/{gpu,emu}/), and
# emu/bench/emu_grades_compare.py compares them test by test (cases_compare.txt).
one_case() {  # one_case DEV CASE VARIANT
  local dev=$1 c=$2 k=$3 lab folder kind name t0 rc w extra=()
  lab=$(echo "$c" | sed 's#solutions/\([0-9][0-9]\)_.*#\1#'); folder=$(echo "$c" | cut -d/ -f2)
  kind=cheat; [[ $c == */bad/* ]] && kind=bad; [[ $c == */alternatives/* ]] && kind=alternative
  name=$lab-$(basename "$c"); [[ $k != - ]] && name=$name-v$k && extra+=(--variant "$k" --banklab "$BANKLAB_CLI")
  [[ $kind == cheat ]] && extra+=(--stub-grade "$out/$lab-labs/$dev.json")
  w=/tmp/emu-tier/case-$dev-$name
  t0=$(date +%s%N)
  env $([[ $dev == emu ]] && echo BANKLAB_EMULATE=1) python3 grader/selftest/run_case.py --judge "$J" --lab "$lab" \
    --folder "$folder" --root . --work "$w" --kind $kind --case "$c" --tier gpu "${extra[@]}" > "$out/cases/$name.$dev.log" 2>&1
  rc=$?
  cp "$w/judge/grade.json" "$out/cases/$name.$dev.json" 2>/dev/null
  mkdir -p "$out/cases/cmp/$dev"
  sed "s#$w#<case>#g" "$w/judge/grade.json" > "$out/cases/cmp/$dev/$name.json" 2>/dev/null
  echo "$c $k $dev $rc $(( ($(date +%s%N) - t0) / 1000 ))" >> "$out/cases.$dev.raw"
}
export -f one_case; export J out BANKLAB_CLI
kinds=${KINDS:-bad cheat}
cases=()
for lab in $labs; do
  d=$(ls -d solutions/${lab}_*)
  for v in ${VARIANTS:--}; do
    [[ $kinds == *cheat* && $v == - ]] && cases+=($(grep -l "^// TIER: gpu" "$d"/cases/cheats/* 2>/dev/null | sed "s/\$/ $v/"))
    [[ $kinds == *bad* ]] && cases+=($(grep -l "^// EXPECT_FAIL: Lab..OnGpu" "$d"/cases/bad/* 2>/dev/null | sed "s/\$/ $v/"))
    [[ $kinds == *alternative* ]] && cases+=($(ls "$d"/cases/alternatives/*.patch 2>/dev/null | sed "s/\$/ $v/"))
  done
done
printf '%s\n' "${cases[@]}" | paste -d' ' - - | xargs -P 8 -L 1 bash -c 'one_case emu "$@"' _ &
emu_pid=$!
printf '%s\n' "${cases[@]}" | paste -d' ' - - | xargs -P "${GPU_JOBS:-4}" -L 1 bash -c 'one_case gpu "$@"' _
wait $emu_pid
python3 emu/bench/emu_grades_compare.py "$out/cases/cmp/gpu" "$out/cases/cmp/emu" > "$out/cases_compare.txt"
python3 - "$out" > "$out/cases.txt" <<'PY'
import sys
from pathlib import Path
out = Path(sys.argv[1])
runs = {}
for dev in ("gpu", "emu"):
    for line in (out / f"cases.{dev}.raw").read_text().splitlines() if (out / f"cases.{dev}.raw").exists() else []:
        case, variant, _, rc, us = line.split()
        runs.setdefault(case if variant == "-" else f"{case} as variant {variant}", {})[dev] = (int(rc), int(us) / 1e6)
for case in sorted(runs):
    g, e = runs[case].get("gpu", (None, 0)), runs[case].get("emu", (None, 0))
    verdict = "same" if g[0] == e[0] else "DIFFERENT"
    print(f"{case} gpu {g[0]} ({g[1]:.1f} s) emu {e[0]} ({e[1]:.1f} s) {verdict}")
PY
finish
