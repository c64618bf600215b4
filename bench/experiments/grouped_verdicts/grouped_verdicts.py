#!/usr/bin/env python3
"""Issue 33: the same verdicts whether grade runs a lab's tests in as few processes as it can
(the default) or each test in a process of its own (BANKLAB_JUDGE_ONE_TEST_PER_PROCESS=1), and
the seconds of each. bench/experiments/grouped_verdicts/device_grouped_verdicts.sh runs it on the GPU machine.

    grouped_verdicts.py --judge build/grouped/grader/banklab-judge --out OUT [--budget-s 420]
                        [--tier gpu] [--graded] [--cases] [--lab 05]...

Grades every lab's stub and solution in both layouts, one after the other (the order of the two
alternates from one file to the next, so that neither always finds the GPU warm); with --cases
also the known-bad kernels and cheats that test isolation (a kernel that traps and leaves the
context unusable, kernels that keep state in their module's globals or tell the traced launch
apart, writes and reads past a buffer), while --budget-s allows (counted from this script's
start; the stubs and solutions while 150 s more allow). Prints per file both verdict lists, every
difference (a status or a check count: a FLIP; a message that differs beyond its numbers:
MESSAGE), the seconds of each grade and how many test processes each ran. Writes the grades
under OUT/grouped/, OUT/alone/ and OUT/summary.txt. Exit status 1 when any verdict flipped.
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[3] / "python" / "banklab_run.py"))  # banklab's path, set in one place

ROOT = Path(__file__).resolve().parents[3]
from banklab.lab import labs as banklab_labs  # noqa: E402

# Cases whose kernels test what sharing a process could change (solutions/NN_name/cases/...).
ISOLATION_CASES = [
    ("07", "cheats/tiles_read_back_from_global_memory_07.patch"),   # __trap(): a sticky error, the context unusable
    ("03", "cheats/conflicted_on_its_modules_first_launch_03.patch"),  # state in the module's globals
    ("04", "cheats/conflicted_on_its_modules_first_launch_04.patch"),
    ("07", "cheats/conflicted_on_its_modules_first_launch_07.patch"),
    ("00", "cheats/recognises_the_traced_launch_00.patch"),
    ("01", "cheats/kernel_writes_past_the_end_01.patch"),
    ("01", "bad/launches_one_block_too_many.patch"),
    ("05", "bad/read_bypasses_swizzle.patch"),
]


def materialize(case: Path, lab_dir: Path, out: Path) -> bool:
    r = subprocess.run([sys.executable, str(ROOT / "grader" / "selftest" / "materialize.py"), "--case", str(case),
                        "--lab-dir", str(lab_dir), "--out", str(out)], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"  cannot materialize {case}: {r.stderr.strip()[:300]}")
    return r.returncode == 0


def grade(judge: str, lab: str, source: Path, work: Path, out_json: Path, alone: bool, tier: str,
          graded: bool) -> tuple[float, int, str]:
    """Seconds, test processes run (their logs), and the grade's output."""
    env = {k: v for k, v in os.environ.items() if k != "BANKLAB_JUDGE_ONE_TEST_PER_PROCESS"}
    if alone:
        env["BANKLAB_JUDGE_ONE_TEST_PER_PROCESS"] = "1"
    cmd = [judge, "grade", "--lab", lab, "--source", str(source), "--work", str(work), "--json", str(out_json),
           "--tier", tier] + (["--graded"] if graded else [])
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900,
                       start_new_session=True)
    dt = time.monotonic() - t0
    processes = len(list((work / "logs").glob("*.process.log"))) if (work / "logs").is_dir() else 0
    return dt, processes, p.stdout


def records(path: Path) -> dict[str, dict]:
    try:
        return {v["test"]: v for v in json.loads(path.read_text())["verdicts"]}
    except (OSError, ValueError, KeyError):
        return {}


def without_numbers(s: str) -> str:
    return re.sub(r"\d+(\.\d+)?", "#", s)


def compare(name: str, a: dict[str, dict], b: dict[str, dict], out) -> int:
    """Prints both verdict lists and the differences; returns the number of flips."""
    flips = 0
    if not a or not b:
        print(f"  {name}: a grade file is missing or unreadable (grouped {len(a)}, alone {len(b)} records)", file=out)
        return 1
    for t in sorted(set(a) | set(b), key=lambda t: (list(a) + list(b)).index(t)):
        x, y = a.get(t, {}), b.get(t, {})
        sx, sy = f"{x.get('status', '-')}/{x.get('checks', '-')}", f"{y.get('status', '-')}/{y.get('checks', '-')}"
        mark = ""
        if (x.get("status"), x.get("checks")) != (y.get("status"), y.get("checks")):
            mark, flips = "  FLIP", flips + 1
        elif without_numbers(x.get("message", "")) != without_numbers(y.get("message", "")):
            mark = "  MESSAGE"
        print(f"    {t:70} grouped {sx:14} alone {sy:14}{mark}", file=out)
        if mark:
            print(f"      grouped: {x.get('message', '')[:600]!r}\n      alone:   {y.get('message', '')[:600]!r}", file=out)
    return flips


