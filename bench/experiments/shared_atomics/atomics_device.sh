#!/usr/bin/env bash
# Measure the shared atomics on the GPU machine, in one go:
#   bench/experiments/shared_atomics/atomics_device.sh OUT_DIR [SECONDS_FOR_NCU]
# 1. builds `banklab calibrate` (tools/calibrate alone) and, in the background, banklab and the
#    tracer (top level);
# 2. lists the Nsight Compute metrics that count shared-memory work and dumps the worker's SASS
#    (every banklab_cal_atom_* kernel, all of its instructions);
# 3. measures under ncu, chunks of 80 patterns: the fourth chunk of `--family atom --random 200`
#    (patterns 240-319, never measured before), then `--family atomop --random 200` (every chunk);
# 4. runs bench/trace_atomics.cu untraced, under `banklab trace` (the trace kept) and under ncu.
# Everything lands in OUT_DIR/atomics.tar.xz.
set -u
O=$(realpath -m "$1"); W="$O/w"; mkdir -p "$W"
BUDGET=${2:-300}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); cd "$ROOT"
pack() { tar cJf "$O/atomics.tar.xz" -C "$W" . ; ls -la "$O"; }
trap pack EXIT
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; nvcc --version | tail -2 | head -1
  ncu --version | tail -1; date -u; } > "$W/versions.txt" 2>&1; cat "$W/versions.txt"
t0=$(date +%s)
( cmake -S . -B build/gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 > "$W/configure_top.log" 2>&1 &&
  cmake --build build/gpu -j 8 --target banklab banklab_trace_inject > "$W/build_top.log" 2>&1; echo "top build rc=$? $(( $(date +%s) - t0 )) s" >> "$W/build_top.log" ) &
TOP=$!
cmake -S tools/calibrate -B build/cal -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 > "$W/configure.log" 2>&1 || { tail -30 "$W/configure.log"; exit 1; }
cmake --build build/cal -j 8 --target banklab-calibrate-standalone > "$W/build.log" 2>&1 || { grep -B2 -A12 -m3 "error" "$W/build.log"; exit 1; }
BL=$(find build/cal -name banklab-calibrate-standalone -type f | head -1)
echo "calibrate build: $(( $(date +%s) - t0 )) s ($BL)"

ncu --query-metrics > "$W/metrics_all.txt" 2>&1
M=$(python3 bench/ncu_shared_metrics.py "$W/metrics_all.txt")
echo "$M" | tr , '\n' > "$W/metrics_used.txt"; echo "metrics: $(wc -l < "$W/metrics_used.txt")"; rm -f "$W/metrics_all.txt"
cuobjdump -sass "$BL" > "$W/sass_all.txt" 2>&1
python3 - "$W/sass_all.txt" > "$W/sass_atom.txt" <<'PY'
import sys
keep = False
for line in open(sys.argv[1]):
    if 'Function :' in line: keep = 'banklab_cal_atom' in line
    if keep: print(line.rstrip())
PY
grep -c "Function" "$W/sass_atom.txt"; rm -f "$W/sass_all.txt"
$BL calibrate --family atom --random 200 --list > "$W/p_atom.txt"
$BL calibrate --family atomop --random 200 --list > "$W/p_atomop.txt"
python3 - "$W" <<'PY'
import sys
W = sys.argv[1]
def pairs(f):
    lines = open(f).read().splitlines()
    return [lines[i:i+2] for i in range(0, len(lines), 2)]
a = pairs(f"{W}/p_atom.txt")
with open(f"{W}/c_atom_3.txt", "w") as f:
    for p in a[240:320]: f.write("\n".join(p) + "\n")
b = pairs(f"{W}/p_atomop.txt")
for k in range(0, len(b), 80):
    with open(f"{W}/c_atomop_{k//80}.txt", "w") as f:
        for p in b[k:k+80]: f.write("\n".join(p) + "\n")
PY
ts=$(date +%s)
for P in "$W/c_atom_3.txt" "$W"/c_atomop_*.txt; do
  n=$(basename "$P" .txt); n=${n#c_}
  left=$(( BUDGET - ($(date +%s) - ts) )); [ $left -gt 10 ] || { echo "time spent: skip $n"; continue; }
  s=$(date +%s.%N)
  timeout $left ncu --clock-control none --cache-control none --metrics "$M" --csv --print-units base \
    --log-file "$W/raw_$n.csv" $BL calibrate --worker "$P" > "$W/run_$n.out" 2>&1
  echo "$n: rc=$? $(python3 -c "import time;print(f'{time.time()-$s:.1f}')") s for $(grep -c '^#' "$P") patterns"
done | tee "$W/timing.txt"

echo "== trace_atomics"
nvcc -std=c++17 -O2 -lineinfo -arch=sm_90 bench/trace_atomics.cu -o "$W/trace_atomics" || exit 1
cuobjdump -sass "$W/trace_atomics" | grep -E "Function|ATOMS|LDS|STS" > "$W/trace_atomics_sass.txt"
s=$(date +%s.%N); "$W/trace_atomics"; e=$(date +%s.%N); echo "untraced $(python3 -c "print(f'{$e-$s:.2f}')") s"
s=$(date +%s.%N); timeout 120 ncu --metrics "$M" --csv --print-units base --log-file "$W/atomics_ncu.csv" "$W/trace_atomics" > /dev/null 2>&1; e=$(date +%s.%N)
echo "ncu rc=$? $(python3 -c "print(f'{$e-$s:.2f}')") s"
echo "waiting for the top build"; wait $TOP; tail -2 "$W/build_top.log"
BT=build/gpu/tools/banklab
if [ -x $BT ]; then
  s=$(date +%s.%N); timeout 60 $BT trace --keep "$W/atomics.bltrace" --format json --out "$W/atomics_trace.json" -- "$W/trace_atomics"; e=$(date +%s.%N)
  echo "traced rc=$? $(python3 -c "print(f'{$e-$s:.2f}')") s"
  $BT trace --format text -- "$W/trace_atomics" > "$W/atomics_trace.txt" 2>&1
else
  grep -B2 -A12 -m3 "error" "$W/build_top.log"
fi
rm -f "$W/trace_atomics"
