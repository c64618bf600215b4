#!/usr/bin/env python3
"""Paired cost of the judge's confinement: `banklab-judge build` of each lab's stub, before and after.

Runs `JUDGE build --lab NN --source labs/NN_name/kernel.cu --work FRESH_DIR` with two judge binaries
(A = before, B = after), alternating A B A B ... (the order of each pair flips every pair, so that a
load that rises or falls during a pair does not always favour one side), and prints a markdown table
per lab: the median wall seconds and the median user+sys CPU seconds of each judge and the
after/before ratio. CPU seconds are those of a cgroup v1 cpuacct group made for each run (the judge,
bubblewrap, the compilers, the probe: all it starts), root only; beside them, the judge's own rusage
(itself and what it reaped), which misses the sandboxed processes' time.

CPU seconds are the robust figure on a loaded machine; wall is printed beside them, with the load
average read before and after the whole run.

Optionally (--step-a/--step-b) times a bare sandboxed step (`true`) with a small program per judge
tree that calls judge::run_steps (bench/sandbox_step_cost.cpp) and prints its medians too.

Usage:
  nice -n 10 python3 bench/confinement_cost.py --a build/before/grader/banklab-judge \
      --b build/after/grader/banklab-judge --labs 00 01 02 03 04 05 06 07 --pairs 3
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def lab_source(lab: str) -> Path:
    found = sorted(ROOT.glob(f"labs/{lab}_*/kernel.cu"))
    if not found:
        raise SystemExit(f"no labs/{lab}_*/kernel.cu under {ROOT}")
    return found[0]


CPUACCT = Path("/sys/fs/cgroup/cpuacct")  # cgroup v1's CPU accounting (this machine; root only)


def cpuacct_group() -> Path | None:
    """A fresh cpuacct cgroup for one run, or None (no cgroup v1 cpuacct, or not root).

    The judge's compilers and probe run under bubblewrap, whose reaping does not carry their CPU time
    up to the judge's own rusage (a root judge's build showed 0.56 s user+sys for two nvcc runs), so
    CPU seconds are read from a cgroup that every process of the run inherits: the judge moves a step
    only in the memory and pids hierarchies, never in cpuacct."""
    if os.geteuid() != 0 or not (CPUACCT / "cpuacct.usage_user").exists():
        return None
    group = CPUACCT / f"confinement_cost_{os.getpid()}_{time.monotonic_ns()}"
    group.mkdir()
    return group


def timed(argv: list[str], cwd: Path | None = None) -> tuple[float, float, float, int, str]:
    """Runs argv; returns (wall s, user+sys CPU s of its cgroup (-1 without), user+sys CPU s of its
    rusage (itself and what it waited for), exit status, last line of its output)."""
    group = cpuacct_group()
    procs = str(group / "cgroup.procs") if group else None

    def enter() -> None:  # in the child, before exec: everything it starts stays in the group
        if procs:
            with open(procs, "w") as f:
                f.write("0")

    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=enter)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    cg_cpu = -1.0
    if group:
        ns = sum(int((group / f).read_text()) for f in ("cpuacct.usage_user", "cpuacct.usage_sys"))
        cg_cpu = ns / 1e9
        for _ in range(50):  # a straggler of the run may still be leaving the group
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)
    tail = out.decode(errors="replace").strip().splitlines()[-1:] or [""]
    return wall, cg_cpu, usage.ru_utime + usage.ru_stime, proc.returncode, tail[0][:160]


def build_once(judge: str, lab: str) -> tuple[float, float, int, str]:
    work = Path(tempfile.mkdtemp(prefix=f"confcost_{lab}_"))
    try:
        return timed([judge, "build", "--lab", lab, "--source", str(lab_source(lab)),
                      "--work", str(work / "w")])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def paired(label: str, pairs: int, run_a, run_b) -> dict:
    rows = {"a": [], "b": []}
    for i in range(pairs):
        order = (("a", run_a), ("b", run_b)) if i % 2 == 0 else (("b", run_b), ("a", run_a))
        for side, fn in order:
            wall, cpu, own, rc, tail = fn()
            rows[side].append((wall, cpu, own, rc))
            print(f"  {label} pair {i + 1} {side}: wall {wall:.2f} s, cpu {cpu:.2f} s (rusage {own:.2f}), rc {rc}"
                  f" (load {load()}) {tail}", file=sys.stderr, flush=True)
    return rows


def med(rows, k: int) -> float:
    return statistics.median(r[k] for r in rows)


def table_row(label: str, rows: dict) -> str:
    wa, wb, ca, cb = med(rows["a"], 0), med(rows["b"], 0), med(rows["a"], 1), med(rows["b"], 1)
    oa, ob = med(rows["a"], 2), med(rows["b"], 2)
    rcs = sorted({r[3] for r in rows["a"]}) + ["/"] + sorted({r[3] for r in rows["b"]})
    return (f"| {label} | {len(rows['a'])} | {ca:.2f} | {cb:.2f} | {cb / ca:.2f} | {wa:.2f} | {wb:.2f}"
            f" | {wb / wa:.2f} | {oa:.2f} / {ob:.2f} | {' '.join(map(str, rcs))} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="the before judge (banklab-judge)")
    ap.add_argument("--b", required=True, help="the after judge (banklab-judge)")
    ap.add_argument("--labs", nargs="+", default=[f"{i:02d}" for i in range(8)])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--step-a", help="before tree's sandbox_step_cost program (times `true`)")
    ap.add_argument("--step-b", help="after tree's sandbox_step_cost program")
    ap.add_argument("--step-pairs", type=int, default=10)
    args = ap.parse_args()

    header = ("| lab | pairs | CPU before (s) | CPU after (s) | CPU after/before | wall before (s)"
              " | wall after (s) | wall after/before | judge's rusage CPU before / after (s)"
              " | exit status before / after |")
    lines = [header, "|" + "---|" * 10]
    print(f"load before: {load()}", file=sys.stderr)
    load_start = load()
    for lab in args.labs:
        rows = paired(f"lab {lab}", args.pairs, lambda: build_once(args.a, lab),
                      lambda: build_once(args.b, lab))
        lines.append(table_row(lab, rows))
    if args.step_a and args.step_b:
        rows = paired("true", args.step_pairs, lambda: timed([args.step_a]), lambda: timed([args.step_b]))
        lines.append(table_row("one step `true`", rows))
    print(f"load average (1, 5, 15 min) at the start: {load_start}; at the end: {load()}\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
