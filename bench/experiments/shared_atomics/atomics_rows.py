#!/usr/bin/env python3
"""Turn what bench/experiments/shared_atomics/atomics_device.sh measured into rows of common/data/calibration_*.csv.

  atomics_rows.py --ops LISTING CHUNK.txt:RAW.csv [...] > rows.csv

Each CHUNK.txt is a pattern list (`banklab calibrate --list` format) that one ncu run measured
(launch k = pattern k), RAW.csv that run's `ncu --csv` log. LISTING is the current
`banklab calibrate --family F --list` output: each row's op is the op it gives the pattern's id
(the model's op; the worker picks its kernel by width and the id's last part). The counters are
those tools/calibrate/results.cpp's metrics_for() names for shared atomics: wavefronts
`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum`, conflicts
`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum`, instructions
`smsp__inst_executed_op_shared_atom.sum`. Every launch's kernel name is checked against the
pattern's kernel (banklab_cal_atom_w<width>[_<variant>]).
"""
import argparse, csv, io, re, sys

WF = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"
BC = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"
INST = "smsp__inst_executed_op_shared_atom.sum"


def patterns(path):
    lines = open(path).read().splitlines()
    out = []
    for i in range(0, len(lines), 2):
        t = lines[i + 1].split()
        out.append((lines[i][2:].strip(), t[0], int(t[1]), t[2], t[3:35]))
    return out


def launches(path):
    rows = [l for l in open(path).read().splitlines() if l.startswith('"')]
    r = csv.reader(io.StringIO("\n".join(rows)))
    hdr = next(r)
    ix = {h: i for i, h in enumerate(hdr)}
    by_id = {}
    for f in r:
        if f[0] == "ID":
            continue
        d = by_id.setdefault(int(f[ix["ID"]]), {"kernel": f[ix["Kernel Name"]]})
        d[f[ix["Metric Name"]]] = float(f[ix["Metric Value"]].replace(",", ""))
    return [by_id[k] for k in sorted(by_id)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", required=True)
    ap.add_argument("--gpu", default="NVIDIA H200")
    ap.add_argument("pairs", nargs="+")
    a = ap.parse_args()
    op_of = {pid: op for pid, op, *_ in patterns(a.ops)}
    w = sys.stdout
    w.write("id,op,width,mask,offsets,wavefronts,bank_conflicts,instructions,gpu\n")
    for pair in a.pairs:
        lst, raw = pair.split(":")
        P, L = patterns(lst), launches(raw)
        if len(P) != len(L):
            sys.exit(f"{raw}: {len(L)} launches for {len(P)} patterns")
        for (pid, _, width, mask, offs), l in zip(P, L):
            last = pid.rsplit("_", 1)[1]
            kernel = f"banklab_cal_atom_w{width}" + ("" if last == "atom" else "_" + last)
            if not re.search(re.escape(kernel) + r"\(", l["kernel"]):
                sys.exit(f"{pid}: ncu ran {l['kernel']}, expected {kernel}")
            v = [int(round(l[m])) for m in (WF, BC, INST)]
            w.write(f"{pid},{op_of[pid]},{width},{mask},{' '.join(offs)},{v[0]},{v[1]},{v[2]},{a.gpu}\n")


if __name__ == "__main__":
    main()
