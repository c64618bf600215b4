#!/usr/bin/env bash
# Issue 48, item 4 on the GPU machine: the GPU tier described by data grades as the hand-written one
# did. Builds the judge of an older tree (BEFORE, default .carry/before: `git archive <commit>`
# unpacked there) and of this one, then grades every lab's stub and solution on every tier
# (--tier all --graded: a GPU test that cannot run is a fault, never a skip) with each, and compares
# them test by test (bench/verdicts_before_after.py: the tests listed, their tiers and points, each
# verdict's status, checks and message; messages that differ only in numbers, as timings do, are
# counted apart). Everything goes into ONE archive, $OUT/verdicts_before_after.tar.gz (both
# snapshots, the comparison, the build logs), and the comparison's summary is printed.
#   bash bench/device_verdicts_before_after.sh                 build both, grade both, compare
#   STAGE=build bash bench/device_verdicts_before_after.sh     only the builds (kept in build/before_after
#   STAGE=grade bash bench/device_verdicts_before_after.sh     while the machine is warm), then the rest
#   Env: BEFORE (the older tree), JOBS (files graded at once, default 2), LABS ("04 05": only those),
#   AFTER_JUDGE (a judge of this tree built already, e.g. emu/bench's /tmp/judge-emu-tier: only the
#   older tree is built, and this tree is graded where it is).
# Exit: 0 no difference but numbers, 1 a difference, 2 not run (no older tree, a build failed).
# Needs: nvcc, cmake, Ninja, GoogleTest (the machine's or .carry/googletest), CLI11 (.carry/cli11),
# bubblewrap (.carry/bwrap/bwrap): the builds are bench/lib/build_judge.sh's.
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
t0=$(date +%s)
BEFORE=${BEFORE:-$PWD/.carry/before}
W=$PWD/build/before_after; mkdir -p "$W"
R=$W/results; mkdir -p "$R"
if [[ ! -f $BEFORE/CMakeLists.txt ]]; then
  echo "no older tree in $BEFORE: unpack one there first (git archive <commit> | tar -x -C .carry/before)"; exit 2
fi
source bench/lib/build_judge.sh
if [[ ${STAGE:-all} != grade ]]; then
  # One after the other, each with every core (their logs: results/before.logs/, results/after.logs/).
  for k in before after; do
    [[ $k == after && -n ${AFTER_JUDGE:-} ]] && continue
    src=$BEFORE; [[ $k == after ]] && src=$PWD
    mkdir -p "$W/$k"; tar -C "$src" --exclude=./build --exclude=./.carry -cf - . | tar -C "$W/$k" -xf -
    out=$R/$k.logs; mkdir -p "$out"
    build_judge "$W/$k/b" "$W/$k" || { out=${OUT:-$PWD/out}; tar -C "$W" -czf "$out/verdicts_before_after.tar.gz" results; exit 2; }
    echo "built the $k judge at $(( $(date +%s) - t0 )) s"
  done
  out=${OUT:-$PWD/out}
  echo "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  [[ ${STAGE:-all} == build ]] && exit 0
fi
lab_args=(); for n in ${LABS:-}; do lab_args+=(--lab "$n"); done
for k in before after; do
  judge=$W/$k/b/grader/banklab-judge root=$W/$k
  [[ $k == after && -n ${AFTER_JUDGE:-} ]] && judge=$AFTER_JUDGE root=$PWD
  [[ -x $judge ]] || { echo "no judge in $W/$k (STAGE=build first)"; exit 2; }
  rm -rf "$R/$k" "$W/work-$k"
  python3 "$PWD/bench/verdicts_before_after.py" snapshot --judge "$judge" --root "$root" \
    --out "$R/$k" --work "$W/work-$k" --tier all --graded --jobs "${JOBS:-2}" "${lab_args[@]}" 2>&1 | sed "s/^/$k: /"
done
python3 "$PWD/bench/verdicts_before_after.py" compare "$R/before" "$R/after" > "$R/compare.txt" 2>&1
rc=$?
echo "graded and compared in $(( $(date +%s) - t0 )) s (exit $rc)" >> "$R/compare.txt"
tail -n 40 "$R/compare.txt"
tar -C "$W" -czf "$out/verdicts_before_after.tar.gz" results
exit $rc
