#!/usr/bin/env bash
# Issue 44 item 3 on the GPU machine: the traced launch must use the layout the student declares.
#   bash bench/experiments/trace_layout/device_trace_layout.sh            (Env: JOBS, default 8; DEADLINE, default 380: seconds
#                                                 from the start after which no grade starts; LIMIT,
#                                                 default 420: when the grading stops at the latest)
# Builds banklab-judge (bench/lib/build_judge.sh: Release, sm_90; GoogleTest from .carry/googletest
# where the machine has none, CLI11 from .carry/cli11, bubblewrap from .carry/bwrap), runs the
# layout check's unit tests (judge_unit_tests TraceLayout.*), then bench/experiments/trace_layout/trace_layout_verdicts.py:
# lab 04's stub, solution, alternatives and its new cheat, labs 05-07's solutions and alternatives,
# every GPU cheat, labs 00-03, lab 04's known-bad cases, --tier all. Writes $OUT/summary.txt,
# $OUT/trace_layout_verdicts.txt and the build logs. Exit 0: every row as expected.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-$PWD/out}; mkdir -p "$out"
t0=$(date +%s)
S=$out/summary.txt
if [[ -d .carry/googletest ]] && ! ls /usr/lib/x86_64-linux-gnu/cmake/GTest /usr/lib/cmake/GTest /usr/local/lib/cmake/GTest >/dev/null 2>&1; then
  { cmake -S .carry/googletest -B /tmp/gtest-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/tmp/gtest \
      -DCMAKE_POLICY_VERSION_MINIMUM=3.5 && cmake --build /tmp/gtest-build -j "$(nproc)" && cmake --install /tmp/gtest-build; } \
    > "$out/gtest.log" 2>&1 || { tail -n 30 "$out/gtest.log"; exit 1; }
  export CMAKE_PREFIX_PATH=/tmp/gtest${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
  echo "GoogleTest built from .carry/googletest in $(( $(date +%s) - t0 )) s" | tee "$S"
fi
if [[ -x .carry/bwrap/bwrap ]] && ! .carry/bwrap/bwrap --version >/dev/null 2>&1 && [[ -d .carry/bwrap/lib ]]; then
  export LD_LIBRARY_PATH=$PWD/.carry/bwrap/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
source bench/lib/build_judge.sh; build_judge "$PWD/build/layout" || exit 1
cmake --build build/layout --target judge_unit_tests -j "$(nproc)" >> "$out/build.log" 2>&1 &&
  build/layout/grader/judge_unit_tests --gtest_filter='TraceLayout.*' 2>&1 | tail -n 3 | tee -a "$S"
echo "judge ready in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) CPUs, tree $(cat .carry/TREE 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)" | tee -a "$S"
left=$(( ${LIMIT:-420} - ($(date +%s) - t0) ))   # the driver stops here at the latest (its rows are written as they come)
(( left < 30 )) && left=30
timeout -k 5 "$left" python3 bench/experiments/trace_layout/trace_layout_verdicts.py --judge "$J" --out "$out" --jobs "${JOBS:-8}" --t0 "$t0" \
  --deadline "${DEADLINE:-380}" --work /tmp/trace-layout >> "$S" 2>&1
rc=$?
g=$(find /tmp/trace-layout/cheat-04-identity_staging_and_shuffle_transpose_04 -name grade.json 2>/dev/null | head -1)
[[ -n $g ]] && cp "$g" "$out/new_cheat_grade.json"
echo "all in $(( $(date +%s) - t0 )) s (exit $rc)" | tee -a "$S"
tail -n 60 "$S"
exit $rc
