#!/usr/bin/env python3
"""Per-student variants are graded against the student's own variant (issue 35, docs/dev/VARIANTS.md).

  test_variants.py --judge BANKLAB_JUDGE --banklab BANKLAB --root ROOT [--lab 01]   (CTest: judge.VariantsAreGradedAsTheStudents)

For a lab that declares variants: 12 student ids give at least 3 distinct variants (course seed
fixed here); no two variants' answers (the model's counts) are the same; every variant k >= 1
(variant 0, the lab as written, is the selftest's) has a stub of its own, which compiles and fails
the CPU tier's Layout and Predictions tests as a stub should, and a solved file that gets every
CPU test graded with no --variant: the judge reads its `// banklab variant:` line (the base lab's
answers differ from k's: it passes only so). For two
students of different variants (k, j): j's solved file graded as k's (a classmate's copy) is
reported in record LabNN.Variant as "this file is lab NN's variant j ... made for another student"
and loses the predictions. The lab as written's solved file (no marker line) graded as variant k loses
each prediction whose answer differs, each message saying it is the lab as written's answer; k's own
solved file with its marker line deleted passes; k's stub after a comment line of 256 Ki spaces, graded
with no --variant, gets the stub's verdicts (its line read past it: no regular expression). Where variant k's stub differs from the lab's in code,
not only in comments (lab 05: the float4 tile's row length, hence its swizzle), the lab as written's
solved file graded as k also fails a Layout test: its kernel is not k's, every variant i's solved file
graded as variant i + 1 (mod the count) earns at most that variant's stub's CPU points + 10 % of the
lab (issue 44); and ctest's way (`banklab-judge
build`, then `test` with neither --variant nor BANKLAB_VARIANT, as in a student's own copy) judges k's
solved file as the variant its line names: its Layout tests pass (and fail when told variant 0). The
grades run a few at a time (each is mostly one compile).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from banklab.grading import judging, invocation
from banklab.grading import points as bpt
from banklab.lab import labs as banklab_labs
from banklab.lab import variants as banklab_variants

SEED = "test-course-seed"   # a course's seed, for this test only
STUDENTS = [f"student{i:02d}" for i in range(12)]


def grade(judge: str, lab: str, source: Path, work: Path, variant: int | None) -> dict[str, dict]:
    out = work / "grade.json"
    cmd = [judge, "grade", "--lab", lab, "--source", str(source), "--work", str(work / "w"), "--json", str(out),
           "--tier", "cpu"] + ([] if variant is None else ["--variant", str(variant)])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if not out.is_file():
        raise SystemExit(f"FAIL: {' '.join(cmd)} wrote no grade ({r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    data = json.loads(out.read_text())
    return {v["test"]: v for v in data.get("verdicts", data.get("tests", [])) if isinstance(v, dict)}


def check(ok: bool, what: str, failures: list[str]) -> None:
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def grade_all(judge: str, lab: str, jobs: list[tuple[str, str, int | None]], tmp: Path) -> dict[str, dict]:
    """Grade each (name, kernel.cu text, --variant or None) in its own folder, a few at a time (each
    grade is mostly one compile of the file: one core)."""
    def one(job: tuple[str, str, int | None]) -> tuple[str, dict]:
        name, text, variant = job
        (tmp / name).mkdir()
        (tmp / name / "kernel.cu").write_text(text)
        return name, grade(judge, lab, tmp / name / "kernel.cu", tmp / name, variant)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        return dict(pool.map(one, jobs))


def check_stub(pre: str, k: int, stub: dict, failures: list[str]) -> None:
    check(stub[f"{pre}.Build"]["status"] == "passed", f"variant {k}'s stub builds", failures)
    for suite in ("Layout", "Predictions"):
        bad = [n for n, r in stub.items() if n.startswith(f"{pre}{suite}.") and r["status"] == "failed"]
        check(bool(bad), f"variant {k}'s stub fails {pre}{suite} tests ({len(bad)} failed)", failures)


def check_solved(pre: str, k: int, mine: dict, failures: list[str]) -> None:
    not_passed = [f"{n}: {r['status']}" for n, r in mine.items() if r["status"] != "passed"]
    check(bool(mine) and not not_passed, f"variant {k}'s solved file, no --variant given (its `// banklab variant:` "
          f"line read), passes every CPU test ({len(mine)}): {not_passed}", failures)
    check(f"{pre}.Variant" not in mine, f"variant {k}'s solved file, no --variant given: no variant record", failures)


AS_WRITTEN = "is the answer of the lab as written (variant 0), not of your variant"


def code_of(text: str) -> list[str]:
    """A kernel.cu's code lines: comments and blank lines left out."""
    lines = (l.split("//", 1)[0].strip() for l in text.splitlines())
    return [l for l in lines if l]


