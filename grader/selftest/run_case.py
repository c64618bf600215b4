#!/usr/bin/env python3
"""One selftest case, end to end: make the case's kernel.cu, grade it with banklab-judge, and
check the verdicts against what the case must do (grader/selftest/README.md).

  run_case.py --judge J --lab 05 --folder 05_swizzle --root SRC --work DIR --kind stub
  run_case.py ... --kind bad|cheat|alternative --case FILE

stub         the stub in labs/ must fail at least one test, with a message naming banks or a
             prediction (it is what a student starts from).
bad          a patch against solutions/: the test named in its EXPECT_FAIL line must fail.
cheat        combined with the stub: every test the plain stub fails must still fail.
alternative  a patch against solutions/: every test must pass (GPU tests may skip without a GPU).
Exit 0: the expectation holds; 1: it does not; 77: the case needs a GPU and there is none.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def grade(judge, lab, source, work, tier):
    out = os.path.join(work, "grade.json")
    if os.path.exists(out):
        os.remove(out)
    cmd = [judge, "grade", "--lab", lab, "--source", source, "--work", work, "--json", out, "--tier", tier]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
    print(p.stdout[-6000:])
    if not os.path.exists(out):
        print("FAILED: the judge wrote no grade file")
        sys.exit(1)
    with open(out) as f:
        return json.load(f)["verdicts"]


def header(path, key):
    with open(path) as f:
        for line in f:
            if key + ":" in line:
                return line.split(key + ":", 1)[1].strip()
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--lab", required=True)
    ap.add_argument("--folder", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--kind", required=True, choices=["stub", "bad", "cheat", "alternative"])
    ap.add_argument("--case")
    ap.add_argument("--tier", default="all")
    ap.add_argument("--stub-grade", help="the stub's grade.json from the lab's stub_fails case (graded again if absent)")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    stub = os.path.join(a.root, "labs", a.folder, "kernel.cu")
    solution = os.path.join(a.root, "solutions", a.folder, "kernel.cu")

    if a.kind == "stub":
        v = grade(a.judge, a.lab, stub, a.work, a.tier)
        failed = [x for x in v if x["status"] == "failed"]
        teaching = [x for x in failed if "bank " in x["message"] or "prediction" in x["message"]]
        print(f"stub: {len(failed)} failed, {len(teaching)} with a message naming banks or a prediction")
        return 0 if failed and teaching else 1

    base = stub if a.kind == "cheat" else solution
    source = os.path.join(a.work, "kernel.cu")
    m = subprocess.run([sys.executable, os.path.join(HERE, "materialize.py"), "--case", a.case, "--lab-dir",
                        os.path.dirname(base), "--out", source], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if m.returncode != 0:
        print(m.stdout)
        print(f"FAILED: {a.case} does not apply to {base}: a stale case must be updated")
        return 1
    v = grade(a.judge, a.lab, source, os.path.join(a.work, "judge"), a.tier)
    by = {x["test"]: x for x in v}
    gpu_ran = any(x["tier"] == "gpu" and x["status"] != "skipped" for x in v)

    if a.kind == "bad":
        expect = header(a.case, "EXPECT_FAIL")
        if not expect or expect.split()[0] not in by:
            print(f"FAILED: {a.case} names no test of lab {a.lab} in its EXPECT_FAIL line ({expect})")
            return 1
        t = by[expect.split()[0]]
        if t["status"] == "skipped":
            print(f"skipped: {t['test']} cannot run here ({t['message']})")
            return SKIP
        print(f"{t['test']}: {t['status']}")
        return 0 if t["status"] == "failed" else 1

    if a.kind == "alternative":
        bad = [x for x in v if x["status"] == "failed"]
        for x in bad:
            print(f"FAILED (a valid alternative must pass): {x['test']}: {x['message'][:2000]}")
        return 1 if bad else 0

    # cheat: whatever the stub fails must still fail
    tier = (header(a.case, "TIER") or "cpu").split()[0]
    if tier == "gpu" and not gpu_ran:
        print("skipped: this cheat is judged by the GPU tier, and no GPU runs here")
        return SKIP
    if a.stub_grade and os.path.exists(a.stub_grade):
        with open(a.stub_grade) as f:
            sv = json.load(f)["verdicts"]
    else:
        sv = grade(a.judge, a.lab, stub, os.path.join(a.work, "stub"), a.tier)
    must_fail = [x["test"] for x in sv if x["status"] == "failed"]
    won = [t for t in must_fail if by.get(t, {}).get("status") == "passed"]
    for t in won:
        print(f"FAILED: the cheat passes {t}, which the plain stub fails")
    if not must_fail:
        print("FAILED: the plain stub failed nothing here, so the cheat cannot be judged")
        return 1
    print(f"cheat: {len(must_fail)} tests the stub fails, {len(won)} of them passed by the cheat")
    return 1 if won else 0


if __name__ == "__main__":
    sys.exit(main())
