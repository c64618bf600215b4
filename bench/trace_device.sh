#!/usr/bin/env bash
# Everything `banklab trace` needs measured on a GPU machine, in one go (the figures in
# docs/perf/trace_vs_ncu.md come from it):
#   bench/trace_device.sh OUT_DIR [BUILD_DIR]
# builds the tracer, runs its tests, traces the demo (keeping the binary trace as a fixture),
# measures the host analysis rate and the traced/untraced time of a lab workload, runs the trace
# as the unprivileged user nobody, and compares with Nsight Compute (bench/trace_vs_ncu.sh).
set -u
O=$(realpath -m "$1"); mkdir -p "$O"
B=$(realpath -m "${2:-build/trace}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc --version | tail -2 | head -1
  /usr/local/cuda/compute-sanitizer/compute-sanitizer --version | grep Version
  ncu --version | tail -1
  python3 -c "import torch; print('torch', torch.__version__)"
} > "$O/versions.txt" 2>&1
cat "$O/versions.txt"

cmake -S . -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 > "$O/configure.log" 2>&1 || { tail -30 "$O/configure.log"; exit 1; }
grep "banklab trace" "$O/configure.log"
cmake --build "$B" -j 16 --target banklab banklab_trace_inject trace_session_tests trace_demo trace_core_tests \
  trace_throughput > "$O/build.log" 2>&1 || { grep -B2 -A8 -m3 "error" "$O/build.log"; exit 1; }
echo "== smoke (BANKLAB_TRACE_DEBUG)"
BANKLAB_TRACE_DEBUG=1 timeout 30 "$B/tools/banklab" trace -- "$B/tools/trace/tests/trace_demo" 64 > "$O/smoke.txt" 2>&1
echo "rc=$?" >> "$O/smoke.txt"; tail -15 "$O/smoke.txt"
echo "== tests"
timeout 300 ctest --test-dir "$B" -R '^trace\.' --output-on-failure > "$O/ctest.log" 2>&1; tail -8 "$O/ctest.log"

echo "== demo"
timeout 60 "$B/tools/banklab" trace --keep "$O/trace_demo.bltrace" -- "$B/tools/trace/tests/trace_demo" 256 2>&1 | tee "$O/demo.txt" | head -40

echo "== host analysis rate"
"$B/trace/tests/trace_throughput" 50 | tee "$O/throughput.txt"

echo "== lab workload: untraced vs traced (wall seconds, 3 runs each)"
nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 -I common/include -I solutions tools/trace/tests/lab_driver.cu -o "$O/lab_driver" || exit 1
for mode in untraced traced; do
  for i in 1 2 3; do
    s=$(date +%s.%N)
    if [ $mode = untraced ]; then "$O/lab_driver" all 8 1 > /dev/null
    else timeout 60 "$B/tools/banklab" trace --out /dev/null -- "$O/lab_driver" all 8 1 2> "$O/lab_traced_$i.err"; fi
    e=$(date +%s.%N)
    echo "$mode run $i: $(python3 -c "print(f'{$e-$s:.3f}')") s"
  done
done | tee "$O/speed.txt"
cat "$O/lab_traced_1.err" | tee -a "$O/speed.txt"

echo "== unprivileged"
D=/tmp/bltrace; rm -rf $D; mkdir -p $D
cp "$B/tools/banklab" "$B/trace/libbanklab_trace_inject.so" "$B/trace/banklab_trace_patch.fatbin" \
   "$B/tools/trace/tests/trace_demo" $D/ && chmod -R a+rX $D
( cd /tmp && timeout 60 runuser -u nobody -- $D/banklab trace -- $D/trace_demo 256 ) > "$O/nobody.txt" 2>&1
echo "rc=$?" >> "$O/nobody.txt"; id nobody >> "$O/nobody.txt"; head -12 "$O/nobody.txt"; tail -3 "$O/nobody.txt"

echo "== trace vs ncu"
timeout 400 bash bench/trace_vs_ncu.sh "$B" "$O/cmp" > "$O/cmp.log" 2>&1; tail -30 "$O/cmp.log"
