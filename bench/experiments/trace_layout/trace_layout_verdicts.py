#!/usr/bin/env python3
"""Issue 44 item 3 on the GPU machine: the verdicts of the traced launch's layout check.

    trace_layout_verdicts.py --judge J --out DIR [--jobs 8] [--deadline SECONDS] [--t0 EPOCH]

Grades, --tier all, JOBS at a time, in this order (what matters most first): lab 04's stub, its new
cheat identity_staging_and_shuffle_transpose_04.patch, its solution and alternatives; labs 05-07's
stubs, solutions and alternatives; every GPU-tier cheat of labs 04-07; labs 00-03's stubs,
solutions, alternatives and GPU-tier cheats; lab 04's known-bad cases. A solution must pass every
test; a case (alternative, cheat, known-bad) is judged by grader/selftest/run_cases.py (expect.py:
an alternative passes everything, a cheat keeps failed what the stub fails and fails a GPU test with
its GPU_EVIDENCE, a known-bad case fails its EXPECT_FAIL test). Nothing starts after --deadline
seconds from --t0 (default: now): such a row says NOT RUN. Writes DIR/trace_layout_verdicts.txt
(one row a grade, then the new cheat's traced message and every test's status) and exits 1 when a
row is against its expectation. Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "grader", "selftest"))
import materialize  # noqa: E402

NEW_CHEAT = "solutions/04_padding/cases/cheats/identity_staging_and_shuffle_transpose_04.patch"
FOLDERS = {"00": "00_bank_mapping", "01": "01_32way_conflict", "02": "02_broadcast", "03": "03_vector_lds",
           "04": "04_padding", "05": "05_swizzle", "06": "06_ldmatrix", "07": "07_tma_swizzle"}


def cases(lab: str, sub: str) -> list[str]:
    d = os.path.join(ROOT, "solutions", FOLDERS[lab], "cases", sub)
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith((".patch", ".cu"))) if os.path.isdir(d) else []


def gpu_cheats(lab: str) -> list[str]:
    found = cases(lab, "cheats") + sorted(
        os.path.join(ROOT, "grader", "selftest", "cheats", f) for f in os.listdir(os.path.join(ROOT, "grader", "selftest", "cheats")))
    keep = []
    for c in found:
        case = materialize.load_case(c)
        if (case.first("TIER") or "cpu").lower() == "gpu" and case.applies_to(lab):
            keep.append(c)
    return keep


class Runner:
    def __init__(self, args):
        self.args, self.rows, self.lock = args, [], threading.Lock()
        self.t0 = args.t0 or time.time()
        self.stubs: dict[str, cf.Future] = {}

    def late(self) -> bool:
        return time.time() - self.t0 > self.args.deadline

    def grade(self, lab: str, source: str, name: str) -> tuple[str, dict | None]:
        d = os.path.join(self.args.work, name)
        os.makedirs(d, exist_ok=True)
        out = os.path.join(d, "grade.json")
        try:
            subprocess.run([self.args.judge, "grade", "--lab", lab, "--source", source, "--work", os.path.join(d, "work"),
                            "--json", out], cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        except (OSError, subprocess.TimeoutExpired):
            return out, None
        try:
            with open(out, encoding="utf-8") as f:
                return out, json.load(f)
        except (OSError, ValueError):
            return out, None

    def row(self, lab, kind, name, outcome, ok, t, detail=""):
        with self.lock:
            self.rows.append((lab, kind, name, outcome, ok, round(time.time() - t, 1), detail))
            self.write()  # after every row: a run stopped at its limit still leaves the rows it had

    def write(self) -> str:
        text = report(self.rows, self.args)
        with open(os.path.join(self.args.out, "trace_layout_verdicts.txt"), "w", encoding="utf-8") as f:
            f.write(text)
        return text

    def plain(self, lab: str, kind: str) -> str | None:
        """The stub or the solution graded: the solution must pass every test, the stub fail one."""
        t = time.time()
        if self.late():
            self.row(lab, kind, kind, "NOT RUN (past the deadline)", True, t)
            return None
        base = "labs" if kind == "stub" else "solutions"
        path, g = self.grade(lab, os.path.join(ROOT, base, FOLDERS[lab], "kernel.cu"), f"{kind}-{lab}")
        if g is None:
            self.row(lab, kind, kind, "NO GRADE", False, t)
            return None
        recs = g.get("records", g.get("verdicts", []))
        status = {r.get("test"): r.get("status") for r in recs}
        failed = sorted(n for n, s in status.items() if s != "passed")
        counts = f"{sum(s == 'passed' for s in status.values())} passed, {len(failed)} not"
        ok = not failed if kind == "solution" else bool(failed)
        self.row(lab, kind, kind, counts, ok, t, "" if kind == "solution" and ok else "not passed: " + ", ".join(failed))
        return path

    def case(self, lab: str, case: str, kind: str):
        t = time.time()
        name = os.path.splitext(os.path.basename(case))[0]
        if self.late():
            self.row(lab, kind, name, "NOT RUN (past the deadline)", True, t)
            return
        argv = [sys.executable, os.path.join(ROOT, "grader", "selftest", "run_cases.py"), "--judge", self.args.judge,
                "--case", case, "--lab", lab, "--tier", "all", "--gpu", "--work", os.path.join(self.args.work, f"{kind}-{lab}-{name}")]
        if kind == "cheat":
            stub = self.stubs[lab].result()
            if stub is None:
                self.row(lab, kind, name, "NOT RUN (no stub grade)", False, t)
                return
            argv += ["--stub-verdicts", stub]
        try:
            p = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
        except subprocess.TimeoutExpired:
            self.row(lab, kind, name, "TIMED OUT", False, t)
            return
        text = p.stdout.decode("utf-8", "replace").strip().splitlines()
        first = next((l for l in text if l.startswith(("OK", "FAILED", "SKIPPED", "ERROR", "NOT"))), text[-1] if text else "")
        self.row(lab, kind, name, first.split(" ", 1)[0], p.returncode == 0, t,
                 "" if p.returncode == 0 else " | ".join(text[-6:])[:900])


def report(rows: list, args) -> str:
    """The table (one row a grade), then the new cheat's tests and its traced message."""
    labs = args.labs.split(",")
    bad = [x for x in rows if not x[4]]
    lines = [f"{'lab':3} {'kind':11} {'case':58} {'outcome':28} {'s':>6}"]
    for lab, kind, name, outcome, ok, s, detail in sorted(rows, key=lambda x: (labs.index(x[0]), x[1], x[2])):
        lines.append(f"{lab:3} {kind:11} {name[:58]:58} {outcome[:28]:28} {s:6.1f}{'' if ok else '  AGAINST EXPECTATION'}"
                     + (f"\n      {detail}" if detail else ""))
    lines.append(f"{len(rows)} rows, {len(bad)} against expectation, {sum('NOT RUN' in x[3] for x in rows)} not run")
    # The new cheat's grade: every test's status and the traced test's message.
    name = os.path.splitext(os.path.basename(NEW_CHEAT))[0]
    gj = os.path.join(args.work, f"cheat-04-{name}")
    found = [os.path.join(dp, "grade.json") for dp, _, fs in os.walk(gj) if "grade.json" in fs and "stub-" not in dp]
    try:
        with open(found[0], encoding="utf-8") as f:
            g = json.load(f)
    except (IndexError, OSError, ValueError):  # not graded yet, or being written
        g = None
    if g is not None:
        recs = g.get("records", g.get("verdicts", []))
        lines.append(f"\n{NEW_CHEAT}, every test:")
        lines += [f"  {x.get('status'):8} {x.get('test')}" for x in recs]
        for x in recs:
            if x.get("test") == "Lab04OnGpu.TracedSharedAccessesAreConflictFree":
                lines.append("\nits Lab04OnGpu.TracedSharedAccessesAreConflictFree message:\n" + x.get("message", ""))
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--judge", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", default="/tmp/trace-layout")
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--deadline", type=float, default=1e9)
    ap.add_argument("--t0", type=float)
    ap.add_argument("--labs", default="04,05,06,07,00,01,02,03", help="in the order they are graded")
    args = ap.parse_args()
    args.judge = os.path.abspath(args.judge)
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    r = Runner(args)
    labs = args.labs.split(",")
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        futures = []
        for lab in labs:  # the stubs first: the cheats of a lab wait for its stub's grade
            r.stubs[lab] = pool.submit(r.plain, lab, "stub")
        order: list[tuple[str, str, str]] = []
        for lab in labs:
            if lab == "04":
                order.append((lab, "cheat", os.path.join(ROOT, NEW_CHEAT)))
            order.append((lab, "solution", ""))
            order += [(lab, "alternative", c) for c in cases(lab, "alternatives")]
            order += [(lab, "cheat", c) for c in gpu_cheats(lab) if not c.endswith(NEW_CHEAT)]
        order += [("04", "bad", c) for c in cases("04", "bad")]
        for lab, kind, c in order:
            futures.append(pool.submit(r.plain, lab, kind) if kind == "solution" else pool.submit(r.case, lab, c, kind))
        for f in futures:
            f.result()
    text = r.write()
    print(text)
    return 1 if any(not x[4] for x in r.rows) else 0


if __name__ == "__main__":
    sys.exit(main())
