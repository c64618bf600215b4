"""Issue 24's table from one run of bench/experiments/hopper/trace_cublas.sh:
    python3 bench/experiments/hopper/trace_cublas_rows.py RUN_DIR [--csv OUT.csv]
RUN_DIR holds, per program P, Nsight Compute's CSV (n_P.csv, --print-kernel-base mangled) and the
trace's JSON report (t_P.json). Per kernel (summed over its launches): ncu's shared-memory
wavefronts (all, and by op), its instruction counts, TMA and gmma counters, beside the trace's.
Prints a text table; with --csv writes every figure (docs/perf/trace_cublas_hopper_h*.csv)."""
import csv
import json
import os
import sys
from collections import defaultdict

W = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
NCU = {
    "ncu_wavefronts": W + ".sum", "ncu_ld": W + "_op_ld.sum", "ncu_st": W + "_op_st.sum",
    "ncu_atom": W + "_op_atom.sum", "ncu_misc": W + "_op_misc.sum", "ncu_gmma": W + "_op_gmma.sum",
    "ncu_ipa": W + "_op_ipa.sum", "ncu_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "ncu_bank_reads": "l1tex__data_bank_reads.sum", "ncu_bank_writes": "l1tex__data_bank_writes.sum",
    "ncu_inst_lds": "smsp__sass_inst_executed_op_shared_ld.sum", "ncu_inst_sts": "smsp__sass_inst_executed_op_shared_st.sum",
    "ncu_inst_ldsm": "smsp__sass_inst_executed_op_ldsm.sum", "ncu_inst_stsm": "smsp__sass_inst_executed_op_shared_stsm.sum",
    "ncu_inst_ldgsts": "smsp__sass_inst_executed_op_ldgsts.sum", "ncu_inst_atom": "smsp__sass_inst_executed_op_shared_atom.sum",
    "ncu_inst_gmma": "sm__sass_inst_executed_op_shared_gmma.sum", "ncu_inst_tma_ld": "sm__sass_inst_executed_op_tma_ld.sum",
    "ncu_inst_tma_st": "sm__sass_inst_executed_op_tma_st.sum",
    "ncu_tma_ld_global_bytes": "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum",
    "ncu_tma_st_global_bytes": "l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum",
}
TRACE = ["warp_instructions", "wavefronts", "minimum", "load_instructions", "load_wavefronts", "store_instructions",
         "store_wavefronts", "async_copy_instructions", "async_copy_wavefronts", "atomic_instructions",
         "atomic_wavefronts", "wgmma_instructions", "wgmma_wavefronts", "wgmma_bytes", "tma_load_instructions",
         "tma_load_bytes", "tma_load_unknown", "tma_store_instructions", "tma_store_bytes", "tma_store_unknown"]


def number(v):
    v = v.replace(",", "").strip()
    try:
        return float(v)
    except ValueError:
        return None


def read_ncu(path):
    kernels = defaultdict(lambda: defaultdict(float))
    launches = defaultdict(set)
    if not os.path.exists(path):
        return kernels, launches
    lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    for row in csv.DictReader(lines):
        k = row.get("Kernel Name", "")
        launches[k].add(row.get("ID"))
        v = number(row.get("Metric Value", ""))
        if v is not None:
            kernels[k][row.get("Metric Name", "")] += v
    return kernels, launches


