#!/usr/bin/env bash
# Runs bench/experiments/cpasync_source/cpasync_source_probe.cu under ncu on the GPU machine (see the .cu for why).
#   bench/experiments/cpasync_source/cpasync_source_probe.sh OUT_DIR
# Writes OUT_DIR/launches.txt (the probe's own list) and OUT_DIR/ncu.csv (raw ncu values).
set -eu
O=$(realpath -m "$1"); mkdir -p "$O"; ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
nvcc -arch=sm_90 -O2 -o "$O/probe" "$ROOT/bench/experiments/cpasync_source/cpasync_source_probe.cu"
cuobjdump -sass "$O/probe" | grep -E "Function|LDGSTS" > "$O/sass.txt" || true
W=l1tex__data_pipe_lsu_wavefronts_mem_shared
M=$W.sum,${W}_op_ld.sum,${W}_op_st.sum,${W}_op_atom.sum,${W}_op_misc.sum,${W}_op_gmma.sum,${W}_op_ipa.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum,smsp__inst_executed_op_ldgsts.sum
"$O/probe" > "$O/launches.txt"
ncu --clock-control none --metrics "$M" --csv --log-file "$O/ncu.csv" "$O/probe" > /dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$O/versions.txt"
ncu --version | tail -1 >> "$O/versions.txt"; nvcc --version | tail -1 >> "$O/versions.txt"
