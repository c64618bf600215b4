#!/usr/bin/env bash
# Device script: `banklab trace` against Nsight Compute on kernels that use ldmatrix, stmatrix,
# cp.async and shared atomics (bench/trace_ops.cu, bench/trace_mma.cu, PyTorch ops of
# bench/trace_torch_model.py), plus the timings (untraced, traced, ncu with the four
# shared-memory metrics) and a PyTorch model step traced and untraced.
#   bench/trace_ops_vs_ncu.sh BUILD_DIR OUT_DIR
set -u
B=$(realpath "$1"); O=$(realpath -m "$2"); mkdir -p "$O"
ROOT=$(cd "$(dirname "$0")/.." && pwd); BL=$B/tools/banklab
PY=${PY:-/opt/torch/.venv/bin/python3}
W=l1tex__data_pipe_lsu_wavefronts_mem_shared
M=$W.sum,${W}_op_ld.sum,${W}_op_st.sum,${W}_op_atom.sum,${W}_op_misc.sum,${W}_op_gmma.sum,${W}_op_ipa.sum
for i in shared_ld shared_st ldsm shared_stsm ldgsts shared_atom; do M=$M,smsp__sass_inst_executed_op_$i.sum; done
M4=${W}_op_ld.sum,${W}_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
nvcc -std=c++17 -O2 -lineinfo -arch=sm_90 "$ROOT/bench/trace_ops.cu" -o "$O/trace_ops" || exit 1
nvcc -std=c++17 -O2 -lineinfo -arch=sm_90 "$ROOT/bench/trace_mma.cu" -o "$O/trace_mma" || exit 1
declare -A cmd=(
  [ops]="$O/trace_ops" [mma]="$O/trace_mma 512"
)
for op in gemm_fp16 gemm_bf16 gemm_fp16_tall sdpa sdpa_causal sdpa_mem layernorm conv_fp16 histc sort index_add; do
  cmd[$op]="$PY $ROOT/bench/trace_torch_model.py $op"
done
now() { date +%s.%N; }
dt() { python3 -c "print(f'{$2-$1:.2f}')"; }
progs=(ops mma gemm_fp16 gemm_bf16 gemm_fp16_tall sdpa sdpa_causal sdpa_mem layernorm conv_fp16 histc sort index_add)
echo "program,untraced_s,traced_s,ncu_full_s,ncu4_s" > "$O/times.csv"
timed=" mma sdpa gemm_fp16 "
for p in "${progs[@]}"; do
  c=${cmd[$p]}; tu=""; t4=""
  if [[ $timed == *" $p "* ]]; then s=$(now); timeout 60 $c > "$O/run_$p.out" 2>&1; e=$(now); tu=$(dt $s $e); fi
  s=$(now); timeout 90 $BL trace --format json --out "$O/t_$p.json" -- $c > "$O/trace_$p.out" 2>&1; e=$(now); tt=$(dt $s $e)
  s=$(now); timeout 120 ncu --print-kernel-base mangled --metrics "$M" --csv --log-file "$O/n_$p.csv" $c > /dev/null 2>&1; e=$(now); tn=$(dt $s $e)
  if [[ $timed == *" $p "* ]]; then
    s=$(now); timeout 120 ncu --metrics "$M4" --csv --log-file "$O/n4_$p.csv" $c > /dev/null 2>&1; e=$(now); t4=$(dt $s $e)
  fi
  echo "$p,$tu,$tt,$tn,$t4" | tee -a "$O/times.csv"
done
echo "== model step"
for i in 1; do
  s=$(now); timeout 120 $PY "$ROOT/bench/trace_torch_model.py" step 2>&1 | tail -1; e=$(now); echo "untraced run $i: $(dt $s $e) s"
  s=$(now); timeout 200 $BL trace --format json --out "$O/t_step.json" -- $PY "$ROOT/bench/trace_torch_model.py" step 2>&1 | tail -2; e=$(now); echo "traced run $i: $(dt $s $e) s"
done | tee "$O/step.txt"
python3 "$ROOT/bench/trace_ops_vs_ncu.py" "$O" "${progs[@]}" | tee "$O/compare.txt"
