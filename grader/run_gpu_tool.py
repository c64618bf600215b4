#!/usr/bin/env python3
"""Run a lab's GPU correctness tests under compute-sanitizer or Nsight Compute, as one CTest test.

  run_gpu_tool.py --judge banklab-judge --lab 04 --work DIR --tests A,B --tool memcheck|racecheck
  run_gpu_tool.py --judge banklab-judge --lab 04 --work DIR --tests A,B --tool ncu --ncu /path/ncu

Each test first runs plainly, on a GPU only (BANKLAB_EMULATE=0: never the judge's emulator): exit 77
(no GPU) makes this exit 77 (CTest: skipped). Under
compute-sanitizer any reported error fails. Under ncu, each test prints the model's prediction
for the kernels it launches, as lines
    [ MODEL    ] kernel=<name> ld=<wavefronts> st=<wavefronts or -1>
and Nsight Compute's counts for those launches must be at least that: on a busy kernel ncu counts
wavefronts that no single instruction explains, so its count is a lower bound, never an equality.
This is a cross-check of the model, not a verdict on the student (the traced test is that).
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys

LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
SKIP = 77


def run(cmd, timeout):
    # BANKLAB_EMULATE=0: these tools judge the GPU itself, never the emulator (which the judge uses by
    # default where no GPU is usable): without a GPU the test skips, and so does this.
    env = dict(os.environ, BANKLAB_EMULATE="0")
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or "") + f"\n(killed after {timeout} s)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True, choices=["memcheck", "racecheck", "ncu"])
    ap.add_argument("--judge", required=True)
    ap.add_argument("--lab", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--tests", required=True, help="comma-separated Suite.Name list")
    ap.add_argument("--sanitizer", default="compute-sanitizer")
    ap.add_argument("--ncu", default="ncu")
    args = ap.parse_args()
    failures = 0
    for test in args.tests.split(","):
        judge = [args.judge, "test", "--lab", args.lab, "--work", args.work, "--test", test]
        rc, out = run(judge, 300)
        if rc == SKIP:
            print(out)
            print(f"skipped: {test} cannot run here (no GPU), so {args.tool} cannot judge it")
            return SKIP
        if args.tool in ("memcheck", "racecheck"):
            cmd = [args.sanitizer, "--tool", args.tool, "--error-exitcode", "99"]
            if args.tool == "racecheck":
                cmd += ["--racecheck-report", "all"]
            rc, out = run(cmd + judge, 900)
            print(out)
            if rc == 99 or "ERROR SUMMARY: 0 errors" not in out and "RACECHECK SUMMARY: 0 hazards" not in out:
                print(f"FAILED: compute-sanitizer --tool {args.tool} found problems in {test} (exit {rc})")
                failures += 1
            else:
                print(f"OK: compute-sanitizer --tool {args.tool} found nothing in {test}")
            continue
        cmd = [args.ncu, "--clock-control", "none", "--csv", "--metrics", LD + "," + ST] + judge
        rc, out = run(cmd, 900)
        if "ERR_NVGPUCTRPERM" in out:
            print(out)
            print("skipped: this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM)")
            return SKIP
        predicted = [(m.group(1), int(m.group(2)), int(m.group(3)))
                     for m in re.finditer(r"\[ MODEL    \] kernel=(\S+) ld=(\d+) st=(-?\d+)", out)]
        measured, order = {}, []
        for row in csv.DictReader(io.StringIO("\n".join(l for l in out.splitlines() if l.startswith('"')))):
            key = (row["ID"], row["Kernel Name"])
            if key not in measured:
                measured[key] = {}
                order.append(key)
            measured[key][row["Metric Name"]] = int(float(row["Metric Value"].replace(",", "")))
        if not predicted:
            print(out)
            print(f"FAILED: {test} printed no '[ MODEL    ] kernel=...' line to compare with")
            failures += 1
            continue
        for name, ld, st in predicted:
            launches = [measured[k] for k in order if re.search(r"\b" + re.escape(name) + r"\b", k[1])]
            if not launches:
                print(f"FAILED: ncu saw no launch of '{name}'")
                failures += 1
                continue
            got = launches[0]  # the correctness test launches the student's kernel once
            gl, gs = got.get(LD, -1), got.get(ST, -1)
            ok = gl >= ld and (st < 0 or gs >= st)
            failures += not ok
            print(f"{'OK   ' if ok else 'BELOW'} {name}: ncu ld={gl} st={gs} >= model ld={ld} st={st if st >= 0 else '(not described)'}")
    print("FAILED" if failures else "OK", f"({failures} problem(s))")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
