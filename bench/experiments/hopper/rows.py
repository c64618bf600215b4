"""Turns what bench/experiments/hopper/device.sh brought back into the data files:
    python3 bench/experiments/hopper/rows.py DIR GPU_TAG      (DIR: hopper.tgz unpacked; GPU_TAG e.g. h200)
writes common/data/hopper_<GPU_TAG>_tma.csv and hopper_<GPU_TAG>_wgmma.csv: one row per launch,
in launch order, the probe's own description of it (its "launch N: ..." line under ncu, the same
process ncu measured), then every counter of bench/experiments/hopper/metrics.txt under its ncu name; and
hopper_<GPU_TAG>_tma_layout.csv from the shared-memory images the TMA probe dumped (DIR/dumps):
for every box, rows 0-8 (those it has) and its last row, where the first byte of each of the row's 16-byte
chunks landed (found by its element's value, row * 256 + column for 2-byte elements,
row * 65536 + column for 4-byte ones, each unique in the image)."""
import csv
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DIR, TAG = sys.argv[1], sys.argv[2]
METRICS = [m.strip() for m in open(os.path.join(ROOT, "bench/experiments/hopper/metrics.txt")) if m.strip()]


def launches(path):
    out = {}
    for line in open(path):
        m = re.match(r"launch (\d+): (\S+) (\S+) (.*)$", line.rstrip())
        if not m:
            continue
        fields = dict(re.findall(r"(\w+)=(\S+)", m.group(4)))
        check = "OK" if " OK " in " " + m.group(4) + " " else "FAIL" if "FAIL" in m.group(4) else "ran"
        out[int(m.group(1))] = (m.group(2), m.group(3), fields, check)
    return out


def counters(path):
    rows = list(csv.reader(l for l in open(path) if l.startswith('"')))
    head, per = rows[0], {}
    for r in rows[1:]:
        d = dict(zip(head, r))
        per.setdefault(int(d["ID"]), {})[d["Metric Name"]] = d["Metric Value"].replace(",", "")
    return per


def write(tag, fields):
    got, per = launches(os.path.join(DIR, f"ncu_{tag}.out")), counters(os.path.join(DIR, f"ncu_{tag}.csv"))
    assert sorted(got) == sorted(per), f"{tag}: {len(got)} launches printed, {len(per)} profiled"
    path = os.path.join(ROOT, "common", "data", f"hopper_{TAG}_{tag}.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["launch", "kernel", "id"] + fields + ["check"] + METRICS)
        for n in sorted(got):
            kernel, ident, fl, check = got[n]
            w.writerow([n, kernel, ident] + [fl.get(k, "") for k in fields] + [check] +
                       [per[n].get(m, "") for m in METRICS])
    print(f"{path}: {len(got)} rows")


def layout():
    path = os.path.join(ROOT, "common", "data", f"hopper_{TAG}_tma_layout.csv")
    n = 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "swizzle", "row_bytes", "row", "byte", "offset"])
        for name in sorted(os.listdir(os.path.join(DIR, "dumps"))):
            m = re.match(r"tma_(none|sw32|sw64|sw128)_e(\d)_i(\d+)_r(\d+)_x(\d+)_y(\d+)\.bin$", name)
            sw, esize, inner, rows, x, y = m.group(1), *map(int, m.groups()[1:])
            data = open(os.path.join(DIR, "dumps", name), "rb").read()
            fmt = "H" if esize == 2 else "I"
            words = struct.unpack(f"<{len(data) // esize}{fmt}", data)
            where = {}
            for i, v in enumerate(words):
                where.setdefault(v, []).append(i * esize)
            for r in sorted(set(range(min(9, rows))) | {rows - 1}):
                for byte in range(0, inner, 16):
                    col = x + byte // esize
                    v = (y + r) * 256 + col if esize == 2 else (y + r) * 65536 + col
                    hits = where.get(v, [])
                    assert len(hits) == 1, f"{name}: row {r} byte {byte} found {len(hits)} times"
                    w.writerow([name[:-4], sw.replace("sw", "") if sw != "none" else "none", inner, r, byte, hits[0]])
                    n += 1
    print(f"{path}: {n} rows")


write("tma", ["swizzle", "esize", "inner", "rows", "x", "y", "bytes", "footprint"])
write("wgmma", ["image", "declared", "lbo", "sbo", "swap", "iters"])
layout()