def main() -> int:
    t_start = time.monotonic()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--judge", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", default=None, help="work folders (default OUT/work)")
    ap.add_argument("--tier", default="gpu")
    ap.add_argument("--graded", action="store_true")
    ap.add_argument("--cases", action="store_true")
    ap.add_argument("--budget-s", type=float, default=420)
    ap.add_argument("--lab", action="append", default=[])
    a = ap.parse_args()
    out_dir = Path(a.out)
    work = Path(a.work) if a.work else out_dir / "work"
    for d in ("grouped", "alone"):
        (out_dir / d).mkdir(parents=True, exist_ok=True)
    labs = {n: lab for n, lab in banklab_labs.find_labs(ROOT).items() if not a.lab or n in a.lab}
    items = []
    for n, lab in sorted(labs.items()):
        items.append((f"{n}_stub", n, ROOT / "labs" / lab.folder / "kernel.cu", False))
        items.append((f"{n}_solution", n, ROOT / "solutions" / lab.folder / "kernel.cu", False))
    if a.cases:
        for n, rel in ISOLATION_CASES:
            if n not in labs:
                continue
            case = ROOT / "solutions" / labs[n].folder / "cases" / rel
            src = work / "sources" / f"{n}_{case.stem}" / "kernel.cu"
            src.parent.mkdir(parents=True, exist_ok=True)
            if case.exists() and materialize(case, ROOT / "solutions" / labs[n].folder, src):
                items.append((f"{n}_{case.stem}", n, src, True))
    summary = open(out_dir / "summary.txt", "w")

    class Both:
        def write(self, s):
            sys.stdout.write(s)
            summary.write(s)

        def flush(self):
            sys.stdout.flush()
            summary.flush()
    both = Both()
    flips, seconds, skipped = 0, {"grouped": 0.0, "alone": 0.0}, []
    print(f"judge {a.judge}, --tier {a.tier}{' --graded' if a.graded else ''}", file=both)
    for i, (name, lab, src, optional) in enumerate(items):
        # The cases within the budget; the stubs and solutions within 150 s more (a device call's limit).
        if time.monotonic() - t_start > a.budget_s + (0 if optional else 150):
            skipped.append(name)
            continue
        order = ["grouped", "alone"] if i % 2 == 0 else ["alone", "grouped"]
        res = {}
        for mode in order:
            w = work / f"{name}-{mode}"
            dt, procs, text = grade(a.judge, lab, src, w, out_dir / mode / f"{name}.json", mode == "alone", a.tier,
                                    a.graded)
            (out_dir / mode / f"{name}.log").write_text(text)
            res[mode] = (dt, procs)
            seconds[mode] += dt
        recs = {m: records(out_dir / m / f"{name}.json") for m in ("grouped", "alone")}
        tests_s = {m: res[m][0] - float(recs[m].get(f"Lab{lab}.Build", {}).get("seconds", 0)) for m in res}
        for m in res:
            seconds[m + " tests"] = seconds.get(m + " tests", 0.0) + tests_s[m]
        print(f"{name} (lab {lab}): grouped {res['grouped'][0]:.1f} s ({tests_s['grouped']:.1f} s after the build) in "
              f"{res['grouped'][1]} test processes, one per process {res['alone'][0]:.1f} s "
              f"({tests_s['alone']:.1f} s after the build) in {res['alone'][1]}", file=both)
        f = compare(name, recs["grouped"], recs["alone"], both)
        flips += f
        print(f"  {name}: {f} flip(s)", file=both)
        both.flush()
    print(f"seconds in all: grouped {seconds['grouped']:.1f} ({seconds.get('grouped tests', 0):.1f} after the builds), "
          f"one per process {seconds['alone']:.1f} ({seconds.get('alone tests', 0):.1f} after the builds)", file=both)
    if skipped:
        print(f"not run (past the budget of {a.budget_s:.0f} s): {' '.join(skipped)}", file=both)
        print("  (again with those labs only: BUDGET_S=... bash bench/experiments/grouped_verdicts/device_grouped_verdicts.sh NN ...)", file=both)
    print(f"verdict flips between the layouts: {flips}", file=both)
    summary.close()
    return 1 if flips else 0


if __name__ == "__main__":
    sys.exit(main())
