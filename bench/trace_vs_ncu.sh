#!/usr/bin/env bash
# Device script: `banklab trace` (trace + model) against Nsight Compute on the same launches.
#   bench/trace_vs_ncu.sh BUILD_DIR OUT_DIR
# BUILD_DIR: a configured build with the tracer (banklab, libbanklab_trace_inject.so, trace_demo).
# Programs: every lab kernel through its launcher (tools/trace/tests/lab_driver.cu built against
# labs/ = stubs and solutions/), the demo transposes, and PyTorch ops (bench/trace_torch_ops.py).
# Writes OUT_DIR/trace_vs_ncu.csv (one row per program and kernel) and the raw reports.
# Per kernel: ncu's smsp__inst_executed_op_shared_{ld,st}.sum must equal the traced warp
# instructions; l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum must equal the model's
# wavefronts where the SM is otherwise idle and be >= them on busy kernels (ncu over-counts there).
set -u
B=$(realpath "$1"); O=$(realpath -m "$2"); mkdir -p "$O"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BANKLAB=$B/tools/banklab
NVCC=${NVCC:-nvcc}
NCU=${NCU:-ncu}
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum

for v in stubs:labs solutions:solutions; do
  "$NVCC" -std=c++17 -O3 -lineinfo -arch=sm_90 -I "$ROOT/common/include" -I "$ROOT/${v#*:}" \
    "$ROOT/tools/trace/tests/lab_driver.cu" -o "$O/lab_driver_${v%%:*}" || exit 1
done

progs=(
  "labs_stubs|$O/lab_driver_stubs all 1 1"
  "labs_solutions|$O/lab_driver_solutions all 1 1"
  "demo_transpose|$B/tools/trace/tests/trace_demo 1024"
)
for op in matmul softmax layernorm sum transpose conv; do progs+=("torch_$op|python3 $ROOT/bench/trace_torch_ops.py $op"); done

for p in "${progs[@]}"; do
  name=${p%%|*}; cmd=${p#*|}
  echo "== $name: $cmd"
  # shellcheck disable=SC2086
  timeout 120 "$BANKLAB" trace --format json --out "$O/trace_$name.json" -- $cmd > "$O/run_$name.log" 2>&1 || echo "trace of $name failed (see run_$name.log)"
  tail -1 "$O/run_$name.log"
  # shellcheck disable=SC2086
  timeout 120 "$NCU" --metrics "$M" --csv --print-kernel-base mangled --print-units base $cmd > "$O/ncu_$name.csv" 2> "$O/ncu_$name.err" || echo "ncu of $name failed"
done

python3 - "$O" "${progs[@]}" <<'PY'
import csv, json, sys, collections
out = sys.argv[1]
rows = []
for p in sys.argv[2:]:
    name = p.split("|")[0]
    try:
        tr = json.load(open(f"{out}/trace_{name}.json"))
    except Exception as e:
        print(f"{name}: no trace ({e})"); continue
    traced = {k["kernel"]: k for k in tr["kernels"]}
    unmod = collections.Counter()
    for u in tr["unmodelled"]:
        unmod[u["kernel"]] += u["count"]
    ncu = collections.defaultdict(lambda: collections.Counter())
    launches = collections.Counter()
    text = open(f"{out}/ncu_{name}.csv").read().splitlines()
    start = next((i for i, l in enumerate(text) if l.startswith('"ID"')), None)
    if start is None:
        print(f"{name}: no ncu rows"); continue
    for r in csv.DictReader(text[start:]):
        k = r["Kernel Name"]
        v = r["Metric Value"].replace(",", "")
        try:
            ncu[k][r["Metric Name"]] += int(float(v))
        except ValueError:
            pass
        if r["Metric Name"].endswith("op_shared_ld.sum"):
            launches[k] += 1
    for k, m in ncu.items():
        n_ld, n_st = m["smsp__inst_executed_op_shared_ld.sum"], m["smsp__inst_executed_op_shared_st.sum"]
        w_ld = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
        w_st = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
        t = traced.get(k, {})
        t_nld, t_nst = t.get("load_instructions", 0), t.get("store_instructions", 0)
        t_wld, t_wst = t.get("load_wavefronts", 0), t.get("store_wavefronts", 0)
        if n_ld + n_st + t_nld + t_nst + unmod[k] == 0:
            continue  # no shared memory at all: nothing to compare
        inst_eq = (n_ld, n_st) == (t_nld, t_nst)
        if unmod[k]:
            verdict = "has unmodelled instructions (%d)" % unmod[k]
        elif not inst_eq:
            verdict = "INSTRUCTION COUNT DIFFERS"
        elif (w_ld, w_st) == (t_wld, t_wst):
            verdict = "equal"
        elif w_ld >= t_wld and w_st >= t_wst:
            verdict = "ncu >= trace (lower bound holds)"
        else:
            verdict = "NCU BELOW TRACE"
        rows.append(dict(program=name, kernel=k, launches=launches[k], ncu_ld_inst=n_ld, trace_ld_inst=t_nld,
                         ncu_st_inst=n_st, trace_st_inst=t_nst, ncu_ld_wavefronts=w_ld, trace_ld_wavefronts=t_wld,
                         ncu_st_wavefronts=w_st, trace_st_wavefronts=t_wst,
                         trace_minimum=t.get("minimum", 0), unmodelled=unmod[k], verdict=verdict))
with open(f"{out}/trace_vs_ncu.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["program"])
    w.writeheader()
    w.writerows(rows)
print(f"{len(rows)} kernels compared")
print(collections.Counter(r["verdict"] for r in rows))
PY
