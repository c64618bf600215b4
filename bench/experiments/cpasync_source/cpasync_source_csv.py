"""Rows of common/data/probe_h200_cpasync_source.csv from a run of bench/experiments/cpasync_source/cpasync_source_probe.sh:
    python3 bench/experiments/cpasync_source/cpasync_source_csv.py OUT_DIR > rows.csv
reads OUT_DIR/launches.txt (the probe's list, in launch order) and OUT_DIR/ncu.csv (one ncu
result per launch, same order). LDGSTS has no wavefront counter of its own: its wavefronts are
the shared total minus the op_ld/st/atom/misc/gmma/ipa parts; conflicts are the LDGSTS conflict
counter, instructions smsp__inst_executed_op_ldgsts."""
import collections, csv, re, sys

out = sys.argv[1]
W = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
launches = []
for line in open(f"{out}/launches.txt"):
    m = re.match(r"launch (\d+): (\S+) src=(\S+) \| cpasync (\d+) ([0-9a-f]{8}) (.*)", line.strip())
    if m:
        launches.append(m.groups())
text = [l for l in open(f"{out}/ncu.csv", errors="replace") if l.startswith('"')]
per = collections.OrderedDict()
for r in csv.DictReader(text):
    if r["ID"] == "ID":
        continue
    per.setdefault(int(r["ID"]), {})[r["Metric Name"]] = int(float(r["Metric Value"].replace(",", "") or 0))
results = list(per.values())
if len(results) != len(launches):
    sys.exit(f"{len(launches)} launches listed but {len(results)} ncu results")
gpu = open(f"{out}/versions.txt").readline().split(",")[0].strip()
src_id = {"16i": "16i", "wi": "wi", "16(i^8)": "16xor8", "32i": "32i", "128i": "128i"}
print("id,op,width,mask,offsets,wavefronts,bank_conflicts,instructions,gpu")
for (n, name, src, width, mask, offsets), m in zip(launches, results):
    other = sum(m.get(f"{W}_op_{k}.sum", 0) for k in ("ld", "st", "atom", "misc", "gmma", "ipa"))
    print(f"cpsrc_{name}_w{width}_src{src_id[src]},cpasync,{width},{mask},{offsets},{m[W + '.sum'] - other},"
          f"{m['l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum']},{m['smsp__inst_executed_op_ldgsts.sum']},{gpu}")
