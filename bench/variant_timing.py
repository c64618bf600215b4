#!/usr/bin/env python3
"""Issue 44's timing targets at the border, on the GPU machine: every variant's solved file and the
known-bad timing cases of labs 04 and 06, timed by the lab's own timing tests (each interleaved with
the grader's reference, median of 31 runs: grader/include/grader/gpu/timing.cuh), each test run
REPS times, and the table of their ratios against the targets.

  python3 bench/variant_timing.py --judge J --out DIR [--reps N] [--reps-others N] [--jobs N] [--tests kernel|all]
                                  [--budget S] [--bad-last] [LAB...]      (default: labs 04 06 00 01 02 03 05)

Every file is built first (`banklab-judge build --variant K`, JOBS at once), then its timing tests
run one at a time (`banklab-judge test --tests ... --variant K --graded`: nothing else on the GPU),
REPS times each (labs 04 and 06; --reps-others for the other labs), lab by lab in the order given (04 and 06 first: the ones at the border). A test's
ratio is read from its `[ TIMING   ]` line: the kernel's ms over the reference's (KernelMeetsTimingTarget,
"target: at most T x"), or the instruction's measured ratio against its own target (MeetsTimingTarget).
After --budget seconds of timing no new file starts: the table says which were left.

Files: each variant's solved file (banklab.lab.variants.solution), and the known-bad cases whose
layout costs time (lab 04: pad_two, pad_wrong_dimension, pad_too_large; lab 06:
scalar_loads_instead_of_ldmatrix, padding_of_32_bytes, wrong_bits), as variant 0 and as the lab's
last variant where the case applies to it with --bad-last (grader/selftest/variant_case.py, as the
selftest renders them), and lab 06's alternative other_xor_key_for_every_row as variant 2 (rows of
192 bytes, where no other alternative of the lab is valid), expected within its target.

Writes DIR/variant_timing.txt (the table), DIR/variant_timing.json (every run's ratio) and DIR/logs/.
Exit: 0 every solved file and alternative within its targets at the median; 1 otherwise; 2 nothing
timed (no GPU: every timing test skipped). The known-bad cases are reported, not judged: lab 06's
scalar loads are conflict-free (the traced test fails them; 1.03x the reference on an H200).
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import re
import runpy
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
runpy.run_path(str(ROOT / "python" / "banklab_run.py"))  # banklab's path, set in one place
from banklab.lab import labs as banklab_labs  # noqa: E402
from banklab.lab import variants as banklab_variants  # noqa: E402

BAD = {"04": ["pad_two", "pad_wrong_dimension", "pad_too_large"],
       "06": ["scalar_loads_instead_of_ldmatrix", "padding_of_32_bytes", "wrong_bits"]}
#: Valid alternatives timed too, (name, variant): lab 06's key for every row length, as the variant of
#: 192-byte rows (12 chunks), the one no other alternative of the lab holds.
ALTS = {"06": [("other_xor_key_for_every_row", 2)]}
KERNEL = re.compile(r"\[ TIMING   \] (.*?): your kernel ([\d.]+) ms, the grader's conflict-free kernel for the same work "
                    r"([\d.]+) ms .*?target: at most ([\d.]+)x")
INSTRUCTION = re.compile(r"\[ TIMING   \] (.*?): measured .*target: at most ([\d.]+)x the reference, measured ([\d.]+)x")


def timing_tests(judge: str, lab: str, which: str) -> list[str]:
    """The lab's GPU timing tests (`banklab-judge list`): its kernel timing target, or every one."""
    out = subprocess.run([judge, "list", "--lab", lab], capture_output=True, text=True, check=True).stdout
    names = [f[1] for f in (line.split() for line in out.splitlines()) if len(f) == 3 and f[0] == lab and f[2] == "gpu"]
    return [t for t in names if ("KernelTimingTarget" if which == "kernel" else "TimingTarget") in t]


