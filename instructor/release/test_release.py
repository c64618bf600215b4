#!/usr/bin/env python3
"""The student release works on its own: written fresh, configured from scratch, every lab
graded (the stubs fail with teaching messages; without a GPU lab 00's GPU tests run on the
emulator by default, and with BANKLAB_EMULATE=0 every GPU test skips; JUnit XML is written), and its
course site built and checked.

  python3 instructor/release/test_release.py WORKDIR      (CTest: release.*, label release)

Takes a while: it builds the whole release on this machine (-j2).
"""

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
from banklab.lab import labs as banklab_labs  # noqa: E402
TEACHING = re.compile(r"banklab explain|wavefront|prediction|bank", re.I)


def run(cmd, cwd, log, ok=(0,), timeout=3600, env=None):
    print("$", " ".join(str(c) for c in cmd), flush=True)
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL="2", **(env or {})))
    Path(log).write_text(r.stdout + r.stderr)
    if ok is not None and r.returncode not in ok:
        print(r.stdout[-4000:] + r.stderr[-4000:])
        raise SystemExit(f"FAILED: {' '.join(str(c) for c in cmd)} exited {r.returncode} (log: {log})")
    return r


def main() -> int:
    work = Path(sys.argv[1]).resolve()
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    rel = work / "student"
    logs = work / "logs"
    logs.mkdir()
    failures = []

    run([sys.executable, ROOT / "instructor" / "make-release", rel], ROOT, logs / "release.log")
    for gone in ("solutions", "grader/selftest", "instructor"):
        if (rel / gone).exists():
            failures.append(f"the release holds {gone}/")
    # The judge's files of each lab leave the student's folder (instructor/make-release, banklab.lab.labs.judge_dir).
    for d in sorted((rel / "labs").iterdir()):
        if (d / "judge").exists() or any((d / f).exists() for f in ("lab.toml", "probe.cu", "test.cu")):
            failures.append(f"the release's student folder labs/{d.name}/ holds the judge's files")
        if (d / "kernel.cu").is_file() and not (rel / "grader" / "labs" / d.name / "lab.toml").is_file():
            failures.append(f"the release has no grader/labs/{d.name}/lab.toml (the judge's files of labs/{d.name}/)")
    for wf in (".github/workflows/grade.yml", ".github/workflows/pages.yml", "RELEASE"):
        if not (rel / wf).is_file():
            failures.append(f"the release has no {wf}")
    if "--preset selftest" in (rel / "README.md").read_text():
        failures.append("the release README still runs the selftest preset")

    # No solution line and no answer in any file (release.NoSolutionLineAndNoAnswer... runs it alone).
    r = run([sys.executable, ROOT / "instructor" / "release" / "check_no_answers.py", rel], ROOT,
            logs / "answers_lines.log", ok=None)
    if r.returncode != 0:
        failures.append("the release gives answers away (instructor/release/check_no_answers.py):\n" + r.stdout[-3000:])

    labs = list(banklab_labs.find_labs(rel))   # the release's labs (python/banklab/lab/labs.py)
    run(["cmake", "--preset", "dev"], rel, logs / "configure.log")
    run(["cmake", "--build", "--preset", "dev"], rel, logs / "build.log")
    has_gpu = shutil.which("nvidia-smi") is not None and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0
    emulated = []     # labs whose GPU tests ran on the emulator (the default without a GPU: issue 47)
    for lab in labs:
        r = run(["ctest", "--preset", f"lab{lab}"], rel, logs / f"lab{lab}.log", ok=None)
        out = r.stdout + r.stderr
        if "on the emulator, not a GPU" in out:
            emulated.append(lab)
        failed = re.findall(r"\*\*\*Failed|Failed\s*$", out, re.M)
        if r.returncode == 0 or not failed:
            failures.append(f"lab {lab}: the stub passed its grading (ctest exit {r.returncode})")
        if not TEACHING.search(out):
            failures.append(f"lab {lab}: no teaching message in the grading output")
        junit = rel / "build" / "dev" / f"junit-lab{lab}.xml"
        if not junit.is_file():
            failures.append(f"lab {lab}: {junit.relative_to(rel)} was not written")
        else:
            cases = list(ET.parse(junit).getroot().iter("testcase"))
            if not cases:
                failures.append(f"lab {lab}: {junit.name} holds no test case")
        print(f"lab {lab}: ctest exit {r.returncode}, {len(failed)} failed (expected: the stub fails)")
    # ... nor in what grading the untouched stubs prints (the release's own judge).
    r = run([sys.executable, ROOT / "instructor" / "release" / "check_no_answers.py", rel, "--grade-stubs",
             rel / "build" / "dev" / "grader" / "banklab-judge"], ROOT, logs / "answers_messages.log", ok=None)
    if r.returncode != 0:
        failures.append("grading the release's stubs prints answers (check_no_answers.py --grade-stubs):\n"
                        + r.stdout[-3000:])
    if not has_gpu and "00" not in emulated:
        failures.append("without a GPU lab 00's GPU tests did not run on the emulator (its run summary does not say so)")
    if not has_gpu:   # BANKLAB_EMULATE=0: never the emulator, so every GPU test skips
        r = run(["ctest", "--test-dir", "build/dev", "-L", "gpu"], rel, logs / "gpu.log", ok=None,
                env={"BANKLAB_EMULATE": "0"})
        if r.returncode != 0:
            failures.append("without a GPU a GPU test failed instead of skipping (logs/gpu.log)")
        elif "Skipped" not in r.stdout and "Not Run" not in r.stdout:
            failures.append("without a GPU no GPU test reported skipped")

    run(["cmake", "--build", "build/dev", "--target", "docs"], rel, logs / "docs.log")
    r = run(["ctest", "--test-dir", "build/dev", "-L", "docs", "--output-on-failure"], rel,
            logs / "docs_tests.log", ok=None)
    if r.returncode != 0:
        failures.append("the release's site tests failed (logs/docs_tests.log):\n" + r.stdout[-3000:])
    if not (rel / "build" / "dev" / "docs" / "html" / "index.html").is_file():
        failures.append("the release's site has no index.html")

    # No answers in what students get: every text file of the release and every page of its
    # built site, checked against the answers evaluated from the course's solutions/.
    ans = work / "answers"
    ans.mkdir()
    run([sys.executable, ROOT / "docs/scripts/gen_answers.py", "--source", ROOT, "--out", ans / "answers.cu",
         "--nvcc", shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc", "--json", ans / "answers.jsonl"],
        ROOT, logs / "answers.log")
    # (the site: its course pages, as docs.no_leaks checks the course's own site)
    for mode, where in (("tree", ["--tree", rel]), ("site", ["--html", rel / "build" / "dev" / "docs" / "html"])):
        r = run([sys.executable, ROOT / "docs/tests/leakcheck.py", mode, *where, "--source", ROOT,
                 "--answers", ans / "answers.jsonl"], ROOT, logs / f"leaks_{mode}.log", ok=None)
        if r.returncode != 0:
            failures.append(f"answers in the release ({mode}):\n" + r.stdout[-3000:])
    # The instructor site (solutions, the hardware page's hidden counts) cannot be built from it.
    r = run(["cmake", "-S", ".", "-B", "build/solutions-site", "-G", "Ninja", "-DBANKLAB_DOCS_SOLUTIONS=ON"],
            rel, logs / "docs_solutions.log", ok=None)
    if r.returncode == 0:
        failures.append("the release configures with -DBANKLAB_DOCS_SOLUTIONS=ON")

    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print(f"the student release configures, grades {len(labs)} labs and builds its site from scratch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
