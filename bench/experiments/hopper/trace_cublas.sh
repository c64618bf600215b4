#!/usr/bin/env bash
# Issue 24's cuBLAS table on the GPU machine, in one go: builds `banklab trace` and the programs,
# then per program Nsight Compute (shared-memory wavefront, instruction, TMA and gmma counters) and
# `banklab trace` in the same call, and the wall time of each way of running it.
#   bench/experiments/hopper/trace_cublas.sh OUT_DIR
# Programs: bench/cublas_gemms.cu (the table; ncu and the trace), bench/experiments/hopper/wgmma_probe.cu
# and tma_probe.cu (traced only: their ncu counts are in common/data/hopper_h200_{wgmma,tma}.csv).
# Writes OUT_DIR/run.tgz (reports, ncu CSVs, logs) and OUT_DIR/summary.txt
# (bench/experiments/hopper/trace_cublas_rows.py; docs/perf/trace_cublas_hopper.md).
set -u
O=$(realpath -m "$1"); mkdir -p "$O/r"; R=$O/r
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); cd "$ROOT"
T0=$(date +%s)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; nvcc --version | tail -2 | head -1
  ncu --version | tail -1; date -u; } > "$R/versions.txt" 2>&1; cat "$R/versions.txt"
SAN=$(dirname "$(command -v nvcc)")/../compute-sanitizer/include
# What this API can patch (the doc cites it): the TMA and wgmma parts of sanitizer_patching.h.
{ ls "$SAN"; grep -n "SANITIZER_INSTRUCTION_[A-Z_]* *=" "$SAN/sanitizer_patching.h"
  grep -n -B2 -A6 "TensorMemory\|SanitizerCallbackWarpgroupMMAAsync)\|SanitizerCallbackBulkCopyGlobalToShared)" "$SAN/sanitizer_patching.h"
} > "$R/sanitizer_api.txt" 2>&1
B=$ROOT/build/tc
( cmake -S . -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release > "$R/configure.log" 2>&1 &&
  cmake --build "$B" -j 16 --target banklab banklab_trace_inject trace_core_tests > "$R/build.log" 2>&1 ) &
bpid=$!
P=$O/progs; mkdir -p "$P"
G="-gencode arch=compute_90a,code=sm_90a"
nvcc -O2 -lineinfo -arch=sm_90 -o "$P/cublas_gemms" bench/cublas_gemms.cu -lcublas > "$R/progs.log" 2>&1 &
nvcc $G -O2 -lineinfo -o "$P/wgmma_probe" bench/experiments/hopper/wgmma_probe.cu >> "$R/progs.log" 2>&1 &
nvcc $G -O2 -lineinfo -o "$P/tma_probe" bench/experiments/hopper/tma_probe.cu -lcuda >> "$R/progs.log" 2>&1 &
wait
grep "banklab trace" "$R/configure.log"
BL=$B/tools/banklab
[ -x "$BL" ] || { tail -30 "$R/configure.log"; grep -B2 -A12 -m3 "error" "$R/build.log"; tar -C "$O" -czf "$O/run.tgz" r; exit 1; }
ls "$P"; cat "$R/progs.log" | tail -5
echo "built: $(( $(date +%s) - T0 )) s"
"$B/trace/tests/trace_core_tests" --gtest_brief=1 2>&1 | tail -3

W=l1tex__data_pipe_lsu_wavefronts_mem_shared
M=$W.sum,${W}_op_ld.sum,${W}_op_st.sum,${W}_op_atom.sum,${W}_op_misc.sum,${W}_op_gmma.sum,${W}_op_ipa.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_bank_reads.sum,l1tex__data_bank_writes.sum
for i in shared_ld shared_st ldsm shared_stsm ldgsts shared_atom; do M=$M,smsp__sass_inst_executed_op_$i.sum; done
M=$M,sm__sass_inst_executed_op_shared_gmma.sum,sm__sass_inst_executed_op_tma_ld.sum,sm__sass_inst_executed_op_tma_st.sum
M=$M,l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum,l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum
since() { awk "BEGIN{printf \"%.2f\", $EPOCHREALTIME - $1}"; }
# Records: the 1024^3 SGEMM alone executes about 2.9 million shared-memory warp instructions, more
# than the default 256 MiB buffer holds.
export BANKLAB_TRACE_BUFFER_MB=1024
for p in cublas_gemms wgmma_probe tma_probe; do
  cmd="$P/$p"
  ( cd "$P" && timeout 120 "$BL" trace --format json --out "$R/t_$p.json" --keep "$R/t_$p.bltrace" -- $cmd > "$R/tlog_$p.txt" 2>&1 )
  rc=$?; echo "$p traced rc=$rc"; [ $rc -eq 0 ] || tail -5 "$R/tlog_$p.txt"
  ( cd "$P" && timeout 60 "$BL" trace --out "$R/t_$p.txt" -- $cmd > /dev/null 2>&1 )
done
# Nsight Compute twice on the same program (how much its counts move between runs), then the
# LDGSTS split by cache mode in a run of its own (a metric this ncu lacks fails only that run).
for n in n n2; do
  ( cd "$P" && timeout 200 ncu --clock-control none --print-kernel-base mangled --metrics "$M" --csv --log-file "$R/${n}_cublas_gemms.csv" ./cublas_gemms > /dev/null 2>&1 )
  echo "ncu run $n rc=$?"
done
( cd "$P" && timeout 100 ncu --clock-control none --print-kernel-base mangled --csv --log-file "$R/n_ldgsts.csv" \
    --metrics smsp__sass_inst_executed_op_ldgsts_cache_access.sum,smsp__sass_inst_executed_op_ldgsts_cache_bypass.sum ./cublas_gemms > /dev/null 2>&1 )
echo "ncu ldgsts split rc=$?"; grep -h "ldgsts" "$R/n_ldgsts.csv" | cut -c1-400 | tail -12
python3 bench/experiments/hopper/bltrace_sass.py "$R/t_cublas_gemms.bltrace" "$O/sass" > "$R/sass_cublas.txt" 2>&1; cut -c1-700 "$R/sass_cublas.txt"
# Wall time of the whole program, 3 rounds: untraced, traced, under ncu with the metrics above.
for round in 1 2 3; do
  for way in untraced traced ncu; do
    case $way in
      untraced) c=(./cublas_gemms) ;;
      traced) c=("$BL" trace --out /dev/null -- ./cublas_gemms) ;;
      ncu) c=(ncu --clock-control none --metrics "$M" --csv --log-file /dev/null ./cublas_gemms) ;;
    esac
    t=$EPOCHREALTIME; ( cd "$P" && timeout 100 "${c[@]}" > /dev/null 2>&1 ); rc=$?
    echo "time $way round $round: $(since $t) s rc=$rc"
  done
done | tee "$R/times.txt"
( cd "$P" && BANKLAB_TRACE_DEBUG=1 timeout 60 "$BL" trace -- ./cublas_gemms 2>&1 | grep -m20 "tensor map\|error\|failed" ) > "$R/debug_tensormaps.txt" 2>&1
python3 bench/experiments/hopper/trace_cublas_rows.py "$R" --csv "$R/rows.csv" > "$O/summary.txt" 2>&1; cat "$O/summary.txt"
tar -C "$O" -czf "$O/run.tgz" r
echo "total $(( $(date +%s) - T0 )) s"
