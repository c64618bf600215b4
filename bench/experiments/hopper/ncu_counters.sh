#!/usr/bin/env bash
# Every shared-memory wavefront and bank-conflict counter Nsight Compute has, on the cuBLAS program
# of issue 24's table (bench/cublas_gemms.cu): which counters hold the differences between
# ncu and `banklab trace` (docs/perf/trace_cublas_hopper.md, F9).
#   bench/experiments/hopper/ncu_counters.sh OUT_DIR       -> OUT_DIR/counters.csv (ncu --csv), metrics.txt
set -u
O=$(realpath -m "$1"); mkdir -p "$O"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); cd "$ROOT"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2 | head -1; ncu --version | tail -1; date -u; } | tee "$O/versions.txt"
nvcc -O2 -lineinfo -arch=sm_90 -o "$O/cublas_gemms" bench/cublas_gemms.cu -lcublas || exit 1
# Names with "shared" and a wavefront or conflict count, the conflict types, and the instruction counts.
ncu --query-metrics > "$O/all_metrics.txt" 2>&1
grep -oE "^(l1tex|sm|smsp)__\S+" "$O/all_metrics.txt" |
  grep -E "(shared.*(wavefront|conflict)|(wavefront|conflict).*shared|bank_conflicts_type|sass_inst_executed_op_(shared|ldsm|ldgsts))" |
  sort -u > "$O/metrics.txt"
echo "metrics: $(wc -l < "$O/metrics.txt")"
M=$(sed 's/$/.sum/' "$O/metrics.txt" | paste -sd,)
( cd "$O" && timeout 400 ncu --clock-control none --print-kernel-base mangled --metrics "$M" --csv --log-file "$O/counters.csv" ./cublas_gemms > "$O/ncu.log" 2>&1 )
echo "ncu rc=$? $(grep -c '' "$O/counters.csv") lines"; grep -i "error\|warn" "$O/ncu.log" "$O/counters.csv" | head -5
rm -f "$O/cublas_gemms"
