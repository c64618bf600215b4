#!/usr/bin/env bash
# First use on a quiet 2-core machine (issue 32, item 5), for the lent GPU machine pinned to two
# cores: the first command `cmake --workflow --preset labNN` (tools/setup-debian is left out: that
# machine has no Debian packages; it is a no-op where they are installed) from a fresh copy of
# each tree, runs alternated, then edit -> verdict paired with a bare `nvcc -c` of the same
# kernel.cu (bench/edit_to_verdict.sh's loop, in the last tree). No ccache. The GPU is hidden
# (CUDA_VISIBLE_DEVICES=) as on the issue's machine, which has none; --gpu keeps it.
#   taskset -c 0,1 bench/first_use_quiet.sh [--lab NN] [--runs N] [--gpu] [REV ...]
# The same script, with a path, measures this machine: bench/first_use_quiet.sh --runs 2 5101bb9 HEAD.
# Each REV (a folder holding a tree, e.g. .carry/base from `git archive C | tar -x`, or a commit of this repository's .git, e.g. 5101bb9 for the tree before issue 32's speed
# work) is exported with git archive; no REV: the working tree as it is. Prints the medians and
# every run, and writes the logs under $OUT (default ./out).
set -euo pipefail
lab=00 runs=3 gpu=0 revs=()
while (($#)); do
  case $1 in
    --lab) lab=$2; shift ;;
    --runs) runs=$2; shift ;;
    --gpu) gpu=1 ;;
    *) revs+=("$1") ;;
  esac
  shift
done
src=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$PWD/out}; mkdir -p "$out"
work=$(mktemp -d /tmp/first_use.XXXXXX)
export CCACHE_DISABLE=1
unset CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER CMAKE_CUDA_COMPILER_LAUNCHER
((gpu)) || export CUDA_VISIBLE_DEVICES=
cores=$(nproc)
echo "first use, lab $lab, $runs run(s) a tree, on $cores core(s) ($(taskset -pc $$ 2>/dev/null | sed 's/.*: //')), GPU $( ((gpu)) && echo kept || echo hidden)"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH

export_tree() {  # export_tree REV DIR: the tree of REV (or the working tree) in DIR, without build/
  mkdir -p "$2"
  if [[ $1 == worktree ]]; then
    tar -C "$src" --exclude=./build --exclude=./out -cf - . | tar -C "$2" -xf -
  elif [[ -d $1 ]]; then   # a tree unpacked beforehand (a machine whose copy has no .git)
    tar -C "$1" --exclude=./build --exclude=./out -cf - . | tar -C "$2" -xf -
    [[ -d $src/.carry/cli11 ]] && mkdir -p "$2/.carry" && cp -a "$src/.carry/cli11" "$2/.carry/"
  else
    git -C "$src" archive "$1" | tar -C "$2" -xf -
    [[ -d $src/.carry ]] && cp -a "$src/.carry" "$2/"   # CLI11 etc. carried to a machine without Debian's
  fi
}
((${#revs[@]})) || revs=(worktree)
declare -A totals
for ((i = 1; i <= runs; ++i)); do
  for rev in "${revs[@]}"; do
    k=${rev//[\/.]/_}; d=$work/$k-$i
    export_tree "$rev" "$d"
    t0=$(date +%s.%N)
    rc=0
    (cd "$d" && cmake --workflow --preset "lab$lab") >"$out/workflow-$k-$i.log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    grep -q "tests failed\|tests passed" "$out/workflow-$k-$i.log" ||
      { echo "$rev: no verdict (exit $rc)"; tail -20 "$out/workflow-$k-$i.log"; exit 1; }
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
    steps=$(awk '!/^#/ {print $1, $2, $5}' "$d/build/dev/.ninja_log" | sort -u | wc -l)
    span=$(awk '!/^#/ {if (min == "" || $1 < min) min = $1; if ($2 > max) max = $2} END {printf "%.1f", (max - min) / 1000}' "$d/build/dev/.ninja_log")
    cp "$d/build/dev/.ninja_log" "$out/ninja_log-$k-$i"
    printf '%s run %d: %.1f s (build %s s, %d steps; exit %d; load %s)\n' "$rev" "$i" "$s" "$span" "$steps" "$rc" \
      "$(cut -d' ' -f1-3 /proc/loadavg)"
    totals[$rev]+="$s "
    ((i == runs)) || rm -rf "$d"   # the last run's trees stay for edit -> verdict
  done
done
med() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR] = $1} END {printf "median %.1f s (min %.1f, max %.1f, %d runs)", a[int((NR + 1) / 2)], a[1], a[NR], NR}'; }
for rev in "${revs[@]}"; do echo "first command, $rev: $(echo "${totals[$rev]}" | med)"; done

# Edit -> verdict in each tree, built above, paired with a bare nvcc -c of the same file (this
# tree's bench/edit_to_verdict.sh, run in each).
for rev in "${revs[@]}"; do
  k=${rev//[\/.]/_}; d=$work/$k-$runs
  cp "$src/bench/edit_to_verdict.sh" "$d/bench/edit_to_verdict.sh"
  echo "edit -> verdict, $rev:"
  (cd "$d" && bench/edit_to_verdict.sh 7) 2>&1 | tee "$out/edit_to_verdict-$k.txt"
done
rm -rf "$work"
