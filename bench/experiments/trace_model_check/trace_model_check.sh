#!/usr/bin/env bash
# Device check after the first runs: `banklab calibrate --family` end to end (C++ counters and
# SASS check), and the cuBLAS cluster GEMMs traced again against ncu.
#   bench/experiments/trace_model_check/trace_model_check.sh BUILD_DIR OUT_DIR
set -u
B=$(realpath "$1"); O=$(realpath -m "$2"); mkdir -p "$O"; ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BL=$B/tools/banklab; PY=${PY:-/opt/torch/.venv/bin/python3}
for f in cpasync ldsm; do
  timeout 60 $BL calibrate --family $f --random 0 --out "$O/cal_$f.csv" 2>&1 | grep -v "^DIFFER\|^  " | tail -4
done
W=l1tex__data_pipe_lsu_wavefronts_mem_shared
M=$W.sum,${W}_op_ld.sum,${W}_op_st.sum,${W}_op_atom.sum,${W}_op_misc.sum,${W}_op_gmma.sum,${W}_op_ipa.sum
for i in shared_ld shared_st ldsm shared_stsm ldgsts shared_atom; do M=$M,smsp__sass_inst_executed_op_$i.sum; done
progs=(gemm_fp16 gemm_bf16 gemm_fp16_tall)
for p in "${progs[@]}"; do
  c="$PY $ROOT/bench/trace_torch_model.py $p"
  timeout 60 $BL trace --format json --out "$O/t_$p.json" -- $c > /dev/null 2>&1
  timeout 60 ncu --print-kernel-base mangled --metrics "$M" --csv --log-file "$O/n_$p.csv" $c > /dev/null 2>&1
done
python3 "$ROOT/bench/trace_ops_vs_ncu.py" "$O" "${progs[@]}" | cut -c1-260
