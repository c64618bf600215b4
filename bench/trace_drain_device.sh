#!/usr/bin/env bash
# Issue 31 item 8 on the GPU machine: `banklab trace` keeps every record of a cuBLAS-sized program
# with its default buffer (the overflow ring drained by the host while the kernel runs), checked
# against Nsight Compute's instruction-level count, and its time against ncu's, paired in one call.
#   bench/trace_drain_device.sh        (logs and reports under $OUT, or ./out)
# Builds `banklab` and the trace tests, runs the trace tests (CPU and GPU), then on
# bench/cublas_gemms.cu: the plain program, `banklab trace` with the default buffer, with a
# 1 MiB device buffer (almost every record through the ring), ncu, and the default trace again.
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out"; ROOT=$PWD; B=${TRACE_BUILD:-/tmp/td}
since() { awk "BEGIN{printf \"%.2f\", $EPOCHREALTIME - $1}"; }
cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$ROOT/.carry/cli11 \
  > $out/td_configure.log 2>&1 || { tail -n 20 $out/td_configure.log; exit 1; }
nvcc -O2 -lineinfo -arch=sm_90 -o $B/cublas_gemms bench/cublas_gemms.cu -lcublas &
cmake --build $B -j 16 --target banklab banklab_trace_inject trace_core_tests trace_session_tests > $out/td_build.log 2>&1 ||
  { grep -B2 -A10 -m3 error $out/td_build.log; exit 1; }
wait
ctest --test-dir $B -L trace --output-on-failure 2>&1 | tail -n 6
BL=$B/tools/banklab; P=$B/cublas_gemms
t=$EPOCHREALTIME; (cd $B && ./cublas_gemms > /dev/null); echo "plain program: $(since $t) s"
run_trace() {  # name, buffer MiB ("" for the default)
  t=$EPOCHREALTIME
  (cd $B && env ${2:+BANKLAB_TRACE_BUFFER_MB=$2} BANKLAB_TRACE_STATS=1 "$BL" trace --format json --out $out/t_$1.json -- ./cublas_gemms > $out/tlog_$1.txt 2>&1)
  echo "trace $1 (buffer ${2:-default}): rc=$? $(since $t) s"
}
run_trace default ""
run_trace small 1
t=$EPOCHREALTIME
(cd $B && timeout 300 ncu --clock-control none --print-kernel-base mangled --metrics sm__sass_l1tex_pipe_lsu_wavefronts_mem_shared.sum \
  --csv --log-file $out/ncu.csv ./cublas_gemms > $out/ncu.log 2>&1); echo "ncu: rc=$? $(since $t) s"
run_trace default2 ""
python3 - $out <<'PY'
import csv, json, sys
o = sys.argv[1]
rows = [l for l in open(f"{o}/ncu.csv", errors="replace") if l.startswith('"')]
ncu = sum(float(r["Metric Value"].replace(",", "")) for r in csv.DictReader(rows))
for n in ("default", "small", "default2"):
    j = json.load(open(f"{o}/t_{n}.json"))
    w = sum(k.get("wavefronts", 0) for k in j["kernels"])
    print(f"trace {n}: {len(j['kernels'])} kernels, {w} wavefronts, dropped {j['dropped']}; ncu instruction-level {ncu:.0f}: "
          f"{'equal' if w == ncu else f'differ by {w - ncu:+.0f}'}")
PY
python3 bench/trace_vs_sass.py $out/t_default.json $out/ncu.csv > $out/table.txt 2>&1; grep -c equal $out/table.txt | sed 's/^/kernel rows equal to ncu: /'
grep -h "stats" $out/tlog_default.txt $out/tlog_small.txt | cut -c1-400
