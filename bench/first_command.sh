#!/usr/bin/env bash
# The first command: how long a newcomer waits from a fresh clone to a lab's first verdict,
#   tools/setup-debian && cmake --workflow --preset labNN
# run in a fresh clone (in a temporary folder) of the repository given (default: the one this
# script lives in; a clone takes its committed HEAD, not uncommitted changes). Prints the total
# wall time, the number of build steps ninja ran and the 10 slowest (from ninja's log), and what
# of the build the lab's tests need: the programs their commands run (ctest -N -V) and every
# build step those depend on (ninja -t inputs), with the seconds those steps took. The target is
# 20 s on a quiet 2-core machine with the packages installed (issue 32; 1 minute in issue 22).
#   bench/first_command.sh [NN] [repository] [--keep]
set -euo pipefail
lab=00 repo="" keep=0
for a in "$@"; do
  case $a in
    --keep) keep=1 ;;
    [0-9][0-9]) lab=$a ;;
    *) repo=$a ;;
  esac
done
[[ -n $repo ]] || repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/first_command.XXXXXX")
((keep)) || trap 'rm -rf "$tmp"' EXIT
git clone -q "$repo" "$tmp/repo"
cd "$tmp/repo"
echo "first command, lab $lab, fresh clone of $repo at $(git rev-parse --short HEAD) in $tmp/repo"
echo "load before: $(uptime | sed 's/.*load average/load average/')"
now() { date +%s.%N; }
t0=$(now)
tools/setup-debian >"$tmp/setup.log" 2>&1 || { echo "tools/setup-debian failed:"; cat "$tmp/setup.log"; exit 1; }
t1=$(now)
rc=0
/usr/bin/time -f "%U %S" -o "$tmp/cpu" cmake --workflow --preset "lab$lab" >"$tmp/workflow.log" 2>&1 || rc=$?  # a stub fails its tests: still a verdict
t2=$(now)
echo "load after:  $(uptime | sed 's/.*load average/load average/')"
grep -q "tests failed\|tests passed" "$tmp/workflow.log" ||
  { echo "the workflow gave no verdict (exit $rc):"; tail -20 "$tmp/workflow.log"; exit 1; }
build=build/dev
log=$build/.ninja_log
# .ninja_log (v5): start_ms end_ms mtime output command_hash, one line per output of a step.
steps=$(awk '!/^#/ {print $1, $2, $5}' "$log" | sort -u | wc -l)
span=$(awk '!/^#/ {if (min == "" || $1 < min) min = $1; if ($2 > max) max = $2} END {printf "%.1f", (max - min) / 1000}' "$log")
ctest_s=$(sed -n 's/^Total Test time (real) = *\([0-9.]*\) sec.*/\1/p' "$tmp/workflow.log" | tail -1)
printf 'total: %.1f s (tools/setup-debian %.1f s, cmake --workflow --preset lab%s %.1f s, exit %d)\n' \
  "$(awk -v a="$t0" -v b="$t2" 'BEGIN {printf "%.3f", b - a}')" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')" "$lab" "$(awk -v a="$t1" -v b="$t2" 'BEGIN {printf "%.3f", b - a}')" "$rc"
echo "  of the workflow: build ${span} s for $steps ninja steps, tests ${ctest_s:-?} s, the rest is configuring"
# CPU seconds (user + sys of every process it waited for): what a loaded machine changes least.
echo "  CPU time of the workflow: $(tail -1 "$tmp/cpu" | awk '{printf "%.1f", $1 + $2}') s (user + sys of all its processes; on a quiet 2-core machine the wall time is at least half of it)"
echo "the 10 slowest build steps (s):"
awk '!/^#/ {k = $1 " " $2 " " $5; if (!(k in seen)) {seen[k] = 1; printf "%8.1f  %s\n", ($2 - $1) / 1000, $4}}' "$log" |
  sort -rn | head -10
# What the lab's tests run: the programs of their commands that the build makes, and all they need.
progs=$(ctest --test-dir "$build" -L "^lab$lab\$" -N -V 2>/dev/null | sed -n 's/^.*Test command: *//p' | awk '{print $1}' |
  sort -u | sed "s|^$PWD/$build/||" | grep -v '^/' || true)
if [[ -n $progs ]]; then
  # shellcheck disable=SC2086
  ninja -C "$build" -t inputs $progs 2>/dev/null | sort -u >"$tmp/needed"
  printf '%s\n' $progs >>"$tmp/needed"
  awk 'NR == FNR {need[$1] = 1; next} !/^#/ && ($4 in need) {k = $1 " " $2 " " $5; if (!(k in seen)) {seen[k] = 1; n++; s += ($2 - $1) / 1000}}
       END {printf "the lab'"'"'s tests run: %s\n  they need %d of the %d build steps, %.1f s of build time one after another\n", progs, n, total, s}' \
    progs="$(echo $progs)" total="$steps" "$tmp/needed" "$log"
fi
((keep)) && echo "kept: $tmp"
exit 0