def main():
    run = sys.argv[1]
    out_csv = sys.argv[sys.argv.index("--csv") + 1] if "--csv" in sys.argv else None
    rows = []
    for p in ("cublas_gemms", "wgmma_probe", "tma_probe"):
        ncu, launches = read_ncu(os.path.join(run, "n_%s.csv" % p))
        ncu2, _ = read_ncu(os.path.join(run, "n2_%s.csv" % p))  # a second ncu run, where there is one
        tpath = os.path.join(run, "t_%s.json" % p)
        trace = json.load(open(tpath)) if os.path.exists(tpath) else {"kernels": [], "unmodelled": []}
        tk = {k["kernel"]: k for k in trace["kernels"]}
        un = defaultdict(list)
        for u in trace.get("unmodelled", []):
            un[u["kernel"]].append("%s x%d" % (u["what"], u["count"]))
        for name in sorted(set(ncu) | set(tk)):
            r = {"program": p, "kernel": name, "launches": len(launches.get(name, ()))}
            for col, metric in NCU.items():
                r[col] = int(ncu[name].get(metric, 0)) if name in ncu else ""
            for col in ("ncu_wavefronts", "ncu_ld", "ncu_st", "ncu_misc", "ncu_gmma"):
                r[col.replace("ncu_", "ncu2_")] = int(ncu2[name].get(NCU[col], 0)) if name in ncu2 else ""
            for col in TRACE:
                r["trace_" + col] = tk[name].get(col, 0) if name in tk else ""
            r["unmodelled"] = "; ".join(un.get(name, []))
            r["not_traced"] = trace.get("not_traced", "")
            rows.append(r)
    for r in rows:
        n, t = r["ncu_wavefronts"], r["trace_wavefronts"]
        diff = "" if n == "" or t == "" else "%+d (%+.1f %%)" % (t - n, 100.0 * (t - n) / n if n else 0)
        print("%s %s (x%s)" % (r["program"], r["kernel"][:90], r["launches"]))
        print("   wavefronts: ncu %s [ld %s st %s atom %s misc %s gmma %s] trace %s [ld %s st %s cp.async %s atom %s wgmma %s] diff %s"
              % (n, r["ncu_ld"], r["ncu_st"], r["ncu_atom"], r["ncu_misc"], r["ncu_gmma"], t, r["trace_load_wavefronts"],
                 r["trace_store_wavefronts"], r["trace_async_copy_wavefronts"], r["trace_atomic_wavefronts"],
                 r["trace_wgmma_wavefronts"], diff))
        print("   instructions: ncu lds %s sts %s ldsm %s stsm %s ldgsts %s atom %s gmma %s tma_ld %s tma_st %s | trace ld %s st %s cp.async %s atom %s wgmma %s tma_ld %s tma_st %s"
              % (r["ncu_inst_lds"], r["ncu_inst_sts"], r["ncu_inst_ldsm"], r["ncu_inst_stsm"], r["ncu_inst_ldgsts"],
                 r["ncu_inst_atom"], r["ncu_inst_gmma"], r["ncu_inst_tma_ld"], r["ncu_inst_tma_st"],
                 r["trace_load_instructions"], r["trace_store_instructions"], r["trace_async_copy_instructions"],
                 r["trace_atomic_instructions"], r["trace_wgmma_instructions"], r["trace_tma_load_instructions"],
                 r["trace_tma_store_instructions"]))
        print("   bytes: ncu bank reads %s writes %s tma global ld %s st %s | trace wgmma %s tma ld %s (unknown %s) st %s (unknown %s)"
              % (r["ncu_bank_reads"], r["ncu_bank_writes"], r["ncu_tma_ld_global_bytes"], r["ncu_tma_st_global_bytes"],
                 r["trace_wgmma_bytes"], r["trace_tma_load_bytes"], r["trace_tma_load_unknown"], r["trace_tma_store_bytes"],
                 r["trace_tma_store_unknown"]))
        if r["ncu2_wavefronts"] != "":
            print("   second ncu run: wavefronts %s [ld %s st %s misc %s gmma %s]"
                  % (r["ncu2_wavefronts"], r["ncu2_ld"], r["ncu2_st"], r["ncu2_misc"], r["ncu2_gmma"]))
        if r["unmodelled"]:
            print("   not modelled: " + r["unmodelled"][:400])
    if rows and rows[0]["not_traced"]:
        print("not traced: " + rows[0]["not_traced"])
    if out_csv:
        with open(out_csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["program"])
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
