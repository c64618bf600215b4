"""Medians and ratios of bench/trace_speed.sh's runs, where the tracer's time went, and whether
two tracers (or two runs of one) wrote the same per-line report.

    python3 bench/trace_speed_summary.py OUT_DIR
"""
import collections
import csv
import json
import pathlib
import re
import statistics
import sys

out = pathlib.Path(sys.argv[1])
times = collections.defaultdict(list)
failed = collections.Counter()
order = []
with open(out / "times.csv") as f:
    for row in csv.DictReader(f):
        key = (row["program"], row["variant"])
        if row["program"] not in order:
            order.append(row["program"])
        if row["rc"] != "0":
            failed[key] += 1
        times[key].append(float(row["seconds"]))


def med(p, v):
    t = times.get((p, v))
    return statistics.median(t) if t else None


def fmt(x):
    return "-" if x is None else f"{x:.3f}"


print("Wall seconds, median (min-max, runs); ratios of medians")
print("program | untraced | traced | traced_base | ncu4 | ncu4/traced | ncu4/traced_base | "
      "overhead ratio (ncu4-untraced)/(traced-untraced) | the same with traced_base")
for p in order:
    cells = []
    for v in ("untraced", "traced", "traced_base", "ncu4"):
        t = times.get((p, v))
        bad = f" {failed[(p, v)]} failed" if failed[(p, v)] else ""
        cells.append(f"{statistics.median(t):.3f} ({min(t):.2f}-{max(t):.2f}, {len(t)}{bad})" if t else "-")
    u, t, b, n = (med(p, v) for v in ("untraced", "traced", "traced_base", "ncu4"))
    r = lambda a, c: f"{a / c:.1f}x" if a and c else "-"
    ov = lambda bt: f"{(n - u) / (bt - u):.1f}x" if n and u and bt and bt > u else "-"
    print(f"{p} | " + " | ".join(cells) + f" | {r(n, t)} | {r(n, b)} | {ov(t)} | {ov(b)}")

for (p, v), t in sorted(times.items()):
    if v not in ("untraced", "traced", "traced_base", "ncu4"):
        print(f"{p} {v}: {statistics.median(t):.3f} ({min(t):.2f}-{max(t):.2f}, {len(t)})")

# banklab's own split (program, analysis) and the tracer's stats, medians over the rounds.
split = collections.defaultdict(lambda: collections.defaultdict(list))
stat_re = re.compile(r"([a-z (),]+?) ([0-9.]+)")
stats = {}
for f in sorted((out / "logs").glob("*.err")):
    prog, variant, rnd = f.name[:-4].split(".")
    if not variant.startswith("traced"):
        continue
    text = f.read_text(errors="replace")
    m = re.search(r"program ([0-9.]+) s, analysis ([0-9.]+) s", text)
    if m:
        split[(prog, variant)]["program"].append(float(m.group(1)))
        split[(prog, variant)]["analysis"].append(float(m.group(2)))
    m = re.search(r"banklab trace stats: (.*)", text)
    if m and rnd == "1":
        stats[(prog, variant)] = m.group(1)
print()
print("banklab's split (median s): program under the tracer / host analysis")
for p in order:
    for v in ("traced", "traced_base"):
        d = split.get((p, v))
        if d:
            print(f"{p} {v}: program {statistics.median(d['program']):.3f}, analysis {statistics.median(d['analysis']):.3f}")
print()
print("Where the tracer's time went (BANKLAB_TRACE_STATS, round 1):")
for (p, v), s in stats.items():
    print(f"{p} {v}: {s}")

# Results: the json report of every traced run against the first traced_base run (the tracer
# before) and the first traced run.
print()
print("Reports (json, per kernel and per line):")
for p in order:
    reps = {}
    for f in sorted((out / "reports").glob(f"{p}.*.json")):
        _, variant, rnd = f.name[:-5].split(".")
        reps[(variant, int(rnd))] = f.read_bytes()
    if not reps:
        continue
    new = [reps[k] for k in sorted(reps) if k[0] == "traced"]
    base = [reps[k] for k in sorted(reps) if k[0] == "traced_base"]
    line = f"{p}: traced runs {len(new)}, {len(set(new))} distinct report(s)"
    if base:
        line += f"; base runs {len(base)}, {len(set(base))} distinct; traced == base: "
        line += "identical" if set(new) == set(base) else ("some equal" if set(new) & set(base) else "DIFFERENT")
    print(line)
    if base and set(new) != set(base):
        a, b = json.loads(new[0]), json.loads(base[0])
        ka = {k["kernel"]: k for k in a.get("kernels", [])}
        kb = {k["kernel"]: k for k in b.get("kernels", [])}
        for name in sorted(set(ka) | set(kb)):
            x, y = ka.get(name, {}), kb.get(name, {})
            keys = [k for k in set(x) | set(y) if k != "lines" and x.get(k) != y.get(k)]
            if keys or x.get("lines") != y.get("lines"):
                print(f"  {name[:90]}: " + ", ".join(f"{k} {x.get(k)} vs base {y.get(k)}" for k in sorted(keys))
                      + ("" if keys else " (lines differ)"))
        for k in set(a) | set(b):
            if k != "kernels" and a.get(k) != b.get(k):
                print(f"  {k}: {str(a.get(k))[:200]} vs base {str(b.get(k))[:200]}")

# The model step's own timing (3 steps after a warm-up, inside the program: no start-up).
inner = collections.defaultdict(list)
for f in sorted((out / "logs").glob("torch_step.*.out")):
    m = re.search(r"3 steps in ([0-9.]+) s", f.read_text(errors="replace"))
    if m:
        inner[f.name.split(".")[1]].append(float(m.group(1)))
if inner:
    print()
    print("PyTorch model step, 3 steps after a warm-up, timed inside the program (median s, runs):")
    for v, t in inner.items():
        print(f"  {v}: {statistics.median(t):.3f} ({min(t):.3f}-{max(t):.3f}, {len(t)})")
