"""Turns what bench/hopper/device.sh brought back into the data files:
    python3 bench/hopper/rows.py DIR GPU_TAG      (DIR: hopper.tgz unpacked; GPU_TAG e.g. h200)
writes common/data/hopper_<GPU_TAG>_tma.csv and hopper_<GPU_TAG>_wgmma.csv: one row per launch,
in launch order, the probe's own description of it (its "launch N: ..." line under ncu, the same
process ncu measured), then every counter of bench/hopper/metrics.txt under its ncu name."""
import csv
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIR, TAG = sys.argv[1], sys.argv[2]
METRICS = [m.strip() for m in open(os.path.join(ROOT, "bench/hopper/metrics.txt")) if m.strip()]


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


write("tma", ["swizzle", "esize", "inner", "rows", "x", "y", "bytes", "footprint"])
write("wgmma", ["image", "declared", "lbo", "sbo", "swap", "iters"])
