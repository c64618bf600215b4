#!/usr/bin/env bash
# Device script: `banklab trace` (trace + model) against Nsight Compute on the same launches.
#   bench/trace_vs_ncu.sh BUILD_DIR OUT_DIR
# BUILD_DIR: a configured build with the tracer (banklab, libbanklab_trace_inject.so, trace_demo).
# Programs: every lab kernel through its launcher (tools/trace/tests/lab_driver.cu built against
# labs/ = stubs and solutions/), the demo transposes, and PyTorch ops (bench/trace_torch_ops.py).
# Writes OUT_DIR/trace_vs_ncu.csv (one row per program and kernel) and the raw reports.
# Per kernel: ncu's smsp__inst_executed_op_shared_{ld,st}.sum (and the SASS-level
# smsp__sass_inst_executed_op_shared_{ld,st}.sum) must equal the traced warp instructions; l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum must equal the model's
# wavefronts where the SM is otherwise idle and be >= them on busy kernels (ncu over-counts there).
set -u
B=$(realpath "$1"); O=$(realpath -m "$2"); mkdir -p "$O"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BANKLAB=$B/tools/banklab
NVCC=${NVCC:-nvcc}
NCU=${NCU:-ncu}
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum

for v in stubs:labs solutions:solutions; do
  "$NVCC" -std=c++17 -O3 -lineinfo -arch=sm_90 -I "$ROOT/common/include" -I "$ROOT/${v#*:}" \
    "$ROOT/tools/trace/tests/lab_driver.cu" -o "$O/lab_driver_${v%%:*}" || exit 1
done

# Every known-bad kernel (solutions/NN_name/cases/bad/*.patch, each a diff against that lab's
# solution kernel.cu, written out by grader/selftest/materialize.py): the solutions with that
# one lab's file replaced, driven for that lab alone. Built in parallel.
bad=()
labs=$(python3 "$ROOT/python/banklab_run.py" -m banklab.lab.labs list "$ROOT")   # "NN NN_name" a line
for f in "$ROOT"/solutions/*/cases/bad/*.patch; do
  lab=$(basename "$(dirname "$f")"); n=$(basename "$f" .patch); tree="$O/bad/$lab-$n"
  num=$(awk -v f="$lab" '$2 == f {print $1}' <<<"$labs")   # its lab number
  mkdir -p "$tree" && cp -r "$ROOT/solutions/." "$tree/" &&
    python3 "$ROOT/grader/selftest/materialize.py" --case "$f" --lab-dir "$ROOT/solutions/$lab" \
      --out "$tree/$lab/kernel.cu" || { echo "known-bad $lab/$n does not apply"; continue; }
  bad+=("$lab|$n|$num")
done
printf '%s\n' "${bad[@]}" | xargs -P 16 -I{} sh -c 'lab=${1%%|*}; n=${1#*|}; n=${n%%|*}; "$2" -std=c++17 -O3 -lineinfo -arch=sm_90 -I "$3/common/include" -I "$4/bad/$lab-$n" "$3/tools/trace/tests/lab_driver.cu" -o "$4/bad/$lab-$n/driver" > "$4/bad/$lab-$n/build.log" 2>&1 || echo "known-bad $lab/$n does not build"' _ {} "$NVCC" "$ROOT" "$O"

progs=(
  "labs_stubs|$O/lab_driver_stubs all 1 1"
  "labs_solutions|$O/lab_driver_solutions all 1 1"
  "demo_transpose|$B/tools/trace/tests/trace_demo 1024"
)
# BANKLAB_TRACE_ONLY_BAD=1: the known-bad kernels alone.
[ "${BANKLAB_TRACE_ONLY_BAD:-0}" = 1 ] && progs=()
for b in "${bad[@]}"; do
  lab=${b%%|*}; rest=${b#*|}; n=${rest%%|*}; num=${rest#*|}
  [ -x "$O/bad/$lab-$n/driver" ] && progs+=("bad_${num}_$n|$O/bad/$lab-$n/driver ${num} 1 1")
done
[ "${BANKLAB_TRACE_ONLY_BAD:-0}" = 1 ] || for op in matmul softmax softmax_wide layernorm sum sum_all cumsum sort transpose conv; do progs+=("torch_$op|python3 $ROOT/bench/trace_torch_ops.py $op"); done

for p in "${progs[@]}"; do
  name=${p%%|*}; cmd=${p#*|}
  echo "== $name: $cmd"
  # shellcheck disable=SC2086
  timeout 120 "$BANKLAB" trace --format json --out "$O/trace_$name.json" -- $cmd > "$O/run_$name.log" 2>&1 || echo "trace of $name failed (see run_$name.log)"
  tail -1 "$O/run_$name.log"
  # shellcheck disable=SC2086
  timeout 120 "$NCU" --metrics "$M" --csv --print-kernel-base mangled --print-units base $cmd > "$O/ncu_$name.csv" 2> "$O/ncu_$name.err" || echo "ncu of $name failed"
done

python3 "$ROOT/bench/trace_vs_ncu_table.py" "$O" "${progs[@]}"