def files(lab: banklab_labs.Lab, out: Path, bad_last: bool) -> list[dict]:
    """The files of a lab to time: every variant's solved file, then its known-bad timing cases (as
    variant 0, and as the last variant too with `bad_last`)."""
    v = banklab_variants.read(lab)
    count = v.count if v else 1
    rows = []
    for k in range(count):
        p = out / "src" / f"{lab.number}_v{k}_solution.cu"
        p.write_text(banklab_variants.solution(lab, k))
        rows.append({"lab": lab.number, "variant": k, "file": "solution", "source": str(p)})
    for name in BAD.get(lab.number, []):
        case = lab.solution_dir / "cases" / "bad" / f"{name}.patch"
        for k in sorted({0, count - 1} if bad_last else {0}):
            p = out / "src" / f"{lab.number}_v{k}_{name}.cu"
            r = subprocess.run([sys.executable, str(ROOT / "grader" / "selftest" / "variant_case.py"), "--case", str(case),
                                "--lab-dir", str(lab.solution_dir), "--variant", str(k), "--out", str(p)],
                               capture_output=True, text=True, check=False)
            row = {"lab": lab.number, "variant": k, "file": f"bad:{name}", "source": str(p)}
            rows.append(row if r.returncode == 0 else {**row, "error": "not applicable to the variant: "
                                                       + r.stdout.strip().splitlines()[-1][:160]})
    for name, k in ALTS.get(lab.number, []):
        case = lab.solution_dir / "cases" / "alternatives" / f"{name}.patch"
        p = out / "src" / f"{lab.number}_v{k}_{name}.cu"
        r = subprocess.run([sys.executable, str(ROOT / "grader" / "selftest" / "variant_case.py"), "--case", str(case),
                            "--lab-dir", str(lab.solution_dir), "--variant", str(k), "--out", str(p)],
                           capture_output=True, text=True, check=False)
        row = {"lab": lab.number, "variant": k, "file": f"alt:{name}", "source": str(p)}
        rows.append(row if r.returncode == 0 else {**row, "error": r.stdout.strip()[-160:]})
    return rows


def build(judge: str, row: dict, out: Path) -> dict:
    work = out / "work" / Path(row["source"]).stem
    with open(out / "logs" / f"{work.name}.build.log", "w") as log:
        rc = subprocess.run([judge, "build", "--lab", row["lab"], "--source", row["source"], "--work", str(work),
                             "--variant", str(row["variant"])], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, check=False).returncode
    return {**row, "work": str(work)} if rc == 0 else {**row, "error": f"build failed ({rc})"}


def timing_lines(text: str, tests: list[str]) -> list[tuple[str, re.Match]]:
    """(test, its `[ TIMING   ]` line) of one run's output: each line belongs to the test of the
    GoogleTest `[ RUN      ]` line before it (or, where the output has none, to the tests in order)."""
    out, current, plain = [], None, []
    for line in text.splitlines():
        run = re.match(r"\[ RUN      \] (\S+)", line)
        if run:
            current = run.group(1)
            continue
        m = KERNEL.search(line) or INSTRUCTION.search(line)
        if m:
            (out if current in tests else plain).append((current, m))
    if not out and len(plain) == len(tests):
        out = [(t, m) for t, (_, m) in zip(tests, plain)]
    return out


