#!/usr/bin/env python3
"""Throughput of the batch grader: N submissions of one lab (default 100 of lab 05, CPU tier).

  python3 bench/batch_throughput.py [--judge PATH] [-n 100] [--lab 05] [-j 2] [--tier cpu]

A benchmark, not a test: it makes N student folders (the stub, the solution when the course
repository has one, and the known-bad kernels, in turn; each file gets a unique comment so no
two hashes are equal and nothing is reused), grades them once from an empty output folder with
instructor/batch/grade-class, and prints submissions per minute and seconds per submission. It then
runs again on the same folder to time a resumed run (everything reused). Say what else the
machine was doing when you quote the figure.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[1] / "python" / "banklab_run.py"))  # banklab's path, set in one place

ROOT = Path(__file__).resolve().parents[1]
from banklab.lab import labs as banklab_labs  # noqa: E402


def kernel_texts(lab_nr: str, bad: bool = True) -> list[str]:
    """The lab's stub, its solution when the course repository has one, and (with `bad`) its
    known-bad kernels (solutions/NN_name/cases/bad/*.patch against the solution), in that order."""
    lab = banklab_labs.find_labs(ROOT)[banklab_labs.lab_number(lab_nr)]
    sources = [lab.stub]
    if lab.solution.is_file():
        sources.append(lab.solution)
    texts = [src.read_text() for src in sources]
    sel = ROOT / "grader" / "selftest"
    for case in lab.cases("bad") if bad and len(sources) > 1 else []:
        r = subprocess.run([sys.executable, str(sel / "materialize.py"), "--case", str(case), "--lab-dir",
                            str(lab.solution_dir), "--out", "/dev/stdout"], capture_output=True, text=True)
        if r.returncode == 0 and "SLOW: yes" not in case.read_text():
            texts.append(r.stdout)
    return texts


def write_class(subs: Path, lab_nr: str, n: int, texts: list[str], pick=None) -> list[int]:
    """N student folders under `subs`, student i handing in texts[pick(i)] (default i % len) as
    NN_name.cu, each with a unique comment (no two hashes equal, nothing reused). Returns the picks."""
    lab_dir = banklab_labs.find_labs(ROOT)[banklab_labs.lab_number(lab_nr)].folder
    picks = []
    for i in range(n):
        k = pick(i) if pick else i % len(texts)
        d = subs / f"student{i:03d}"
        d.mkdir(parents=True)
        (d / f"{lab_dir}.cu").write_text(texts[k] + f"\n// submission {i} (kernel {k})\n")
        picks.append(k)
    return picks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judge", default=os.environ.get("BANKLAB_JUDGE"))
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--lab", default="05")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--tier", default="cpu")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    a = ap.parse_args()

    texts = kernel_texts(a.lab)
    work = Path(tempfile.mkdtemp(prefix="banklab-throughput-"))
    work.chmod(0o755)   # run as root, the judge runs each probe as nobody, which must reach it
    subs = work / "submissions"
    write_class(subs, a.lab, a.n, texts)
    cmd = [sys.executable, str(ROOT / "instructor" / "batch" / "grade-class"), str(subs), "--out", str(work / "out"),
           "--lab", a.lab, "-j", str(a.jobs), "--tier", a.tier, "--quiet"]
    if a.judge:
        cmd += ["--judge", a.judge]
    print(f"{a.n} submissions of lab {a.lab} ({len(texts)} distinct kernels), tier {a.tier}, -j {a.jobs}, "
          f"{os.cpu_count()} CPUs, load average before: {os.getloadavg()[0]:.2f}")
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    t1 = time.monotonic()
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        return 1
    r2 = subprocess.run(cmd, capture_output=True, text=True)
    t2 = time.monotonic()
    summary = json.loads((work / "out" / "summary.json").read_text())
    lab = summary["labs"][a.lab]
    print(f"first run: {t1 - t0:.1f} s = {a.n / (t1 - t0) * 60:.1f} submissions/min "
          f"({(t1 - t0) / a.n:.2f} s each); load average after: {os.getloadavg()[0]:.2f}")
    print(f"resumed run (all reused): {t2 - t1:.1f} s; {r2.stdout.strip().splitlines()[-1]}")
    print(f"points: mean {lab['mean']} of {lab['max']}, {lab['full_marks']} full marks")
    if a.keep:
        print(f"kept {work}")
    else:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
