#!/usr/bin/env bash
# Issue 31 item 8 on the GPU machine, in one call: where `banklab trace`'s time goes on the cuBLAS
# program (bench/cublas_gemms.cu, 6 GEMM kernels, about 3.8 million shared warp records),
# and its overhead against Nsight Compute's, paired and interleaved.
#   bench/trace_overhead_device.sh            (everything under $OUT, or ./out; table in $OUT/trace_overhead.txt)
#   REPS=5 bench/trace_overhead_device.sh     (rounds; default 3)
# Builds `banklab`, the injection library and the trace tests (Ninja, 16 jobs; CLI11 from
# .carry/cli11 as CMakeLists.txt looks for it), runs `ctest -L trace` (the two GPU tests of Session
# again with BANKLAB_TRACE_MERGE=1), then REPS rounds of, one after the other:
#   plain       the program alone
#   append      BANKLAB_TRACE_MERGE=0 (every warp record appended: device buffer, then ring)
#   merge       BANKLAB_TRACE_MERGE=1 (identical records merged on the device, format.hpp MergeEntry; the default)
#   append_big  a 1 GiB device buffer (nothing through the ring: what the ring costs)
#   count       BANKLAB_TRACE_DEVICE=count (the callback only groups lanes and counts: nothing recorded)
#   empty       BANKLAB_TRACE_DEVICE=empty (the callback returns at once: the Compute Sanitizer's own cost)
#   ncu         ncu with the one instruction-level metric the trace is checked against
# and once: merge_tiny (a table of 64 entries and a 1 MiB buffer: nearly every record falls back
# to the buffer and the ring). Every recording variant's wavefronts must equal ncu's, with 0 dropped;
# the count variant's warp instructions must equal the recording variants'. Each traced run prints
# BANKLAB_TRACE_STATS=2 (the parts of the tracer, one line per launch) and banklab's own split
# (program / analysis); bench/trace_overhead_table.py makes the table from the logs.
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out/runs"; ROOT=$PWD; B=${TRACE_BUILD:-/tmp/to}; REPS=${REPS:-3}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/gpu.txt 2>&1; cat $out/gpu.txt
t0=$EPOCHREALTIME
cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$ROOT/.carry/cli11 \
  > $out/configure.log 2>&1 || { tail -n 20 $out/configure.log; exit 1; }
nvcc -O2 -lineinfo -arch=sm_90 -o $B/cublas_gemms bench/cublas_gemms.cu -lcublas > $out/nvcc.log 2>&1 &
cmake --build $B -j 16 --target banklab banklab_trace_inject trace_core_tests trace_session_tests > $out/build.log 2>&1 ||
  { grep -B2 -A10 -m3 error $out/build.log; exit 1; }
wait || { cat $out/nvcc.log; exit 1; }
echo "built in $(awk "BEGIN{printf \"%.0f\", $EPOCHREALTIME - $t0}") s"
timeout 120 ctest --test-dir $B -L trace --output-on-failure > $out/ctest.log 2>&1; echo "ctest -L trace: rc=$? $(grep -E 'tests passed|tests failed' $out/ctest.log)"
BANKLAB_TRACE_MERGE=1 timeout 60 ctest --test-dir $B -R Session --output-on-failure > $out/ctest_merge.log 2>&1
echo "ctest -R Session with BANKLAB_TRACE_MERGE=1: rc=$? $(grep -E 'tests passed|tests failed' $out/ctest_merge.log)"

BL=$B/tools/banklab
declare -A hung  # a variant that ran past its time limit once is not run again (one device call is 10 min)
run() {  # variant round [ENV=VALUE ...]: one timed run, its log and report under $out/runs
  local v=$1 r=$2; shift 2
  local log=$out/runs/$v.$r.log t=$EPOCHREALTIME rc limit=${TRACE_LIMIT:-45}
  [ -n "${hung[$v]:-}" ] && { echo "  $v round $r: skipped (ran past its limit before)"; return; }
  [ $v = merge_tiny ] && limit=90
  case $v in
    plain) (cd $B && timeout 120 ./cublas_gemms) > $log 2>&1; rc=$? ;;
    ncu) (cd $B && timeout 120 ncu --clock-control none --print-kernel-base mangled \
            --metrics sm__sass_l1tex_pipe_lsu_wavefronts_mem_shared.sum --csv --log-file $out/runs/ncu.$r.csv \
            ./cublas_gemms) > $log 2>&1; rc=$? ;;
    *) (cd $B && env "$@" BANKLAB_TRACE_STATS=2 timeout $limit "$BL" trace --format json --out $out/runs/$v.$r.json \
          -- ./cublas_gemms) > $log 2>&1; rc=$? ;;
  esac
  local s; s=$(awk "BEGIN{printf \"%.3f\", $EPOCHREALTIME - $t}")
  [ $rc = 124 ] && hung[$v]=1
  echo "$v,$r,$s,$rc" >> $out/times.csv
  echo "  $v round $r: $s s (rc $rc)"
}
echo "variant,round,seconds,rc" > $out/times.csv
run plain 0 > /dev/null  # warm-up: caches, the driver's first start; not counted
for r in $(seq 1 $REPS); do
  echo "round $r"
  run plain $r
  run append $r BANKLAB_TRACE_MERGE=0
  run merge $r BANKLAB_TRACE_MERGE=1
  run append_big $r BANKLAB_TRACE_MERGE=0 BANKLAB_TRACE_BUFFER_MB=1024
  run count $r BANKLAB_TRACE_DEVICE=count
  run empty $r BANKLAB_TRACE_DEVICE=empty
  run ncu $r
done
run merge_tiny 1 BANKLAB_TRACE_MERGE=1 BANKLAB_TRACE_MERGE_ENTRIES=64 BANKLAB_TRACE_BUFFER_MB=1
python3 bench/trace_overhead_table.py $out | tee $out/trace_overhead.txt
rc=${PIPESTATUS[0]}
python3 bench/trace_vs_sass.py $out/runs/merge.1.json $out/runs/ncu.1.csv > $out/merge_vs_ncu_by_kernel.txt 2>&1
echo "kernel rows of merge.1 equal to ncu's instruction-level total: $(grep -c 'total .* equal' $out/merge_vs_ncu_by_kernel.txt) (of 6)"
exit $rc
