#!/usr/bin/env python3
"""Per-student variants are graded against the student's own variant (issue 35, docs/dev/VARIANTS.md).

  test_variants.py --judge BANKLAB_JUDGE --banklab BANKLAB --root ROOT [--lab 01]   (CTest: judge.VariantsAreGradedAsTheStudents)

For a lab that declares variants: 12 student ids give at least 3 distinct variants (course seed
fixed here); for two students of different variants (k, j): k's stub and solved file differ from
j's; k's stub compiles and fails the CPU tier's Layout and Predictions tests as a stub should; k's
solved file gets every CPU test; j's solved file graded as k's (a
classmate's copy) is reported in record LabNN.Variant as "this file is lab NN's variant j ... made
for another student" and loses the predictions. k's solved file is graded with no --variant: the
judge reads its `// banklab variant:` line (the base lab's answers differ from k's: it passes only so).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from banklab.lab import labs as banklab_labs
from banklab.lab import variants as V

SEED = "test-course-seed"   # a course's seed, for this test only
STUDENTS = [f"student{i:02d}" for i in range(12)]


def grade(judge: str, lab: str, source: Path, work: Path, variant: int | None) -> dict[str, dict]:
    out = work / "grade.json"
    cmd = [judge, "grade", "--lab", lab, "--source", str(source), "--work", str(work / "w"), "--json", str(out),
           "--tier", "cpu"] + ([] if variant is None else ["--variant", str(variant)])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if not out.is_file():
        raise SystemExit(f"FAIL: {' '.join(cmd)} wrote no grade ({r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    data = json.loads(out.read_text())
    return {v["test"]: v for v in data.get("verdicts", data.get("tests", [])) if isinstance(v, dict)}


def check(ok: bool, what: str, failures: list[str]) -> None:
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--banklab", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--lab", default="01")
    a = ap.parse_args()
    os.environ["BANKLAB_CLI"] = a.banklab
    lab = banklab_labs.find_labs(Path(a.root))[a.lab]
    v = V.read(lab)
    failures: list[str] = []
    chosen = {s: V.choose(lab.number, s, SEED, v.count) for s in STUDENTS}
    check(len(set(chosen.values())) >= 3, f"12 students get {len(set(chosen.values()))} distinct variants of lab "
          f"{lab.number} (at least 3): {sorted(set(chosen.values()))}", failures)
    k, j = sorted({x for x in chosen.values() if x})[:2]   # two students' variants, neither the base
    check(V.stub(lab, k) != V.stub(lab, j), f"variants {k} and {j} have different stubs", failures)
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        files = {"stub": V.stub(lab, k), "mine": V.solution(lab, k), "classmate": V.solution(lab, j)}
        for name, text in files.items():
            (t / name).mkdir()
            (t / name / "kernel.cu").write_text(text)
        stub = grade(a.judge, lab.number, t / "stub" / "kernel.cu", t / "stub", k)
        pre = f"Lab{lab.number}"
        check(stub[f"{pre}.Build"]["status"] == "passed", f"variant {k}'s stub builds", failures)
        for suite in ("Layout", "Predictions"):
            bad = [n for n, r in stub.items() if n.startswith(f"{pre}{suite}.") and r["status"] == "failed"]
            check(bool(bad), f"variant {k}'s stub fails {pre}{suite} tests ({len(bad)} failed)", failures)
        mine = grade(a.judge, lab.number, t / "mine" / "kernel.cu", t / "mine", None)   # the file names its variant
        not_passed = [f"{n}: {r['status']}" for n, r in mine.items() if r["status"] != "passed"]
        check(not not_passed, f"variant {k}'s solved file, no --variant given (its `// banklab variant:` line read), "
              f"passes every CPU test ({len(mine)}): {not_passed}", failures)
        check(f"{pre}.Variant" not in mine, "no --variant given: no variant record", failures)
        theirs = grade(a.judge, lab.number, t / "classmate" / "kernel.cu", t / "classmate", k)
        rec = theirs.get(f"{pre}.Variant", {})
        msg = rec.get("message", "")
        check(rec.get("status") == "failed" and f"this file is lab {lab.number}'s variant {j}" in msg
              and "another student" in msg, f"a classmate's (variant {j}) solved file graded as variant {k} is "
              f"reported: {msg!r}", failures)
        lost = [n for n, r in theirs.items() if n.startswith(f"{pre}Predictions.") and r["status"] == "failed"]
        check(bool(lost), f"the classmate's copy loses predictions ({len(lost)} failed)", failures)
    print("FAILED: " + "; ".join(failures) if failures else "all variant checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
