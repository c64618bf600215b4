#!/usr/bin/env bash
# Issue 34 on the GPU machine (the Compute Sanitizer API is there): the tracer's core moved to
# trace/, `banklab trace` kept in tools/trace/. Builds everything that needs the API (the patch,
# the injection library, Session, the subcommand, the judge that traces), runs `ctest -L trace`,
# a smoke run of `banklab trace` on its demo, and the lab 07 cheats of the GPU tier (the ldmatrix
# decoys' message quotes the off-description instruction with the smallest offsets now).
#   bench/experiments/trace_build/device_trace_build.sh        output under $OUT (or ./out); about 5 minutes on 16 cores
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
t0=$(date +%s)
if [[ -x .carry/bwrap/bwrap && ! -x /usr/local/bin/bwrap ]]; then cp .carry/bwrap/bwrap /usr/local/bin/bwrap; chmod 755 /usr/local/bin/bwrap; fi
# A world-readable copy: the judge's steps run as a leased uid and read the tree's headers.
T=/tmp/trace34; rm -rf $T && mkdir -p $T
tar -C "$(dirname "$0")/../../.." --exclude=./build --exclude=./.carry -cf - . | tar -C $T -xf -
[[ -d .carry/cli11 ]] && mkdir -p $T/.carry && cp -r .carry/cli11 $T/.carry/
chmod -R a+rX $T; cd $T
B=$T/build/trace
cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
grep "banklab trace" "$out/configure.log"
cmake --build $B -j 16 --target banklab banklab_judge banklab_trace_inject banklab_trace_patch trace_core_tests \
  trace_session_tests trace_demo trace_throughput >"$out/build.log" 2>&1 || { grep -B2 -A12 -m5 "error" "$out/build.log"; exit 1; }
grep -c "warning" "$out/build.log" | sed 's/^/build warnings: /'; grep -A3 "warning" "$out/build.log" | grep -E "inject|trace_check|cmd_trace|run_app" | head -10
ls -la $B/trace/libbanklab_trace_inject.so $B/trace/banklab_trace_patch.fatbin $B/tools/banklab $B/grader/banklab-judge
echo "built in $(( $(date +%s) - t0 )) s"; nvidia-smi --query-gpu=name --format=csv,noheader

echo "== ctest -L trace"
timeout 300 ctest --test-dir $B -L trace --output-on-failure >"$out/ctest_trace.log" 2>&1; echo "rc=$?"; tail -6 "$out/ctest_trace.log"

echo "== banklab trace -- trace_demo 256"
timeout 60 $B/tools/banklab trace -- $B/tools/trace/tests/trace_demo 256 >"$out/demo.txt" 2>&1; echo "rc=$?"; head -20 "$out/demo.txt"

echo "== lab 07 cheats of the GPU tier (each must fail; its evidence line must match)"
args=(); for f in $(grep -l "^// TIER: gpu" solutions/07_*/cases/cheats/*.cu solutions/07_*/cases/cheats/*.patch); do args+=(--case "$f"); done
timeout 420 python3 grader/selftest/run_cases.py --judge $B/grader/banklab-judge --kind cheat --tier gpu --gpu \
  --work $T/cheats --lab 07 "${args[@]}" >"$out/cheats07.txt" 2>&1; echo "rc=$?"; tail -25 "$out/cheats07.txt" | cut -c1-400
echo "== the ldmatrix decoys' message"
grep -rho "One of them (the smallest offsets)[^.]*\." $T/cheats 2>/dev/null | head -2
echo "total $(( $(date +%s) - t0 )) s"
