#!/usr/bin/env bash
# Runs the whole GPU tier N times back to back (solutions and stubs) and reports any test whose
# verdict changed between runs. Use after bench/gpu_perf.sh has built build/perf-{solutions,labs}.
#   bench/gpu_repeat.sh [N]      default N = 20
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20}
tmp=$(mktemp -d)
for i in $(seq 1 "$n"); do
  for grade in solutions labs; do
    for exe in "$root"/build/perf-$grade/grader/grade_lab??; do
      timeout 600 "$exe" --gtest_filter='*OnGpu.*' --gtest_color=no 2>&1 \
        | sed -nE "s/^\[ +(OK|FAILED|SKIPPED) +\] (Lab[A-Za-z0-9_]+\.[A-Za-z0-9_]+) \(.*/$grade \2 \1/p" >>"$tmp/run$i"
    done
  done
  sort -o "$tmp/run$i" "$tmp/run$i"
done
flips=0
for i in $(seq 2 "$n"); do
  if ! diff -q "$tmp/run1" "$tmp/run$i" >/dev/null; then
    flips=$((flips + 1)); echo "run $i differs from run 1:"; diff "$tmp/run1" "$tmp/run$i"
  fi
done
echo "verdicts per run: $(wc -l <"$tmp/run1") tests; $(grep -c ' OK$' "$tmp/run1") ok, $(grep -c ' FAILED$' "$tmp/run1") failed"
cat "$tmp/run1"
echo "$n back-to-back runs: $flips run(s) with a changed verdict"
[[ $flips -eq 0 ]]
