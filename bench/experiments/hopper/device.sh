#!/usr/bin/env bash
# Measures TMA and wgmma's shared-memory side on the GPU machine, in one go:
#   bench/experiments/hopper/device.sh OUT_DIR [SECONDS]
# 1. builds bench/experiments/hopper/{tma,wgmma}_probe.cu for sm_90a and keeps their SASS (the opcodes of
#    each kernel);
# 2. runs both probes without a profiler: each case's check (OK/FAIL), the TMA's shared images;
# 3. lists every Nsight Compute metric (`ncu --query-metrics`, kept); with SCAN=1 profiles a few
#    cases of each probe with every counter whose name speaks of shared memory, TMA, bulk copies,
#    gmma, mbarriers or the LSU, and lists those that moved;
# 4. profiles every case with the counters of bench/experiments/hopper/metrics.txt.
# Everything lands in OUT_DIR/hopper.tgz (raw ncu CSV; bench/experiments/hopper/rows.py turns it into the data).
set -u
O=$(realpath -m "$1"); mkdir -p "$O"
BUDGET=${2:-400}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd); cd "$ROOT"
t0=$(date +%s)
left() { echo $(( BUDGET - ($(date +%s) - t0) )); }
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; nvcc --version | tail -2 | head -1
  ncu --version | tail -1; date -u; } > "$O/versions.txt" 2>&1; cat "$O/versions.txt"
G="-gencode arch=compute_90a,code=sm_90a"
nvcc $G -O2 -o "$O/tma_probe" bench/experiments/hopper/tma_probe.cu -lcuda > "$O/build_tma.log" 2>&1 &
nvcc $G -O2 -o "$O/wgmma_probe" bench/experiments/hopper/wgmma_probe.cu > "$O/build_wgmma.log" 2>&1 &
ncu --query-metrics > "$O/metrics_all.txt" 2>&1 &
wait
ls -la "$O"
for p in tma_probe wgmma_probe; do
  [ -x "$O/$p" ] || { echo "build of $p failed"; cat "$O/build_${p%_probe}.log"; continue; }
  cuobjdump -sass "$O/$p" | grep -E "Function|UTMA|UBLK|HGMMA|WARPGROUP|SYNCS|LDS|STS|LDSM|ATOMS|UTMACCTL" > "$O/sass_$p.txt" 2>&1
done
mkdir -p "$O/dumps"
( cd "$O" && DUMP_DIR="$O/dumps" timeout 60 ./tma_probe > launches_tma.txt 2>&1; echo "rc=$?" >> launches_tma.txt )
( cd "$O" && timeout 60 ./wgmma_probe > launches_wgmma.txt 2>&1; echo "rc=$?" >> launches_wgmma.txt )
tail -n 3 "$O/launches_tma.txt" "$O/launches_wgmma.txt"; grep -c FAIL "$O/launches_tma.txt" "$O/launches_wgmma.txt"
echo "built and checked: $(( $(date +%s) - t0 )) s"

NCU="ncu --clock-control none --cache-control none --csv"
# The counters: bench/experiments/hopper/metrics.txt (the brief's shared-memory counters, then those the scan
# below found moving on 2026-11-25, on an H200). SCAN=1 repeats the scan: every counter (type
# Counter) whose name speaks of shared memory, TMA, bulk copies, gmma, mbarriers, the LSU or
# syncs, on a few cases of each probe; metrics_picked.txt lists those that moved.
if [ "${SCAN:-0}" = 1 ]; then
  python3 - "$O/metrics_all.txt" > "$O/metrics_scan.txt" <<'PY'
import re, sys
pat = re.compile(r"(shared|gmma|tma|bulk|dsm|data_bank|mbar|lsu|async|sync)")
seen = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 2 and f[1] == "Counter" and pat.search(f[0]) and f[0] not in seen:
        seen.append(f[0])
print("\n".join(n + ".sum" for n in seen))
PY
  SCANM=$(paste -sd, "$O/metrics_scan.txt")
  FILTER="tma_sw128_e2_i128_r64_x0,tma_none_e2_i128_r8_x0" $NCU --metrics "$SCANM" --log-file "$O/scan_tma.csv" "$O/tma_probe" > /dev/null 2>&1
  FILTER="wgmma_ss_sw128_k,wgmma_rs_none_k" $NCU --metrics "$SCANM" --log-file "$O/scan_wgmma.csv" "$O/wgmma_probe" > /dev/null 2>&1
  python3 - "$O" > "$O/metrics_picked.txt" <<'PY'
import csv, sys, collections
O = sys.argv[1]
vals = collections.defaultdict(set)
for tag in ("tma", "wgmma"):
    rows = list(csv.reader(l for l in open(f"{O}/scan_{tag}.csv") if l.startswith('"')))
    h = rows[0]
    for r in rows[1:]:
        d = dict(zip(h, r))
        vals[d["Metric Name"]].add(d["Metric Value"].replace(",", ""))
print("\n".join(sorted(m for m, v in vals.items() if len(v) > 1 or (v - {"0", "0.0", ""}))))
PY
  echo "scan: $(wc -l < "$O/metrics_scan.txt") counters, $(wc -l < "$O/metrics_picked.txt") moved"
fi
ALL=$(paste -sd, bench/experiments/hopper/metrics.txt)
for p in tma_probe wgmma_probe; do
  timeout $(( $(left) / 2 )) $NCU --metrics "$ALL" --log-file "$O/ncu_${p%_probe}.csv" "$O/$p" > "$O/ncu_${p%_probe}.out" 2>&1
  echo "ncu $p rc=$? ($(( $(date +%s) - t0 )) s)"
done
rm -f "$O/tma_probe" "$O/wgmma_probe"
gzip -9 "$O/metrics_all.txt"
echo "total $(( $(date +%s) - t0 )) s"
# One archive: the device machine hands back only a few files.
( cd "$O" && tar czf ../hopper.tgz . ) && rm -rf "$O"/* && mv "$O/../hopper.tgz" "$O/" && ls -la "$O"
