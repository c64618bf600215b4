"""The table of bench/trace_overhead_device.sh from its logs: per variant the median wall seconds,
the overhead over the plain program and its ratio to ncu's overhead (issue 31: at most 0.10), the
counts against ncu (wavefronts equal, 0 dropped), and where the tracer's time went (medians of
BANKLAB_TRACE_STATS and of banklab's own program / analysis split).
    python3 bench/trace_overhead_table.py OUT"""
import csv
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

RECORDING = ("append", "merge", "append_big", "merge_tiny")
ORDER = ("plain", "append", "merge", "append_big", "count", "empty", "ncu", "merge_tiny")
# BANKLAB_TRACE_STATS fields (inject_stats.hpp) -> short names
STATS = [("attach", r"attach ([0-9.]+);"), ("patch", r"patched ([0-9.]+)"), ("sync", r"sync \(kernels under the patch\) ([0-9.]+)"),
         ("copy", r"copy ([0-9.]+)"), ("merge", r"merge ([0-9.]+) \("), ("file", r"trace file ([0-9.]+)"),
         ("tracer", r"tracer total ([0-9.]+)"), ("attach_to_exit", r"stats: ([0-9.]+) s from attach")]
COUNTS = [("merged", r"merged on the device (\d+)"), ("entries", r"in (\d+) entries"), ("appended", r"appended (\d+)"),
          ("ring", r"through the ring (\d+)"), ("counted", r"counted only (\d+)")]


def med(v):
    return statistics.median(v) if v else float("nan")


def ncu_total(path):
    rows = [l for l in open(path, errors="replace") if l.startswith('"')]
    return sum(float(r["Metric Value"].replace(",", "")) for r in csv.DictReader(rows))


def read_times(out):
    """{variant: [wall seconds per round]} from OUT/times.csv (round 0, the warm-up, left out), and
    the rounds that exited non-zero."""
    times = defaultdict(list)
    bad_rc = []
    for row in csv.DictReader(open(out / "times.csv")):
        if row["round"] == "0":
            continue
        times[row["variant"]].append(float(row["seconds"]))
        if row["rc"] != "0":
            bad_rc.append(f"{row['variant']} round {row['round']}: rc {row['rc']}")
    return times, bad_rc


def report_counts(runs, v, ncu, failures):
    """A recording variant's reports against ncu's wavefronts: one note per distinct outcome."""
    notes = []
    for p in sorted(runs.glob(f"{v}.*.json")):
        try:
            j = json.load(open(p))
        except (OSError, ValueError) as e:
            notes.append(f"{p.name}: unreadable ({e})")
            failures.append(f"{v}: {p.name} unreadable")
            continue
        w = sum(k.get("wavefronts", 0) for k in j["kernels"])
        ok = ncu is not None and w == ncu and j["dropped"] == 0
        notes.append(f"{w} wavefronts, dropped {j['dropped']}: {'equal to ncu' if ok else 'NOT equal to ncu'}")
        if not ok:
            failures.append(f"{v} {p.name}: {w} wavefronts, dropped {j['dropped']}, ncu {ncu}")
    return "; ".join(sorted(set(notes)))


def warp_instructions(runs, v):
    """The warp instructions each run of variant v says it recorded (or counted), as a set."""
    got = set()
    for p in sorted(runs.glob(f"{v}.*.log")):
        t = p.read_text(errors="replace")
        s = re.search(r"banklab trace stats: .*", t)
        if not s:
            continue
        c = {k: int(re.search(rx, s.group(0)).group(1)) for k, rx in COUNTS if re.search(rx, s.group(0))}
        got.add(c.get("counted", 0) if v == "count" else c.get("merged", 0) + c.get("appended", 0) + c.get("ring", 0))
    return got


def overhead_table(runs, times, ncu, plain, ncu_over, failures):
    """The first table: per variant its median, runs, overhead, ratio and counts."""
    print(f"{'variant':12} {'median s':>9} {'runs':>22} {'overhead':>9} {'ratio':>6}  counts")
    records = {}
    for v in ORDER:
        if v not in times:
            continue
        m = med(times[v])
        counts = ""
        if v in RECORDING:
            counts = report_counts(runs, v, ncu, failures)
        if v in RECORDING or v == "count":
            got = warp_instructions(runs, v)
            records[v] = got
            counts += f"{'; ' if counts else ''}warp instructions {sorted(got)}"
        ratio = (m - plain) / ncu_over if v not in ("plain", "ncu") and ncu_over > 0 else float("nan")
        runs_s = " ".join(f"{x:.2f}" for x in times[v])
        print(f"{v:12} {m:9.3f} {runs_s:>22} {m - plain:9.3f} {ratio:6.2f}  {counts}")
    all_counts = set().union(*records.values()) if records else set()
    if len(all_counts) > 1:
        failures.append(f"warp instructions differ between variants: {records}")