def check_as_written(pre: str, k: int, copied: dict, unmarked: dict, failures: list[str],
                     kernel_changes: bool = False) -> None:
    """A copy of the lab as written (no marker line) graded as variant k loses the predictions whose
    answers differ, each saying it answers the lab as written; k's own file without its marker passes.
    Where k's kernel is not the lab's (kernel_changes), the copy fails a Layout test too."""
    lost = {n: r.get("message", "") for n, r in copied.items() if n.startswith(f"{pre}Predictions.")
            and r["status"] == "failed"}
    named = [n for n, m in lost.items() if AS_WRITTEN in m and f"your variant {k} (" in m]
    check(bool(lost) and named == list(lost), f"the lab as written's solved file graded as variant {k} loses "
          f"{len(lost)} prediction test(s), each saying it answers the lab as written ({len(named)} do)", failures)
    if kernel_changes:
        layout = [n for n, r in copied.items() if n.startswith(f"{pre}Layout.") and r["status"] == "failed"]
        check(bool(layout), f"variant {k}'s kernel is not the lab's: the lab as written's solved file graded as "
              f"variant {k} fails Layout tests: {layout}", failures)
    not_passed = [f"{n}: {r['status']}" for n, r in unmarked.items() if r["status"] != "passed"]
    said = [n for n, r in unmarked.items() if AS_WRITTEN in r.get("message", "")]
    check(bool(unmarked) and not not_passed and not said, f"variant {k}'s solved file without its marker line, "
          f"graded as variant {k}, passes every CPU test and is not called the lab as written: {not_passed} {said}",
          failures)


def check_ctest_reads_the_line(judge: str, lab: str, pre: str, k: int, text: str, mine: dict, tmp: Path,
                               failures: list[str]) -> None:
    """A kernel-changing variant k's solved file, built and its Layout tests run one process as ctest
    does (no --variant, no BANKLAB_VARIANT): they pass, judged as the variant the file's line names;
    told variant 0 they fail (the line is what made them pass)."""
    (tmp / "ctest").mkdir()
    src, work, results = tmp / "ctest" / "kernel.cu", tmp / "ctest" / "w", tmp / "ctest" / "r"
    src.write_text(text)
    env = {key: val for key, val in os.environ.items() if key != "BANKLAB_VARIANT"}
    subprocess.run([judge, "build", "--lab", lab, "--source", str(src), "--work", str(work), "--results", str(results)],
                   capture_output=True, text=True, timeout=600, env=env)
    layout = ",".join(sorted(n for n in mine if n.startswith(f"{pre}Layout.")))
    cmd = [judge, "test", "--lab", lab, "--work", str(work), "--tests", layout, "--results", str(results)]
    own = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    told = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=dict(env, BANKLAB_VARIANT="0"))
    check(bool(layout) and own.returncode == 0 and told.returncode != 0,
          f"ctest's way (build, then test without --variant) judges variant {k}'s solved file as its line's variant: "
          f"its Layout tests pass (exit {own.returncode}), and fail when told variant 0 (exit {told.returncode})",
          failures)


# Labs whose variants change the kernel and whose judge fails a file of another variant's kernel (issue
# 44): a classmate's solved file must earn at most the untouched stub's points plus 10 % of the lab.
# A lab joins when its copies meet that target (bench/variant_copies.py measures every ordered pair).
COPIES_AT_TARGET = {"00", "01", "02", "03", "04", "05", "06", "07"}


