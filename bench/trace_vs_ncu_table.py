"""The table of bench/trace_vs_ncu.sh from its raw files (banklab trace JSON, ncu CSV):
    python3 bench/trace_vs_ncu_table.py OUT_DIR 'name|command' ...
writes OUT_DIR/trace_vs_ncu.csv. Unmodelled instructions (cp.async, ldmatrix...) are listed in
their own column: Nsight Compute's LDS/STS metrics do not count them either."""
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
        if r["Metric Name"] == "smsp__inst_executed_op_shared_ld.sum":
            launches[k] += 1
    for k, m in ncu.items():
        n_ld, n_st = m["smsp__inst_executed_op_shared_ld.sum"], m["smsp__inst_executed_op_shared_st.sum"]
        w_ld = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
        w_st = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
        t = traced.get(k, {})
        t_nld, t_nst = t.get("load_instructions", 0), t.get("store_instructions", 0)
        t_wld, t_wst = t.get("load_wavefronts", 0), t.get("store_wavefronts", 0)
        none = n_ld + n_st + t_nld + t_nst + unmod[k] == 0  # no shared memory: both must say so
        s_ld = m.get("smsp__sass_inst_executed_op_shared_ld.sum")
        s_st = m.get("smsp__sass_inst_executed_op_shared_st.sum")
        inst_eq = (n_ld, n_st) == (t_nld, t_nst)
        sass_eq = s_ld is not None and (s_ld, s_st) == (t_nld, t_nst)
        if none:
            verdict = "equal (no shared memory)"
        elif not inst_eq and not sass_eq:
            verdict = "INSTRUCTION COUNT DIFFERS"
        elif (w_ld, w_st) == (t_wld, t_wst):
            verdict = "equal" if inst_eq else "equal (instructions: sass_inst_executed)"
        elif w_ld >= t_wld and w_st >= t_wst:
            verdict = "ncu >= trace (lower bound holds)"
        else:
            verdict = "NCU BELOW TRACE"
        rows.append(dict(program=name, kernel=k, launches=launches[k], ncu_ld_inst=n_ld, trace_ld_inst=t_nld,
                         ncu_st_inst=n_st, trace_st_inst=t_nst, ncu_sass_ld_inst=s_ld if s_ld is not None else "",
                         ncu_sass_st_inst=s_st if s_st is not None else "", ncu_ld_wavefronts=w_ld, trace_ld_wavefronts=t_wld,
                         ncu_st_wavefronts=w_st, trace_st_wavefronts=t_wst,
                         trace_minimum=t.get("minimum", 0), unmodelled=unmod[k], verdict=verdict))
with open(f"{out}/trace_vs_ncu.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["program"])
    w.writeheader()
    w.writerows(rows)
print(f"{len(rows)} kernels compared")
print(collections.Counter(r["verdict"] for r in rows))