def time_split(runs):
    """The second table: where the tracer's time went, per traced variant."""
    # Where the time went: medians of the stats fields per traced variant.
    print("\nwhere the tracer's time went (medians, s): BANKLAB_TRACE_STATS; program/analysis: banklab's own split")
    keys = [k for k, _ in STATS] + ["program", "analysis"]
    print(f"{'variant':12} " + " ".join(f"{k:>14}" for k in keys))
    for v in ORDER:
        if v in ("plain", "ncu"):
            continue
        vals = defaultdict(list)
        launches = defaultdict(list)
        for p in sorted(runs.glob(f"{v}.*.log")):
            t = p.read_text(errors="replace")
            s = re.search(r"banklab trace stats: .*", t)
            if s:
                for k, rx in STATS:
                    if (m := re.search(rx, s.group(0))):
                        vals[k].append(float(m.group(1)))
            if (m := re.search(r"program ([0-9.]+) s, analysis ([0-9.]+) s", t)):
                vals["program"].append(float(m.group(1)))
                vals["analysis"].append(float(m.group(2)))
            for m in re.finditer(r"banklab trace launch: (\S+): sync ([0-9.]+) s, (.*)", t):
                launches[m.group(1)[:60]].append((float(m.group(2)), m.group(3)))
        if not vals:
            continue
        print(f"{v:12} " + " ".join(f"{med(vals[k]):14.3f}" for k in keys))
        first = sorted(runs.glob(f"{v}.*.log"))[0].read_text(errors="replace")
        if (m := re.search(r"banklab trace: (\d+) warp records \((\d+) distinct\)", first)):
            print(f"    {m.group(1)} warp records, {m.group(2)} distinct (first run)")
        for k, l in launches.items():
            print(f"    {k}: sync {med([x for x, _ in l]):.4f} s; {l[0][1]}")


def same_reports(runs, failures):
    """The merged reports must say what the appended ones say, kernel by kernel and line by line."""
    a, m, a2 = runs / "append.1.json", runs / "merge.1.json", runs / "append.2.json"
    if a.exists() and a2.exists():  # how far two runs of the same tracer differ, for comparison
        print(f"\nappend.2.json {'is the same report as' if json.load(open(a)) == json.load(open(a2)) else 'differs from'} append.1.json")
    if a.exists() and m.exists():
        same = json.load(open(a)) == json.load(open(m))
        print(f"merge.1.json {'is the same report as' if same else 'DIFFERS from'} append.1.json")
        if not same:
            failures.append("merge report differs from the append report")


def main():
    out = Path(sys.argv[1])
    runs = out / "runs"
    times, bad_rc = read_times(out)
    ncus = [ncu_total(p) for p in sorted(runs.glob("ncu.*.csv"))]
    ncu = ncus[0] if ncus else None
    print(open(out / "gpu.txt").read().strip())
    print(f"ncu instruction-level shared wavefronts: {', '.join(f'{n:.0f}' for n in ncus)} ({len(ncus)} runs)")
    plain, ncu_t = med(times["plain"]), med(times["ncu"])
    ncu_over = ncu_t - plain
    print(f"\nmedians of {len(times['plain'])} interleaved rounds; overhead = variant - plain; ratio = overhead / ncu's overhead "
          f"(ncu {ncu_t:.3f} - plain {plain:.3f} = {ncu_over:.3f} s); target: ratio <= 0.10\n")
    failures = list(bad_rc)
    overhead_table(runs, times, ncu, plain, ncu_over, failures)
    time_split(runs)
    same_reports(runs, failures)
    for v in RECORDING[:3]:
        if v in times and ncu_over > 0:
            r = (med(times[v]) - plain) / ncu_over
            print(f"{v}: overhead ratio {r:.2f} against ncu's: target 0.10 {'met' if r <= 0.10 else 'missed'}")
    print("\n" + ("every check passed" if not failures else "FAILED:\n  " + "\n  ".join(failures)))
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
