#!/usr/bin/env python3
"""A student's release grades its own variant, whatever line the file carries, and says so (issue 44).

  python3 instructor/release/test_release_variant.py WORKDIR      (CTest: release.ARelease...OwnVariant)

make-release --variant 4 writes `release = 4` into lab 05's [variants] (grader/labs/05_swizzle/lab.toml);
the release's judge registers it (gen.py), and `banklab-judge build`/`test`/`grade` told no variant
grade variant 4 (grader/judge/main.cpp, choose_variant). The release is configured and its lab 05
judge built (that target only), then ctest's CPU tier of lab 05 runs on three files put in
labs/05_swizzle/kernel.cu, as a student would:
  - a classmate's variant-0 file (the lab's solution: no `// banklab variant:` line; the issue's case,
    all green before): a Layout test fails (its float4 tile is not variant 4's) and the run summary
    says "graded as variant 4 ...; this file carries no `// banklab variant:` line";
  - a classmate's variant-2 solved file (its line names 2; rows of 4 chunks, variant 4's of 32: no two
    variants share a float4 kernel): a Layout test fails, the summary says
    "was written for variant 2", and `banklab-judge grade` with no --variant gives Lab05.Variant failed;
  - the student's own variant-4 solved file: every Layout test passes and the summary says nothing of
    a variant (the valid case).
The solved files come from the model (`banklab`: $BANKLAB_CLI or a build of the course). CPU only;
a few minutes (one configure, one judge build, three builds of a kernel).
"""
from __future__ import annotations

import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
COURSE = HERE.parents[1]
runpy.run_path(str(COURSE / "python" / "banklab_run.py"))  # banklab's path, set in one place
from banklab.lab import labs as banklab_labs  # noqa: E402
from banklab.lab import variants as banklab_variants  # noqa: E402

K = 4
LAB = banklab_labs.find_labs(COURSE)["05"]


def run(cmd, cwd, log: Path, ok=(0,), timeout=1800) -> subprocess.CompletedProcess:
    print("$", " ".join(map(str, cmd)), flush=True)
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL="2"))
    log.write_text(r.stdout + r.stderr)
    if ok is not None and r.returncode not in ok:
        raise SystemExit(f"FAILED: {' '.join(map(str, cmd))} exited {r.returncode} (log: {log}):\n"
                         f"{r.stdout[-3000:]}{r.stderr[-3000:]}")
    return r


def main() -> int:
    work = Path(sys.argv[1]).resolve()
    shutil.rmtree(work, ignore_errors=True)
    (work / "logs").mkdir(parents=True)
    logs, rel = work / "logs", work / "release"
    failures: list[str] = []

    def check(ok: bool, what: str) -> None:
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        if not ok:
            failures.append(what)

    files = {"classmate0": LAB.solution.read_text(), "classmate2": banklab_variants.solution(LAB, 2),
             "own": banklab_variants.solution(LAB, K)}
    check(banklab_variants.named_variant(files["classmate0"], "05") is None, "the variant-0 file carries no line")
    run([sys.executable, COURSE / "instructor" / "make-release", rel, "--variant", K], COURSE, logs / "release.log")
    toml = tomllib.loads((rel / "grader" / "labs" / LAB.folder / "lab.toml").read_text())
    check(toml.get("variants", {}).get("release") == K, f"the release's lab.toml says release = {K}")
    run(["cmake", "--preset", "dev"], rel, logs / "configure.log")
    run(["cmake", "--build", "build/dev", "--target", "banklab_judge_lab05"], rel, logs / "build.log")
    judge = rel / "build" / "dev" / "grader" / "banklab-judge-lab05"
    kernel = rel / "labs" / LAB.folder / "kernel.cu"
    for name, text in files.items():
        kernel.write_text(text)
        r = run(["ctest", "--test-dir", "build/dev", "-R", r"^lab05\.", "-L", "cpu"], rel, logs / f"ctest_{name}.log",
                ok=None)
        out = r.stdout + r.stderr
        layout_failed = re.findall(r"lab05\.Lab05Layout\.\S+ \.+\*+Failed", out)
        summary = next((l for l in out.splitlines() if l.startswith("lab05 judged:") or
                        l.startswith("lab05: nothing judged")), "")
        print(f"  {name}: ctest exit {r.returncode}, {len(layout_failed)} Layout failed; summary: {summary}")
        if name == "own":
            check(not layout_failed and "lab05.Lab05Layout" in out, "the student's own variant-4 file passes every "
                  f"Layout test in the release ({len(layout_failed)} failed)")
            check(bool(summary) and "graded as variant" not in summary, "and the summary says nothing of a variant")
        else:
            check(bool(layout_failed), f"{name}'s file is judged as variant {K} in the release: a Layout test fails "
                  f"(its float4 tile is another variant's): {layout_failed[:2]}")
            said = (f"graded as variant {K}, your own; this file " in summary and ("carries no `// banklab variant:` line" in summary
                    if name == "classmate0" else "was written for variant 2" in summary))
            check(said, f"the run summary says the variant graded and the file's: {summary!r}")
    # banklab-judge grade in the release, told no variant: the release's, with the mismatch recorded.
    kernel.write_text(files["classmate2"])
    out = work / "grade.json"
    run([judge, "grade", "--lab", "05", "--source", kernel, "--work", work / "grade", "--json", out, "--tier", "cpu"],
        rel, logs / "grade.log")
    recs = {v["test"]: v for v in json.loads(out.read_text())["verdicts"]}
    rec = recs.get("Lab05.Variant", {})
    check(rec.get("status") == "failed" and f"yours is variant {K}, and" in rec.get("message", ""),
          f"banklab-judge grade with no --variant in the release records Lab05.Variant: {rec.get('message', '')!r}")
    print("FAILED: " + "; ".join(failures) if failures else "the release grades its own variant and says so")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
