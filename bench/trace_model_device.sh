#!/usr/bin/env bash
# Measure the instruction families beyond LDS/STS on the GPU machine, in one go:
#   bench/trace_model_device.sh OUT_DIR [SECONDS_FOR_NCU]
# builds banklab (calibrate + trace), lists the Nsight Compute metrics that count shared-memory
# work, checks the calibrate kernels' SASS, measures every family's patterns (ldsm, stsm,
# cpasync, atom: `banklab calibrate --family F --list`, run by `banklab calibrate --worker` under
# ncu with every such metric, chunks of 80 patterns round-robin over the families until the time
# is spent), and traces bench/trace_ops.cu with `banklab trace` and with ncu.
# Everything lands in OUT_DIR/model1.tar.xz.
set -u
O=$(realpath -m "$1"); W="$O/w"; mkdir -p "$W"
BUDGET=${2:-300}
ROOT=$(cd "$(dirname "$0")/.." && pwd); cd "$ROOT"
B=build/gpu; BL=$B/tools/banklab
pack() { tar cJf "$O/model1.tar.xz" -C "$W" . ; ls -la "$O"; }
trap pack EXIT
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; nvcc --version | tail -2 | head -1
  ncu --version | tail -1; date -u; } > "$W/versions.txt" 2>&1; cat "$W/versions.txt"
t0=$(date +%s)
cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 > "$W/configure.log" 2>&1 || { tail -30 "$W/configure.log"; exit 1; }
cmake --build $B -j 16 --target banklab banklab_trace_inject > "$W/build.log" 2>&1 || { grep -B2 -A12 -m3 "error" "$W/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
SI=/usr/local/cuda/compute-sanitizer/include
cp $SI/sanitizer_patching.h "$W/" 2>/dev/null; grep -n -i -E "INSTRUCTION_|MEMORY_DEVICE_FLAG|Matrix|Memcpy|Bulk|Remote|Atom" $SI/sanitizer_callbacks.h $SI/sanitizer.h > "$W/sanitizer_enums.txt" 2>&1

ncu --query-metrics > "$W/metrics_all.txt" 2>&1
M=$(python3 bench/ncu_shared_metrics.py "$W/metrics_all.txt")
echo "$M" | tr , '\n' > "$W/metrics_used.txt"; echo "metrics: $(wc -l < "$W/metrics_used.txt")"
cuobjdump -sass $BL > "$W/sass_all.txt" 2>&1
python3 - "$W/sass_all.txt" > "$W/sass.txt" <<'PY'
import sys
keep = False
for line in open(sys.argv[1]):
    if 'Function :' in line: keep = 'banklab_cal_' in line; 
    if keep and ('Function' in line or any(k in line for k in ('LDS', 'STS', 'LDSM', 'STSM', 'LDGSTS', 'ATOM', 'RED', 'DEPBAR'))): print(line.rstrip())
PY
rm -f "$W/sass_all.txt"
for f in ldsm stsm cpasync atom; do
  $BL calibrate --family $f --random 200 --list > "$W/p_$f.txt"
  python3 - "$W/p_$f.txt" "$W/p_${f}_" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
pairs = [lines[i:i+2] for i in range(0, len(lines), 2)]
for k in range(0, len(pairs), 80):
    with open(f"{sys.argv[2]}{k//80}.txt", "w") as f:
        for p in pairs[k:k+80]: f.write("\n".join(p) + "\n")
PY
done
ts=$(date +%s)
for c in 0 1 2 3; do
  for f in ldsm stsm cpasync atom; do
    P="$W/p_${f}_$c.txt"; [ -f "$P" ] || continue
    left=$(( BUDGET - ($(date +%s) - ts) )); [ $left -gt 10 ] || { echo "time spent: skip $f chunk $c"; continue; }
    s=$(date +%s.%N)
    timeout $left ncu --clock-control none --cache-control none --metrics "$M" --csv --print-units base \
      --log-file "$W/raw_${f}_$c.csv" $BL calibrate --worker "$P" > "$W/run_${f}_$c.out" 2>&1
    echo "$f chunk $c: rc=$? $(python3 -c "import time;print(f'{time.time()-$s:.1f}')") s for $(grep -c '^#' "$P") patterns"
  done
done | tee "$W/timing.txt"

echo "== trace_ops"
nvcc -std=c++17 -O2 -lineinfo -arch=sm_90 bench/trace_ops.cu -o "$W/trace_ops" || exit 1
s=$(date +%s.%N); "$W/trace_ops"; e=$(date +%s.%N); echo "untraced $(python3 -c "print(f'{$e-$s:.2f}')") s"
s=$(date +%s.%N); timeout 60 $BL trace --keep "$W/ops.bltrace" --format json --out "$W/ops_trace.json" -- "$W/trace_ops"; e=$(date +%s.%N)
echo "traced $(python3 -c "print(f'{$e-$s:.2f}')") s"
$BL trace --format text -- "$W/trace_ops" > "$W/ops_trace.txt" 2>&1
s=$(date +%s.%N); timeout 120 ncu --metrics "$M" --csv --print-units base --log-file "$W/ops_ncu.csv" "$W/trace_ops" > /dev/null 2>&1; e=$(date +%s.%N)
echo "ncu $(python3 -c "print(f'{$e-$s:.2f}')") s"
rm -f "$W/trace_ops"
