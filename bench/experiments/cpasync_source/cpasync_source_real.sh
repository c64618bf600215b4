#!/usr/bin/env bash
# What keeping cp.async's source banks changes on real kernels, and what it costs, on the GPU
# machine:   bench/experiments/cpasync_source/cpasync_source_real.sh OUT_DIR OLD_TREE [BUILD_DIR]
# Builds `banklab trace` from this tree (BUILD_DIR, default build/gpu) and from OLD_TREE (a
# checkout of the tracer before it kept sources, into /tmp/build_old); traces trace_mma 512 and
# the PyTorch ops that use cp.async (bench/trace_torch_model.py: conv_fp16, sdpa_mem, sdpa) with
# both and with ncu; counts, in the new trace, the cp.async lanes that had no source (zero-fill);
# times `banklab trace` old and new on trace_mma 512 and trace_ops (5 interleaved rounds).
# Writes OUT_DIR/{compare_new.txt,compare_old.txt,lanes.txt,times.txt}.
set -u
O=$(realpath -m "$1"); mkdir -p "$O"; OLD=$(realpath "$2")
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); cd "$ROOT"
B=$(realpath -m "${3:-build/gpu}"); BN=$B/tools/banklab; BO=/tmp/build_old/tools/banklab
PY=${PY:-/opt/torch/.venv/bin/python3}
W=/tmp/cpsrc_real; rm -rf "$W"; mkdir -p "$W/new" "$W/old"
t0=$(date +%s)
for pair in "$ROOT:$B" "$OLD:/tmp/build_old"; do
  src=${pair%%:*}; bd=${pair#*:}
  { cmake -S "$src" -B "$bd" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 &&
    cmake --build "$bd" -j "$(nproc)" --target banklab banklab_trace_inject; } > "$W/build_$(basename "$bd").log" 2>&1 ||
    { tail -30 "$W/build_$(basename "$bd").log"; exit 1; }
done
echo "builds: $(( $(date +%s) - t0 )) s"
nvcc -std=c++17 -O2 -lineinfo -arch=sm_90 bench/trace_mma.cu -o "$W/trace_mma" || exit 1
nvcc -std=c++17 -O2 -lineinfo -arch=sm_90 bench/trace_ops.cu -o "$W/trace_ops" || exit 1
Wd=l1tex__data_pipe_lsu_wavefronts_mem_shared
M=$Wd.sum,${Wd}_op_ld.sum,${Wd}_op_st.sum,${Wd}_op_atom.sum,${Wd}_op_misc.sum,${Wd}_op_gmma.sum,${Wd}_op_ipa.sum
for i in shared_ld shared_st ldsm shared_stsm ldgsts shared_atom; do M=$M,smsp__sass_inst_executed_op_$i.sum; done
declare -A cmd=([mma]="$W/trace_mma 512" [conv_fp16]="$PY bench/trace_torch_model.py conv_fp16"
                [sdpa_mem]="$PY bench/trace_torch_model.py sdpa_mem" [sdpa]="$PY bench/trace_torch_model.py sdpa")
progs="mma conv_fp16 sdpa_mem sdpa"
for p in $progs; do
  c=${cmd[$p]}
  timeout 90 "$BN" trace --keep "$W/new/$p.bltrace" --format json --out "$W/new/t_$p.json" -- $c > /dev/null 2>&1
  timeout 90 "$BO" trace --format json --out "$W/old/t_$p.json" -- $c > /dev/null 2>&1
  timeout 120 ncu --print-kernel-base mangled --metrics "$M" --csv --log-file "$W/new/n_$p.csv" $c > /dev/null 2>&1
  cp "$W/new/n_$p.csv" "$W/old/n_$p.csv"
  echo "$p: $(( $(date +%s) - t0 )) s"
done
python3 bench/trace_ops_vs_ncu.py "$W/new" $progs > "$O/compare_new.txt" 2>&1
python3 bench/trace_ops_vs_ncu.py "$W/old" $progs > "$O/compare_old.txt" 2>&1
echo "== cp.async kernels: new (old) against ncu"
paste -d'\n' <(grep -E "cp_i:[1-9]" "$O/compare_new.txt") <(grep -E "cp_i:[1-9]" "$O/compare_old.txt" | sed 's/^/   old: /') | cut -c1-260
python3 - "$W/new" $progs <<'PY' | tee "$O/lanes.txt"
# cp.async records of the new traces: active lanes, lanes with a source, executed instructions.
import struct, sys, collections
d = sys.argv[1]
for p in sys.argv[2:]:
    try: b = open(f"{d}/{p}.bltrace", "rb").read()
    except OSError as e: print(p, e); continue
    o = 8; u64 = lambda: struct.unpack_from("<Q", b, o)[0]
    o += 8; n = u64(); o += 8
    for _ in range(n): o += 8 + u64()
    nk = u64(); o += 8; names = []
    for _ in range(nk):
        ln = u64(); names.append(b[o + 8:o + 8 + ln].decode(errors="replace")); o += 8 + ln + 4 + 8 + 8
    nr = u64(); o += 8
    per = collections.defaultdict(lambda: [0, 0, 0, 0, collections.Counter()])
    for _ in range(nr):
        k, cnt = struct.unpack_from("<IQ", b, o); o += 12
        pc, mask, kind, width, flags, res = struct.unpack_from("<QIBBBB", b, o); offs = struct.unpack_from("<32I", b, o + 16); o += 144
        if kind != 1: continue
        act = [i for i in range(32) if mask >> i & 1]; known = [i for i in act if offs[i] >> 29 & 1]
        s = per[names[k]]; s[0] += cnt; s[1] += cnt * len(act); s[2] += cnt * len(known); s[3] += (flags & 0x10) != 0
        s[4][width] += cnt
    for name, s in per.items():
        print(f"{p:10s} {name[:70]:70s} cp.async {s[0]} (widths {dict(s[4])}), active lanes {s[1]}, with a source {s[2]}, flagged records {s[3]}")
PY
echo "== timing: banklab trace, new vs old, 5 interleaved rounds (s)"
for r in 1 2 3 4 5; do
  for v in new old; do
    bl=$BN; [ $v = old ] && bl=$BO
    for p in "mma:$W/trace_mma 512" "ops:$W/trace_ops"; do
      s=$(date +%s.%N); "$bl" trace --format json --out /tmp/cpsrc_t.json -- ${p#*:} > /dev/null 2>&1; e=$(date +%s.%N)
      echo "$r $v ${p%%:*} $(python3 -c "print(f'{$e-$s:.3f}')")"
    done
  done
done > "$O/times.txt"
python3 - "$O/times.txt" <<'PY'
import sys, statistics, collections
t = collections.defaultdict(list)
for l in open(sys.argv[1]): r, v, p, s = l.split(); t[(p, v)].append(float(s))
for p in ("mma", "ops"):
    print(p, " ".join(f"{v}: median {statistics.median(t[(p, v)]):.3f} s {sorted(t[(p, v)])}" for v in ("new", "old")))
PY
ls -la "$W/new"/*.bltrace
echo "total: $(( $(date +%s) - t0 )) s"
