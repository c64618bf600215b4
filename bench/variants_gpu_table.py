#!/usr/bin/env python3
"""Issue 35's device table: every variant of every lab that has variants, its solved file and its stub,
graded by the judge (`banklab-judge grade --variant K`, GPU tier by default), a few at a time.

  python3 bench/variants_gpu_table.py --judge J --out DIR [--tier gpu|all] [--jobs N] [--graded] [LAB...]

The expectation (docs/dev/VARIANTS.md): every variant's solved file passes every judged test of the
tier; every variant's stub fails at least one. A GPU test the judge skipped (no GPU on this machine)
is "not judged", never a pass: such a row reads "not judged" and the run exits 2; a row against the
expectation exits 1. Writes DIR/variants_gpu.txt, DIR/variants_gpu.json and every grade's JSON and
log under DIR/grades/. The files are rendered by banklab.lab.variants (the one renderer), which asks
the model's `banklab` command for a variant's counts ($BANKLAB_CLI or a build of the course).
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import runpy
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
runpy.run_path(str(ROOT / "python" / "banklab_run.py"))  # banklab's path, set in one place
import variant_files  # noqa: E402  (the command line and the files, shared with variant_copies.py)


def grade(judge: str, lab: str, k: int, kind: str, source: Path, out: Path, tier: str, graded: bool) -> dict:
    """One grade of `source` as variant k: its verdicts counted by status, and the failed tests."""
    stem = f"{lab}_v{k}_{kind}"
    cmd = [judge, "grade", "--lab", lab, "--source", str(source), "--work", str(out / "work" / stem),
           "--json", str(out / "grades" / f"{stem}.json"), "--tier", tier, "--variant", str(k)]
    if graded:
        cmd.append("--graded")
    t0 = time.monotonic()
    with open(out / "grades" / f"{stem}.log", "w") as log:
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, check=False).returncode
    row = {"lab": lab, "variant": k, "file": kind, "rc": rc, "seconds": round(time.monotonic() - t0, 1)}
    try:
        verdicts = json.loads((out / "grades" / f"{stem}.json").read_text())["verdicts"]
    except (OSError, ValueError, KeyError) as e:
        return {**row, "error": f"no grade JSON ({e})"}
    judged = [v for v in verdicts if tier in ("all", v.get("tier")) and v["test"] != f"Lab{lab}.Build"]
    count = {s: sum(v["status"] == s for v in judged) for s in ("passed", "failed", "skipped", "fault")}
    return {**row, **count, "failed_tests": [v["test"] for v in judged if v["status"] in ("failed", "fault")]}


def outcome(r: dict) -> str:
    """What the row says against the expectation: "as expected", "not judged" or what went wrong."""
    if "error" in r:
        return "ERROR: " + r["error"]
    if r["passed"] + r["failed"] + r["fault"] == 0:
        return "not judged (every test of the tier skipped)"
    if r["fault"]:
        return "ERROR: a fault, not a verdict"
    if r["file"] == "solution":
        return "as expected" if r["failed"] == 0 and r["skipped"] == 0 else (
            "UNEXPECTED: the solved file failed" if r["failed"] else "not judged (some tests skipped)")
    return "as expected" if r["failed"] else "UNEXPECTED: the stub passed"


def main(argv: list[str]) -> int:
    a = variant_files.parse_args(__doc__, argv, "gpu")
    (a.out / "grades").mkdir(parents=True, exist_ok=True)
    jobs = [(number, k, kind, files[(k, kind)])
            for number, count, files in variant_files.rendered_variants(a.out, a.labs)
            for k in range(count) for kind in ("solution", "stub")]
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        rows = list(pool.map(lambda j: grade(a.judge, *j, a.out, a.tier, a.graded), jobs))
    lines = [f"{'lab':>3} {'variant':>7} {'file':<8} {'passed':>6} {'failed':>6} {'skipped':>7} {'s':>6}  outcome",
             *(f"{r['lab']:>3} {r['variant']:>7} {r['file']:<8} {r.get('passed', '-'):>6} {r.get('failed', '-'):>6} "
               f"{r.get('skipped', '-'):>7} {r['seconds']:>6}  {outcome(r)}"
               + (f" (failed: {', '.join(r['failed_tests'])})" if r.get("failed_tests") else "") for r in rows)]
    (a.out / "variants_gpu.txt").write_text("\n".join(lines) + "\n")
    (a.out / "variants_gpu.json").write_text(json.dumps(rows, indent=1) + "\n")
    print("\n".join(lines))
    outcomes = [outcome(r) for r in rows]
    if any(not o.startswith(("as expected", "not judged")) for o in outcomes):
        return 1
    return 2 if any(o.startswith("not judged") for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
