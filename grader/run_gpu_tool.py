#!/usr/bin/env python3
"""Run a lab's GPU tests under compute-sanitizer or Nsight Compute, as one CTest test.

  run_gpu_tool.py --tool memcheck|racecheck --exe grade_lab04 --filter 'Lab04OnGpu.*Correct*'
  run_gpu_tool.py --tool ncu --ncu /path/ncu --exe grade_lab04 --filter 'Lab04OnGpu.*Correct*'

First the tests run plainly: if they are skipped (no GPU), this prints BANKLAB-SKIP and CTest
reports the test skipped. Under ncu, every test prints the model's prediction for each kernel it
launches, as lines
    [ MODEL    ] kernel=<name> ld=<wavefronts> st=<wavefronts>
and this script checks that Nsight Compute's counts for the launches of that kernel agree.
"""
import argparse
import csv
import io
import re
import subprocess
import sys

LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"


def run(cmd, timeout):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return p.returncode, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True, choices=["memcheck", "racecheck", "ncu"])
    ap.add_argument("--exe", required=True)
    ap.add_argument("--filter", required=True)
    ap.add_argument("--sanitizer", default="compute-sanitizer")
    ap.add_argument("--ncu", default="ncu")
    args = ap.parse_args()
    gtest = [args.exe, "--gtest_filter=" + args.filter, "--gtest_color=no"]

    rc, out = run(gtest, 300)
    if "[  SKIPPED ]" in out and "[  PASSED  ]" not in out.replace("[  PASSED  ] 0 tests", ""):
        print(out)
        print("BANKLAB-SKIP: the GPU tests were skipped here (no GPU), so", args.tool, "cannot run")
        return 0
    if "0 tests from 0 test suites ran" in out:
        print(out)
        print("no test matches", args.filter)
        return 1

    if args.tool in ("memcheck", "racecheck"):
        cmd = [args.sanitizer, "--tool", args.tool, "--error-exitcode", "99"]
        if args.tool == "racecheck":
            cmd += ["--racecheck-report", "all"]
        rc, out = run(cmd + gtest, 900)
        print(out)
        if rc != 0:
            print(f"FAILED: compute-sanitizer --tool {args.tool} found problems (exit {rc})")
            return 1
        print(f"OK: compute-sanitizer --tool {args.tool} found nothing")
        return 0

    # ncu: count shared wavefronts of every kernel launch and compare with the model.
    cmd = [args.ncu, "--clock-control", "none", "--csv", "--metrics", LD + "," + ST] + gtest
    rc, out = run(cmd, 900)
    if "ERR_NVGPUCTRPERM" in out:
        print(out)
        print("BANKLAB-SKIP: this user may not read the GPU's performance counters (ERR_NVGPUCTRPERM)")
        return 0
    if rc != 0:
        print(out)
        print(f"FAILED: ncu exited with {rc}")
        return 1
    predicted = {}
    for m in re.finditer(r"\[ MODEL    \] kernel=(\S+) ld=(\d+) st=(\d+)", out):
        predicted.setdefault(m.group(1), []).append((int(m.group(2)), int(m.group(3))))
    csv_lines = [l for l in out.splitlines() if l.startswith('"')]
    measured = {}
    order = []
    for row in csv.DictReader(io.StringIO("\n".join(csv_lines))):
        key = (row["ID"], row["Kernel Name"])
        if key not in measured:
            measured[key] = {}
            order.append(key)
        measured[key][row["Metric Name"]] = int(float(row["Metric Value"].replace(",", "")))
    if not predicted:
        print(out)
        print("FAILED: the tests printed no '[ MODEL    ] kernel=... ld=... st=...' line to compare with")
        return 1
    failures = 0
    checked = 0
    for name, preds in predicted.items():
        launches = [measured[k] for k in order if re.search(r"\b" + re.escape(name) + r"\b", k[1])]
        if len(launches) < len(preds):
            print(f"FAILED: ncu saw {len(launches)} launches of '{name}', the tests announced {len(preds)}")
            failures += 1
            continue
        # the announced launches are the last ones of that kernel (earlier ones may be warm-ups)
        for (ld, st), got in zip(preds, launches[-len(preds):]):
            checked += 1
            gl, gs = got.get(LD, -1), got.get(ST, -1)
            ok = gl == ld and gs == st
            failures += not ok
            print(f"{'OK    ' if ok else 'DIFFER'} {name}: ncu ld={gl} st={gs}, model ld={ld} st={st}")
    print(f"{checked - failures}/{checked} kernel launches match the model")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
