"""Compare `banklab trace --format json` with ncu's CSV per kernel (mangled names).
    python3 bench/trace_ops_vs_ncu.py OUT_DIR PROGRAM...   (reads OUT_DIR/t_P.json, OUT_DIR/n_P.csv)
Prints one row per kernel: instructions and wavefronts, traced vs ncu, by kind (ld = LDS + LDSM,
st = STS + STSM, cp = LDGSTS, at = ATOMS), and writes OUT_DIR/trace_ops_vs_ncu.csv."""
import csv, json, sys, collections

W = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
I = "smsp__sass_inst_executed_op_"
out, progs = sys.argv[1], sys.argv[2:]

def ncu(path):
    per = collections.defaultdict(lambda: collections.defaultdict(float))
    lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    r = csv.reader(lines)
    hdr = next(r); c = {h: i for i, h in enumerate(hdr)}
    for f in r:
        if f[0] == "ID": continue
        v = f[c["Metric Value"]].replace(",", "")
        per[f[c["Kernel Name"]]][f[c["Metric Name"]]] += float(v) if v else 0.0
    res = {}
    for k, m in per.items():
        g = lambda n: int(round(m.get(n + ".sum", 0)))
        other = sum(g(W + "_op_" + x) for x in ("ld", "st", "atom", "misc", "gmma", "ipa"))
        res[k] = dict(ld_i=g(I + "shared_ld") + g(I + "ldsm"), st_i=g(I + "shared_st") + g(I + "shared_stsm"),
                      cp_i=g(I + "ldgsts"), at_i=g(I + "shared_atom"),
                      ld_w=g(W + "_op_ld"), st_w=g(W + "_op_st"), cp_w=g(W) - other, at_w=g(W + "_op_atom"))
    return res

rows = []
for p in progs:
    try:
        t = json.load(open(f"{out}/t_{p}.json")); n = ncu(f"{out}/n_{p}.csv")
    except Exception as e:
        print(f"{p}: {e}"); continue
    un = collections.defaultdict(list)
    for u in t["unmodelled"]: un[u["kernel"]].append(f'{u["what"].split(" (")[0]}:{u["count"]}')
    tk = {k["kernel"]: k for k in t["kernels"]}
    for name in sorted(set(tk) | set(n)):
        k = tk.get(name, {}); m = n.get(name, {})
        tr = dict(ld_i=k.get("load_instructions", 0), st_i=k.get("store_instructions", 0),
                  cp_i=k.get("async_copy_instructions", 0), at_i=k.get("atomic_instructions", 0),
                  ld_w=k.get("load_wavefronts", 0), st_w=k.get("store_wavefronts", 0),
                  cp_w=k.get("async_copy_wavefronts", 0), at_w=k.get("atomic_wavefronts", 0))
        if not any(tr.values()) and not any(m.values()) and not un.get(name): continue
        row = dict(program=p, kernel=name[:90])
        for key in tr: row["trace_" + key] = tr[key]; row["ncu_" + key] = m.get(key, "")
        row["inst_equal"] = all(tr[x] == m.get(x) for x in ("ld_i", "st_i", "cp_i", "at_i"))
        row["wave_equal"] = {x: tr[x] == m.get(x) for x in ("ld_w", "st_w", "cp_w", "at_w")}
        row["unmodelled"] = " ".join(un.get(name, []))
        rows.append(row)
        print(f'{p:14s} {name[:60]:60s} inst {"=" if row["inst_equal"] else "DIFF"} '
              + " ".join(f'{x}:{tr[x]}/{m.get(x,"-")}' for x in tr) + ("  [" + row["unmodelled"] + "]" if row["unmodelled"] else ""))
with open(f"{out}/trace_ops_vs_ncu.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["program"])
    w.writeheader(); [w.writerow(r) for r in rows]
