#!/usr/bin/env bash
# `banklab trace` against the H200's measurements of cp.async's global side, on the GPU machine:
#   bench/experiments/cpasync_source/cpasync_source_trace.sh OUT_DIR [BUILD_DIR]
# 1. builds banklab, the injection library and the trace tests (BUILD_DIR, default build/gpu)
#    and runs `ctest -R '^trace\.'`;
# 2. traces each of bench/experiments/cpasync_source/cpasync_source_probe.cu's launches ALONE with `banklab trace` and
#    compares the traced LDGSTS instructions and wavefronts with
#    common/data/probe_h200_cpasync_source{,_w16}.csv (or the CSV files named in $ROWS) row by row (and, for each row, what the tracer
#    before it kept sources said: the model with lane i's source at 16 * i, `banklab predict`);
#    keeps a trace of all 42 launches in one run (OUT_DIR/cpasync_source.bltrace);
# 3. traces bench/trace_ops.cu and runs it under ncu (bench/trace_ops_vs_ncu.py).
# Writes OUT_DIR/{build.log,ctest.log,probe_vs_trace.txt,ops_compare.txt,ops_vs_ncu.csv,versions.txt}
# and cpasync_source.bltrace; the per-launch files stay in $WORK (default /tmp/cpsrc_work).
set -u
O=$(realpath -m "$1"); mkdir -p "$O"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); cd "$ROOT"
B=$(realpath -m "${2:-build/gpu}"); BL=$B/tools/banklab
t0=$(date +%s)
{ cmake -S . -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build "$B" -j "$(nproc)" --target banklab banklab_trace_inject trace_core_tests trace_session_tests; } \
  > "$O/build.log" 2>&1 || { grep -B2 -A12 -m3 -E "error|Error" "$O/build.log"; tail -20 "$O/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"

echo "== the probe, each launch traced alone"
W=${WORK:-/tmp/cpsrc_work}; rm -rf "$W"; mkdir -p "$W"
nvcc -arch=sm_90 -O2 -lineinfo -o "$W/probe" bench/experiments/cpasync_source/cpasync_source_probe.cu || exit 1
N=$("$W/probe" | grep -c '^launch')
for n in $(seq 0 $((N - 1))); do
  timeout 60 "$BL" trace --format json --out "$W/t_$n.json" -- "$W/probe" "$n" > "$W/launch_$n.txt" 2> "$W/err_$n.txt"
done
timeout 60 "$BL" trace --keep "$O/cpasync_source.bltrace" --format json --out "$W/t_all.json" -- "$W/probe" > /dev/null 2>&1
python3 - "$W" "$BL" "$N" ${ROWS:-common/data/probe_h200_cpasync_source.csv common/data/probe_h200_cpasync_source_w16.csv} <<'PY' | tee "$O/probe_vs_trace.txt"
import csv, json, os, re, subprocess, sys
w, bl, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = {r["id"]: r for data in sys.argv[4:] if os.path.exists(data) for r in csv.DictReader(open(data))}
mode = {"16i": "16i", "wi": "wi", "16(i^8)": "16xor8", "32i": "32i", "128i": "128i"}
new_ok = old_ok = shared_ok = 0
# The probe's launch order (bench/experiments/cpasync_source/cpasync_source_probe.cu), checked against its own launch line.
pats = ["stride1", "share2", "share4", "lanes0and31", "even", "stride8", "stride1_half0"]
m3 = ("16i", "wi", "16(i^8)")
order = [f"cpsrc_{p}_w{wd}_src{mode[s]}" for wd, ms in ((4, m3), (8, m3), (16, ("16i", "32i", "128i", "16(i^8)")))
         for s in ms for p in pats]
assert len(order) == count, f"the probe made {count} launches, this script knows {len(order)}"
measured = 0
for n in range(count):
    line = open(f"{w}/launch_{n}.txt").read()
    m = re.search(r"launch (\d+): (\S+) src=(\S+) \| cpasync (\d+) ([0-9a-f]+) (.*)", line)
    rid = order[n]
    if m and (int(m.group(1)) != n or rid != f"cpsrc_{m.group(2)}_w{m.group(4)}_src{mode[m.group(3)]}"):
        print(f"launch {n}: the launch line {line!r} is not {rid}"); continue
    if rid not in rows:
        print(f"{n:2d} {rid}: no measured row"); continue
    r = rows[rid]; measured += 1
    try:
        t = json.load(open(f"{w}/t_{n}.json"))
    except Exception as e:
        print(f"{n:2d} {rid}: no trace ({e}): {open(f'{w}/err_{n}.txt').read()[-400:]!r}"); continue
    ks = [k for k in t["kernels"] if k["async_copy_instructions"]]
    inst = sum(k["async_copy_instructions"] for k in ks); wf = sum(k["async_copy_wavefronts"] for k in ks)
    worst = ks[0]["lines"][0]["worst"] if ks and ks[0]["lines"] else ""
    f = worst.split()
    same_shared = len(f) == 35 and int(f[2], 16) == int(r["mask"], 16) and \
        [int(x) for x, on in zip(f[3:], range(32)) if int(r["mask"], 16) >> on & 1] == \
        [int(x) for x, on in zip(r["offsets"].split(), range(32)) if int(r["mask"], 16) >> on & 1]
    old = subprocess.run([bl, "predict"], input=worst + "\n", capture_output=True, text=True).stdout.split()
    old = int(old[0]) if old else -1
    want_w, want_i = int(r["wavefronts"]), int(r["instructions"])
    ok = inst == want_i and wf == want_w
    new_ok += ok; old_ok += old == want_w; shared_ok += same_shared
    print(f"{n:2d} {rid:32s} ncu {want_i}/{want_w:2d}  trace {inst}/{wf:2d} {'=' if ok else 'DIFF'}  "
          f"16*i rule {old:2d} {'=' if old == want_w else 'DIFF'}  shared side {'=' if same_shared else 'DIFF'}"
          + ("" if len(t["unmodelled"]) == 0 else f"  unmodelled {t['unmodelled']}"))
print(f"traced with sources: {new_ok}/{measured} rows equal to ncu (instructions and wavefronts); "
      f"the 16 * i rule (the tracer before): {old_ok}/{measured}; recorded shared side equal: {shared_ok}/{measured}")
PY

echo "== ctest -R '^trace\.'"
ctest --test-dir "$B" -R '^trace\.' --output-on-failure > "$O/ctest.log" 2>&1; echo "ctest rc=$?"
grep -E "tests passed|Failed|Skipped|Not Run" "$O/ctest.log" | tail -8

echo "== trace_ops: banklab trace against ncu"
Wd=l1tex__data_pipe_lsu_wavefronts_mem_shared
M=$Wd.sum,${Wd}_op_ld.sum,${Wd}_op_st.sum,${Wd}_op_atom.sum,${Wd}_op_misc.sum,${Wd}_op_gmma.sum,${Wd}_op_ipa.sum
for i in shared_ld shared_st ldsm shared_stsm ldgsts shared_atom; do M=$M,smsp__sass_inst_executed_op_$i.sum; done
nvcc -std=c++17 -O2 -lineinfo -arch=sm_90 bench/trace_ops.cu -o "$W/trace_ops" || exit 1
timeout 60 "$BL" trace --format json --out "$W/t_ops.json" -- "$W/trace_ops" > /dev/null 2>&1
timeout 120 ncu --print-kernel-base mangled --metrics "$M" --csv --log-file "$W/n_ops.csv" "$W/trace_ops" > /dev/null 2>&1
python3 bench/trace_ops_vs_ncu.py "$W" ops > "$O/ops_compare.txt" 2>&1; cp "$W/trace_ops_vs_ncu.csv" "$O/ops_vs_ncu.csv"
grep -i cpasync "$O/ops_compare.txt"; echo "kernels, instructions equal: $(grep -c ' inst = ' "$O/ops_compare.txt")/$(grep -c '^ops' "$O/ops_compare.txt")"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; ncu --version | tail -1; } > "$O/versions.txt" 2>&1
echo "total: $(( $(date +%s) - t0 )) s"
