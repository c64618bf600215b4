#!/usr/bin/env bash
# `banklab trace` of the cuBLAS program of issue 24's table beside every shared-memory counter of
# Nsight Compute, its instruction-level ones (sm__sass_*: what ncu says each executed instruction
# costs) included, in one device call; bench/trace_vs_sass.py compares them per kernel and op.
#   bench/experiments/hopper/trace_vs_sass.sh OUT_DIR     -> OUT_DIR/table.txt, OUT_DIR/t.json, OUT_DIR/counters.csv
set -u
O=$(realpath -m "$1"); mkdir -p "$O"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); cd "$ROOT"
B=$ROOT/build/tc
( cmake -S . -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$ROOT/.carry/cli11" > "$O/configure.log" 2>&1 &&
  cmake --build "$B" -j 16 --target banklab banklab_trace_inject > "$O/build.log" 2>&1 ) &
bash bench/experiments/hopper/ncu_counters.sh "$O" > "$O/ncu_counters.log" 2>&1   # builds its own program
wait
BL=$B/tools/banklab
[ -x "$BL" ] || { tail -20 "$O/configure.log" "$O/build.log"; exit 1; }
nvcc -O2 -lineinfo -arch=sm_90 -o "$O/cublas_gemms" bench/cublas_gemms.cu -lcublas || exit 1
export BANKLAB_TRACE_BUFFER_MB=1024
( cd "$O" && "$BL" trace --format json --out "$O/t.json" -- ./cublas_gemms > "$O/trace.log" 2>&1 ); echo "trace rc=$?"
( cd "$O" && "$BL" trace --format predict --out "$O/t.predict" -- ./cublas_gemms > /dev/null 2>&1 )
grep -c "^# global source banks.* z" "$O/t.predict" | sed "s/^/instructions with a zero-filling lane: /"
python3 bench/trace_vs_sass.py "$O/t.json" "$O/counters.csv" | tee "$O/table.txt"
rm -f "$O/cublas_gemms"; gzip -f "$O/t.predict"
