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
#   Env: BEFORE (the older tree), JOBS (files graded at once, default 2), LABS ("04 05": only those).
# Exit: 0 no difference but numbers, 1 a difference, 2 not run (no older tree, a build failed).
# Needs: nvcc, cmake, Ninja, GoogleTest, CLI11 (.carry/cli11), bubblewrap (.carry/bwrap/bwrap).
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
t0=$(date +%s)
BEFORE=${BEFORE:-$PWD/.carry/before}
W=$PWD/build/before_after; mkdir -p "$W"
R=$W/results; mkdir -p "$R"
if [[ ! -f $BEFORE/CMakeLists.txt ]]; then
  echo "no older tree in $BEFORE: unpack one there first (git archive <commit> | tar -x -C .carry/before)"; exit 2
fi
if [[ -x .carry/bwrap/bwrap && ! -x /usr/local/bin/bwrap ]]; then cp .carry/bwrap/bwrap /usr/local/bin/bwrap; chmod 755 /usr/local/bin/bwrap; fi
seccomp=()
if [[ ! -f /usr/include/seccomp.h && -f .carry/seccomp/include/seccomp.h ]]; then
  seccomp=(-DBANKLAB_SECCOMP_INCLUDE="$PWD/.carry/seccomp/include" -DBANKLAB_SECCOMP_LIBRARY="$PWD/.carry/seccomp/lib/libseccomp.a")
fi
bld() {  # tree, where: a copy of the tree (readable by the sandbox's uid), its judge in where/b
  mkdir -p "$2"; tar -C "$1" --exclude=./build --exclude=./.carry -cf - . | tar -C "$2" -xf -; chmod -R a+rX "$2"
  cmake -S "$2" -B "$2/b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$PWD/.carry/cli11" "${seccomp[@]}" > "$R/$(basename "$2").configure.log" 2>&1 &&
    cmake --build "$2/b" --target banklab_judge -j 8 > "$R/$(basename "$2").build.log" 2>&1 ||
    { tail -n 30 "$R/$(basename "$2").configure.log" "$R/$(basename "$2").build.log"; return 1; }
}
if [[ ${STAGE:-all} != grade ]]; then
  bld "$BEFORE" "$W/before" & b1=$!
  bld "$PWD" "$W/after" & b2=$!
  wait $b1; r1=$?; wait $b2; r2=$?
  echo "built both judges in $(( $(date +%s) - t0 )) s (exit $r1, $r2); $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  if [[ $r1 != 0 || $r2 != 0 ]]; then tar -C "$W" -czf "$out/verdicts_before_after.tar.gz" results; exit 2; fi
  [[ ${STAGE:-all} == build ]] && exit 0
fi
lab_args=(); for n in ${LABS:-}; do lab_args+=(--lab "$n"); done
for k in before after; do
  [[ -x $W/$k/b/grader/banklab-judge ]] || { echo "no judge in $W/$k (STAGE=build first)"; exit 2; }
  rm -rf "$R/$k" "$W/work-$k"
  python3 "$W/after/bench/verdicts_before_after.py" snapshot --judge "$W/$k/b/grader/banklab-judge" --root "$W/$k" \
    --out "$R/$k" --work "$W/work-$k" --tier all --graded --jobs "${JOBS:-2}" "${lab_args[@]}" 2>&1 | sed "s/^/$k: /"
done
python3 "$W/after/bench/verdicts_before_after.py" compare "$R/before" "$R/after" > "$R/compare.txt" 2>&1
rc=$?
echo "graded and compared in $(( $(date +%s) - t0 )) s (exit $rc)" >> "$R/compare.txt"
tail -n 40 "$R/compare.txt"
tar -C "$W" -czf "$out/verdicts_before_after.tar.gz" results
exit $rc
