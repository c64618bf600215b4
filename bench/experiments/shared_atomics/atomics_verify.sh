#!/usr/bin/env bash
# Check the shared-atomic model end to end on the GPU machine (after bench/experiments/shared_atomics/atomics_device.sh):
#   bench/experiments/shared_atomics/atomics_verify.sh OUT_DIR
# 1. `banklab calibrate --family atomop --random 0` by the C++ path: SASS check with cuobjdump,
#    ncu, comparison with the model (the summary line and every difference);
# 2. PyTorch's histc (bench/trace_torch_model.py histc: kernelHistogram1D keeps a float histogram
#    in shared memory, a compare-and-swap loop) under `banklab trace` and under ncu.
# Everything lands in OUT_DIR/verify.tar.xz.
set -u
O=$(realpath -m "$1"); W="$O/v"; mkdir -p "$W"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); cd "$ROOT"
PY=${PY:-/opt/torch/.venv/bin/python3}
pack() { tar cJf "$O/verify.tar.xz" -C "$W" . ; ls -la "$O"; }
trap pack EXIT
t0=$(date +%s)
( cmake -S . -B build/gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 > "$W/configure_top.log" 2>&1 &&
  cmake --build build/gpu -j 8 --target banklab banklab_trace_inject > "$W/build_top.log" 2>&1; echo "top build rc=$? $(( $(date +%s) - t0 )) s" >> "$W/build_top.log" ) &
TOP=$!
cmake -S tools/calibrate -B build/cal -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 > "$W/configure.log" 2>&1 || { tail -30 "$W/configure.log"; exit 1; }
cmake --build build/cal -j 8 --target banklab-calibrate-standalone > "$W/build.log" 2>&1 || { grep -B2 -A12 -m3 "error" "$W/build.log"; exit 1; }
BL=build/cal/banklab-calibrate-standalone
echo "== calibrate --family atomop --random 0"
s=$(date +%s); timeout 200 $BL calibrate --family atomop --random 0 --out "$W/atomop_named.csv" --log-dir "$W/cal_logs" > "$W/calibrate.txt" 2>&1
echo "rc=$? $(( $(date +%s) - s )) s"; grep -E "patterns match|SASS|sass|error" "$W/calibrate.txt" | tail -5
cp "$W/cal_logs/sass.txt" "$W/" 2>/dev/null; rm -rf "$W/cal_logs"
wait $TOP; tail -1 "$W/build_top.log"
BT=build/gpu/tools/banklab
W2=l1tex__data_pipe_lsu_wavefronts_mem_shared
M=${W2}_op_ld.sum,${W2}_op_st.sum,${W2}_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
for i in shared_ld shared_st shared_atom; do M=$M,smsp__inst_executed_op_$i.sum; done
echo "== histc"
timeout 120 $BT trace --format json --out "$W/histc_trace.json" -- $PY bench/trace_torch_model.py histc > "$W/histc_trace.out" 2>&1; echo "trace rc=$?"
timeout 120 ncu --print-kernel-base mangled --metrics "$M" --csv --log-file "$W/histc_ncu.csv" $PY bench/trace_torch_model.py histc > /dev/null 2>&1; echo "ncu rc=$?"
python3 - "$W" <<'PY'
import csv, io, json, sys
W = sys.argv[1]
t = json.load(open(f"{W}/histc_trace.json"))
rows = [l for l in open(f"{W}/histc_ncu.csv").read().splitlines() if l.startswith('"')]
r = csv.reader(io.StringIO("\n".join(rows))); hdr = next(r); ix = {h: i for i, h in enumerate(hdr)}
n = {}
for f in r:
    d = n.setdefault(f[ix["Kernel Name"]], {})
    m = f[ix["Metric Name"]]; d[m] = d.get(m, 0) + float(f[ix["Metric Value"]].replace(",", ""))
for k in t["kernels"]:
    if "Histogram" not in k["kernel"]: continue
    d = n.get(k["kernel"], {})
    print(k["kernel"][:60])
    print("  trace: atom_i", k["atomic_instructions"], "atom_w", k["atomic_wavefronts"], "ld_i", k["load_instructions"], "ld_w", k["load_wavefronts"])
    print("  ncu:   atom_i", d.get("smsp__inst_executed_op_shared_atom.sum"), "atom_w", d.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"),
          "ld_i", d.get("smsp__inst_executed_op_shared_ld.sum"), "ld_w", d.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
          "atom_conflicts", d.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"))
PY
