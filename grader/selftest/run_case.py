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
--variant K  (bad, alternative) the case as the lab's per-student variant K, graded with --variant K
             (variant_case.py: the patch applied to the solution, rendered as the variant).
Exit 0: the expectation holds; 1: it does not; 77: the case needs a GPU and there is none.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def grade(judge, lab, source, work, tier, variant=None):
    out = os.path.join(work, "grade.json")
    if os.path.exists(out):
        os.remove(out)
    cmd = [judge, "grade", "--lab", lab, "--source", source, "--work", work, "--json", out, "--tier", tier]
    cmd += [] if variant is None else ["--variant", str(variant)]
    # The known-bad GPU cases and cheats are the GPU's to judge: without one they skip (BANKLAB_EMULATE=0),
    # unless the caller asks for the emulator (BANKLAB_EMULATE=1: judge.EmulatedGpuTierNN judges the
    # cases it lists on it, docs/dev/EMULATOR.md).
    env = dict(os.environ)
    env.setdefault("BANKLAB_EMULATE", "0")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800, env=env)
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
    ap.add_argument("--graded", action="store_true", help="graded mode: a GPU test that cannot run fails")
    ap.add_argument("--sanitizer", help="compute-sanitizer, for known-bad cases judged by a tool (EXPECT_TOOL)")
    ap.add_argument("--variant", type=int, help="bad, alternative: judge the case as this variant of the lab")
    ap.add_argument("--banklab", help="with --variant: the built banklab (the model counts the variant's answers)")
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
    if a.variant is not None and a.kind not in ("bad", "alternative"):
        ap.error("--variant is for known-bad cases and alternatives")
    tool = "variant_case.py" if a.variant is not None else "materialize.py"
    extra = [] if a.variant is None else ["--variant", str(a.variant)] + (["--banklab", a.banklab] if a.banklab else [])
    m = subprocess.run([sys.executable, os.path.join(HERE, tool), "--case", a.case, "--lab-dir",
                        os.path.dirname(base), "--out", source] + extra,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(m.stdout)
    if m.returncode != 0:
        print(f"FAILED: {a.case} does not apply to {base}: a stale case must be updated")
        return 1
    verdicts = grade(a.judge, a.lab, source, os.path.join(a.work, "judge"), a.tier, a.variant)
    tool = header(a.case, "EXPECT_TOOL") if a.kind == "bad" else None
    if tool:
        # A defect that shows only under compute-sanitizer (a race need not change any one run's
        # result): when the named test passed on the GPU, the tool must flag it.
        name = header(a.case, "EXPECT_FAIL").split()[0]
        status = {x["test"]: x["status"] for x in verdicts}.get(name)
        if status == "passed":
            if not a.sanitizer:
                print(f"skipped: {name} passed and compute-sanitizer is not here to judge the {tool} case")
                return SKIP
            t = subprocess.run([sys.executable, os.path.join(HERE, "..", "run_gpu_tool.py"), "--tool", tool.split()[0],
                                "--sanitizer", a.sanitizer, "--judge", a.judge, "--lab", a.lab, "--work",
                                os.path.join(a.work, "judge"), "--tests", name],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
            print(t.stdout[-4000:])
            if t.returncode == 1:
                print(f"OK: compute-sanitizer --tool {tool} flags {name}")
                return 0
            if t.returncode == SKIP:
                return SKIP
    # What must hold is decided by expect.py, for every kind (one home for the rule): the grade is
    # well formed and of this file; bad: the named test failed; alternative: everything passed
    # (GPU tests may skip without a GPU); cheat: every test the stub fails still fails, none is
    # missing or added, nothing the cheat printed reached a verdict, and a gpu-tier cheat fails a
    # GPU test (77 where no GPU test could run).
    argv = ["--case", a.case, "--verdicts", os.path.join(a.work, "judge", "grade.json"), "--source", source,
            "--probe-log", os.path.join(a.work, "judge", "probe.log")]
    if a.kind == "cheat":
        stub_json = a.stub_grade
        if not (stub_json and os.path.exists(stub_json)):
            grade(a.judge, a.lab, stub, os.path.join(a.work, "stub"), a.tier)
            stub_json = os.path.join(a.work, "stub", "grade.json")
        argv += ["--stub-verdicts", stub_json]
    if a.graded:
        argv.append("--graded")
    import expect  # noqa: E402 (standard library only, beside this file)
    return expect.main(argv)


if __name__ == "__main__":
    sys.exit(main())
