#!/usr/bin/env bash
# Device script: what `banklab trace` costs against Nsight Compute with the four shared-memory
# metrics, on the same programs, interleaved, medians of several runs (docs/perf/trace_vs_ncu.md,
# "Speed"), and whether a change to the tracer changed any result.
#   bench/trace_speed.sh OUT_DIR [BUILD_DIR]
# Environment:
#   BASE=DIR     another checkout (the tracer before a change): its libbanklab_trace_inject.so is
#                built too and every program is also traced with it ("traced_base"); the per-line
#                reports (json) of both tracers are compared, program by program.
#   ROUNDS=5     rounds of the compiled programs; TORCH_ROUNDS=3 rounds of the PyTorch ones.
#   PY=python3   with torch (default /opt/torch/.venv/bin/python3).
#   PROGS, TORCH (the programs timed, compiled and PyTorch ones), NCU_PROGS (those also run under
#   ncu each round), STEP_NCU=1 (the model step once under ncu at the end), EXTRA (programs traced
#   once with each tracer, for the comparison only), BUF1_PROGS (also traced by the base tracer
#   with BANKLAB_TRACE_BUFFER_MB=1: what its 256 MiB buffers cost). Names: the keys of `cmd` below.
# Programs: lab_driver (the solutions, every lab kernel, 4 repeats: 36 launches of 9 kernels),
# trace_ops (17 kernels: ldmatrix, stmatrix, cp.async, shared atomics), trace_mma 512 (cp.async +
# ldmatrix + mma.sync tile, 4 launches), trace_demo 1024 (2 transposes), a cuBLAS fp16 GEMM through
# PyTorch and a PyTorch model step (bench/trace_torch_model.py gemm_fp16 / step); bench/trace_many.cu,
# 32 distinct kernels (the size of the issue's held-out program): many (each launched once),
# many4 (4 times each: 128 launches), many_big (once each, problems 4x larger).
# Each round runs, per program: untraced, traced, traced_base (with BASE), ncu4 (the PyTorch step:
# no ncu). Wall seconds of the whole process, CUDA start-up included. Writes OUT_DIR/times.csv,
# OUT_DIR/summary.txt (medians, ratios), OUT_DIR/stats.txt (BANKLAB_TRACE_STATS lines and
# banklab's program/analysis split), OUT_DIR/compare.txt, and the reports in OUT_DIR/reports.
set -u
O=$(realpath -m "$1"); mkdir -p "$O/reports" "$O/logs"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(realpath -m "${2:-$ROOT/build/gpu}")
PY=${PY:-/opt/torch/.venv/bin/python3}
ROUNDS=${ROUNDS:-5}; TORCH_ROUNDS=${TORCH_ROUNDS:-3}
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
cd "$ROOT" || exit 1
{
  date -u
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc --version | tail -2 | head -1
  ncu --version | tail -1
  $PY -c "import torch; print('torch', torch.__version__)"
} > "$O/versions.txt" 2>&1
cat "$O/versions.txt"

# The programs, compiled beside the tracer's build.
P=$O/progs; mkdir -p "$P"
( nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 -I common/include -I solutions tools/trace/tests/lab_driver.cu -o "$P/lab_driver" &&
  nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 -I common/include -I labs tools/trace/tests/lab_driver.cu -o "$P/lab_driver_stubs" &&
  nvcc -std=c++17 -O2 -lineinfo -arch=sm_90 bench/trace_ops.cu -o "$P/trace_ops" &&
  nvcc -std=c++17 -O2 -lineinfo -arch=sm_90 bench/trace_mma.cu -o "$P/trace_mma" &&
  nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 bench/trace_many.cu -o "$P/trace_many" ) > "$O/logs/progs.log" 2>&1 &
progs_pid=$!
if [ -n "${BASE:-}" ]; then
  ( cmake -S "$BASE" -B "$BASE/build/speed_base" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 &&
    cmake --build "$BASE/build/speed_base" -j 6 --target banklab_trace_inject ) > "$O/logs/base_build.log" 2>&1 &
  base_pid=$!
fi
cmake -S . -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 > "$O/logs/configure.log" 2>&1 || { tail -30 "$O/logs/configure.log"; exit 1; }
cmake --build "$B" -j 16 --target banklab banklab_trace_inject trace_demo trace_session_tests trace_core_tests \
  > "$O/logs/build.log" 2>&1 || { grep -B2 -A12 -m3 "error" "$O/logs/build.log"; exit 1; }
wait $progs_pid || { tail -20 "$O/logs/progs.log"; exit 1; }
BL=$B/tools/banklab
BASELIB=""
if [ -n "${BASE:-}" ]; then
  if wait $base_pid; then
    # The tracer's core is trace/ (tools/trace/ before issue 34): the base commit's place.
    for d in trace tools/trace; do
      [ -f "$BASE/build/speed_base/$d/libbanklab_trace_inject.so" ] && BASELIB=$BASE/build/speed_base/$d/libbanklab_trace_inject.so
    done
  else
    echo "the base tracer did not build:"; grep -B2 -A12 -m3 "error" "$O/logs/base_build.log"
  fi
fi
echo "built in $(elapsed) s"