def check_copies(judge: str, root: Path, lab, count: int, tmp: Path, failures: list[str]) -> None:
    """For the cyclic pairs (variant i's solved file graded as variant i + 1 mod count, the way
    grade-class grades a student of that variant), the copy earns at most that variant's untouched
    stub's CPU points + 10 % of the lab, in the course's points (banklab.grading.points, as
    bench/variant_copies.py counts them), and its record names the file's variant (i >= 1)."""
    table = bpt.load_points(root, lab.number)
    expected = invocation.list_tests(Path(judge), lab.number)
    jobs = []
    for i in range(count):
        j = (i + 1) % count
        jobs.append((f"stub{i}", banklab_variants.stub(lab, i), i))
        jobs.append((f"copy{i}to{j}", banklab_variants.solution(lab, i), j))

    def one(job):
        name, text, variant = job
        (tmp / name).mkdir()
        (tmp / name / "kernel.cu").write_text(text)
        return name, judging.grade_one(Path(judge), lab.number, tmp / name / "kernel.cu", tmp / name / "w",
                                       expected=expected, tier="cpu", table=table, variant=variant)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        res = dict(pool.map(one, jobs))
    pre = f"Lab{lab.number}"
    for i in range(count):
        j = (i + 1) % count
        copy, stub = res[f"copy{i}to{j}"], res[f"stub{j}"]
        limit = stub.points + 0.1 * copy.max_points
        judged = [x for x in copy.verdicts if x.status in ("passed", "failed")]
        check(bool(judged) and copy.points <= limit + 1e-9, f"variant {i}'s solved file graded as variant {j} earns "
              f"{copy.points} of {copy.max_points} points, at most variant {j}'s stub's {stub.points} + 10 % "
              f"({round(limit, 3)})", failures)
        if i:
            rec = [x for x in copy.verdicts if x.test == f"{pre}.Variant" and x.status == "failed"]
            msg = rec[0].message if rec else ""
            check(f"this file is lab {lab.number}'s variant {i}" in msg, f"the copy of variant {i} graded as "
                  f"variant {j} is named as variant {i}'s file: {msg[:160]!r}", failures)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--banklab", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--lab", default="01")
    a = ap.parse_args()
    os.environ["BANKLAB_CLI"] = a.banklab
    lab = banklab_labs.find_labs(Path(a.root))[a.lab]
    v = banklab_variants.read(lab)
    failures: list[str] = []
    chosen = {s: banklab_variants.choose(lab.number, s, SEED, v.count) for s in STUDENTS}
    check(len(set(chosen.values())) >= 3, f"12 students get {len(set(chosen.values()))} distinct variants of lab "
          f"{lab.number} (at least 3): {sorted(set(chosen.values()))}", failures)
    k, j = sorted({x for x in chosen.values() if x})[:2]   # two students' variants, neither the base
    every = range(1, v.count)   # variant 0 is the lab as written: the selftest grades its stub and solution
    stubs = {x: banklab_variants.stub(lab, x) for x in every}
    check(len(set(stubs.values())) == len(stubs), f"variants {list(every)} have {len(set(stubs.values()))} "
          "different stubs (one each)", failures)
    # labs-check compares the answers' texts; the counts themselves must differ too (the model's, here built).
    counts = {x: banklab_variants.model_answers(banklab_variants.description(lab, x), banklab_variants.answers(lab, x), set(v.answer_templates or {}))
              for x in range(v.count)}
    same = [(x, y) for x in counts for y in counts if x < y and counts[x] == counts[y]]
    check(not same, f"the {v.count} variants' answers (the model's counts) differ pairwise: same {same}", failures)
    jobs = [(f"stub{x}", stubs[x], x) for x in every] + [(f"mine{x}", banklab_variants.solution(lab, x), None) for x in every]
    jobs.append(("classmate", banklab_variants.solution(lab, j), k))
    # The lab as written's solved file (no marker line: the course's own text) graded as variant k, and
    # k's own solved file with its marker line deleted (valid: the student answered k's questions).
    jobs.append(("as_written", lab.solution.read_text(), k))
    jobs.append(("unmarked", "".join(l for l in banklab_variants.solution(lab, k).splitlines(keepends=True)
                                     if not banklab_variants.MARKER_RE.match(l)), k))
    # Variant k's stub after a comment line of 256 Ki spaces, no --variant: the judge reads its line past
    # it (std::regex over the file overflowed the judge's stack: exit 139, no grade; issue 45).
    jobs.append(("long_line", "//" + " " * (256 << 10) + "\n" + stubs[k], None))
    pre = f"Lab{lab.number}"
    with tempfile.TemporaryDirectory() as tmp:
        graded = grade_all(a.judge, lab.number, jobs, Path(tmp))
    statuses = {n: r["status"] for n, r in graded[f"stub{k}"].items()}
    long_line = {n: r["status"] for n, r in graded["long_line"].items()}
    check(long_line == statuses, f"variant {k}'s stub after a comment line of 256 Ki spaces is graded as the stub "
          f"(as variant {k}, its line read past it): {sorted(set(long_line.items()) ^ set(statuses.items()))[:4]}",
          failures)
    for x in every:
        check_stub(pre, x, graded[f"stub{x}"], failures)
        check_solved(pre, x, graded[f"mine{x}"], failures)
    theirs = graded["classmate"]
    rec = theirs.get(f"{pre}.Variant", {})
    msg = rec.get("message", "")
    check(rec.get("status") == "failed" and f"this file is lab {lab.number}'s variant {j}" in msg
          and "another student" in msg, f"a classmate's (variant {j}) solved file graded as variant {k} is "
          f"reported: {msg!r}", failures)
    lost = [n for n, r in theirs.items() if n.startswith(f"{pre}Predictions.") and r["status"] == "failed"]
    check(bool(lost), f"the classmate's copy loses predictions ({len(lost)} failed)", failures)
    kernel_changes = code_of(stubs[k]) != code_of(lab.stub.read_text())
    check_as_written(pre, k, graded["as_written"], graded["unmarked"], failures, kernel_changes)
    if kernel_changes:
        with tempfile.TemporaryDirectory() as tmp:
            check_ctest_reads_the_line(a.judge, lab.number, pre, k, banklab_variants.solution(lab, k), graded[f"mine{k}"], Path(tmp),
                                       failures)
    if lab.number in COPIES_AT_TARGET:
        with tempfile.TemporaryDirectory() as tmp:
            check_copies(a.judge, Path(a.root), lab, v.count, Path(tmp), failures)
    print("FAILED: " + "; ".join(failures) if failures else "all variant checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