def time_file(judge: str, row: dict, tests: list[str], reps: int, out: Path) -> dict:
    """REPS runs of the file's timing tests: each test's ratios and its target."""
    got: dict[str, dict] = {t: {"ratios": [], "target": None} for t in tests}
    name = Path(row["work"]).name
    for rep in range(reps):
        r = subprocess.run([judge, "test", "--lab", row["lab"], "--work", row["work"], "--tests", ",".join(tests),
                            "--variant", str(row["variant"]), "--graded"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, check=False)
        (out / "logs" / f"{name}.run{rep}.log").write_text(r.stdout + r.stderr)
        for t, m in timing_lines(r.stdout, tests):
            if m.re is KERNEL:
                got[t]["ratios"].append(float(m.group(2)) / float(m.group(3)))
                got[t]["target"] = float(m.group(4))
            else:
                got[t]["ratios"].append(float(m.group(3)))
                got[t]["target"] = float(m.group(2))
    return {**row, "tests": got}


def table(rows: list[dict]) -> list[str]:
    out = ["lab  v  file                                 test                                      target  median"
           "    min    max  margin  over/runs  at the median"]
    for r in rows:
        if "tests" not in r:
            out.append(f"{r['lab']:>3} {r['variant']:>2}  {r['file']:<36} {r.get('error', 'not timed')}")
            continue
        for t, g in r["tests"].items():
            xs = g["ratios"]
            if not xs:
                out.append(f"{r['lab']:>3} {r['variant']:>2}  {r['file']:<36} {t.split('.')[-1]:<41} no [ TIMING ] line")
                continue
            med, tgt = statistics.median(xs), g["target"]
            over = sum(x > tgt for x in xs)
            out.append(f"{r['lab']:>3} {r['variant']:>2}  {r['file']:<36} {t.split('.')[-1]:<41} {tgt:6.2f} {med:7.3f} "
                       f"{min(xs):6.3f} {max(xs):6.3f} {tgt - med:+7.3f}  {over:>4}/{len(xs):<4}  "
                       + ("passes" if med <= tgt else "FAILS"))
    return out


def verdict(rows: list[dict]) -> int:
    timed = [g for r in rows for g in r.get("tests", {}).values() if g["ratios"]]
    if not timed:
        return 2
    bad = False
    for r in rows:
        for g in r.get("tests", {}).values():
            if not g["ratios"]:
                continue
            med = statistics.median(g["ratios"])
            if (r["file"] == "solution" or r["file"].startswith("alt:")) and med > g["target"]:
                bad = True
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--judge", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--reps", type=int, default=4, help="runs of each test of labs 04 and 06 (the border)")
    ap.add_argument("--reps-others", type=int, default=1, help="runs of each test of the other labs")
    ap.add_argument("--bad-last", action="store_true", help="the known-bad cases as the last variant too")
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--tests", choices=["kernel", "all"], default="kernel")
    ap.add_argument("--budget", type=float, default=110.0, help="seconds of timing after which no file starts")
    ap.add_argument("labs", nargs="*", default=["04", "06", "00", "01", "02", "03", "05"])
    a = ap.parse_args()
    for d in ("src", "work", "logs"):
        (a.out / d).mkdir(parents=True, exist_ok=True)
    labs = banklab_labs.find_labs(ROOT)
    t0 = time.monotonic()
    rows = [row for n in a.labs for row in files(labs[n], a.out, a.bad_last)]
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        rows = list(pool.map(lambda r: r if "error" in r else build(a.judge, r, a.out), rows))
    print(f"{len(rows)} files, built in {time.monotonic() - t0:.0f} s", flush=True)
    tests = {n: timing_tests(a.judge, n, a.tests) for n in a.labs}
    t1 = time.monotonic()
    for i, r in enumerate(rows):
        if "error" in r:
            continue
        if time.monotonic() - t1 > a.budget:
            rows[i] = {**r, "error": f"not timed: the budget of {a.budget:.0f} s was spent"}
            continue
        rows[i] = time_file(a.judge, r, tests[r["lab"]], a.reps if r["lab"] in BAD else a.reps_others, a.out)
    lines = table(rows)
    lines.append(f"\n{a.reps} runs of each test of labs {' and '.join(BAD)}, {a.reps_others} of the others' (each the "
                 "median of 31 interleaved runs with the reference); "
                 f"timing {time.monotonic() - t1:.0f} s, all {time.monotonic() - t0:.0f} s. margin = target - median "
                 "(a solved file wants it positive, a known-bad one that should fail timing negative).")
    (a.out / "variant_timing.txt").write_text("\n".join(lines) + "\n")
    (a.out / "variant_timing.json").write_text(json.dumps(rows, indent=1) + "\n")
    print("\n".join(lines))
    return verdict(rows)


if __name__ == "__main__":
    sys.exit(main())