echo "== tests (ctest -R ^trace\\.)"
timeout 120 ctest --test-dir "$B" -R '^trace\.' > "$O/logs/ctest.log" 2>&1; tail -4 "$O/logs/ctest.log"

declare -A cmd=(
  [lab_driver]="$P/lab_driver all 1 4"
  [lab_driver8]="$P/lab_driver all 8 1"
  [lab_stubs]="$P/lab_driver_stubs all 1 1"
  [trace_ops]="$P/trace_ops"
  [trace_mma]="$P/trace_mma 512"
  [trace_demo]="$B/tools/trace/tests/trace_demo 1024"
  [many]="$P/trace_many 1 1"
  [many4]="$P/trace_many 4 1"
  [many_big]="$P/trace_many 1 4"
  [torch_gemm]="$PY $ROOT/bench/trace_torch_model.py gemm_fp16"
  [torch_step]="$PY $ROOT/bench/trace_torch_model.py step"
)
for op in sdpa sdpa_mem conv_fp16 sort layernorm; do cmd[torch_$op]="$PY $ROOT/bench/trace_torch_model.py $op"; done
PROGS=${PROGS:-lab_driver trace_ops trace_mma trace_demo}
TORCH=${TORCH:-torch_gemm torch_step}
NCU_PROGS=" ${NCU_PROGS:-lab_driver trace_ops trace_mma trace_demo torch_gemm} "
BUF1_PROGS=" ${BUF1_PROGS:-} "
EXTRA=${EXTRA:-}
M4=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
now() { date +%s.%N; }
echo "program,variant,round,seconds,rc" > "$O/times.csv"
# one PROGRAM VARIANT ROUND: runs it once, appends its wall time.
one() {
  local p=$1 v=$2 r=$3 c=${cmd[$1]} s e rc tag=$1.$2.$3
  s=$(now)
  case $v in
    untraced) timeout 120 $c > "$O/logs/$tag.out" 2> "$O/logs/$tag.err" ;;
    traced) BANKLAB_TRACE_STATS=1 timeout 120 "$BL" trace --format json --out "$O/reports/$tag.json" -- $c \
              > "$O/logs/$tag.out" 2> "$O/logs/$tag.err" ;;
    traced_base) BANKLAB_TRACE_INJECT=$BASELIB timeout 120 "$BL" trace --format json --out "$O/reports/$tag.json" -- $c \
              > "$O/logs/$tag.out" 2> "$O/logs/$tag.err" ;;
    traced_base_1mb) BANKLAB_TRACE_BUFFER_MB=1 BANKLAB_TRACE_INJECT=$BASELIB timeout 120 "$BL" trace --format json \
              --out "$O/logs/$tag.json" -- $c > "$O/logs/$tag.out" 2> "$O/logs/$tag.err" ;;
    ncu4) timeout 100 ncu --metrics "$M4" --csv --log-file "$O/logs/$tag.csv" $c > "$O/logs/$tag.out" 2> "$O/logs/$tag.err" ;;
  esac
  rc=$?; e=$(now)
  echo "$p,$v,$r,$(python3 -c "print(f'{$e-$s:.3f}')"),$rc" | tee -a "$O/times.csv"
}
variants="untraced traced"
[ -n "$BASELIB" ] && variants="$variants traced_base"
echo "== compiled programs, $ROUNDS rounds"
# The variants of program $1 in a round.
variants_of() {
  echo "$variants"
  [ -n "$BASELIB" ] && [[ $BUF1_PROGS == *" $1 "* ]] && echo traced_base_1mb
  [[ $NCU_PROGS == *" $1 "* ]] && echo ncu4
}
for r in $(seq 1 "$ROUNDS"); do
  for p in $PROGS; do
    for v in $(variants_of $p); do one $p $v $r; done
  done
done
echo "== PyTorch, $TORCH_ROUNDS rounds ($(elapsed) s so far)"
# LIMIT (seconds, default 430): no new round starts after it (a call on the GPU machine has 600).
LIMIT=${LIMIT:-430}
for r in $(seq 1 "$TORCH_ROUNDS"); do
  [ "$(elapsed)" -gt "$LIMIT" ] && { echo "no PyTorch round $r: $(elapsed) s"; break; }
  for p in $TORCH; do
    for v in $(variants_of $p); do one $p $v $r; done
  done
done
if [ "${STEP_NCU:-1}" = 1 ] && [ "$(elapsed)" -lt $((LIMIT - 40)) ]; then
  echo "== PyTorch model step under ncu (once)"; one torch_step ncu4 1
fi
for p in $EXTRA; do
  [ "$(elapsed)" -gt "$LIMIT" ] && { echo "not compared: $p and after ($(elapsed) s)"; break; }
  for v in $variants; do [ $v = untraced ] || one $p $v 1; done
done
for f in "$O"/logs/*.traced*.err; do echo "== $(basename "$f" .err)"; grep "banklab trace" "$f" | grep -v "^banklab trace: .*exited"; done > "$O/stats.txt"
grep -H "^step:" "$O"/logs/torch_step.*.out > "$O/step_inner.txt" 2>/dev/null
python3 "$ROOT/bench/trace_speed_summary.py" "$O" | tee "$O/summary.txt"
echo "done in $(elapsed) s"
