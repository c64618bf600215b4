#!/usr/bin/env python3
"""The last line of a lab's grading: what was judged, and what was not and why, in plain words.

  run_summary.py --lab NN --results DIR --tests FILE [--root ROOT]     (CTest: labNN.summary)
  run_summary.py --post --results DIR --judge-dir DIR [--root ROOT]    (ctest's CTEST_CUSTOM_POST_TEST)

The verdict records the judge wrote (DIR/labNN/<Suite.Test>.json, banklab.verdict.v1) since the
lab's build record of this run (labNN.build runs first: the fixture's setup) are read; the line
says which tiers ran and how many tests passed and failed, how many tests and points were not
judged and why ("no GPU on this machine", "checked by your instructor", "not graded: REASON" for
a `fault`), and that the CPU tier never runs the kernel. FILE lists the lab's tests (one a line,
written by CMake), for the points (banklab.grading.points' table, when it can be read).
In a student's release the judge grades the release's variant whatever line the file carries; where
the line names another variant or none, labNN.build writes DIR/labNN/variant.txt and the line says
it ("graded as variant 4 (...), your own; this file was written for variant 0 ...").

As labNN.summary it passes unless evidence is missing (no build record, a record that does not
read); a test of FILE without a record of this run is counted "not run in this ctest run" (ctest
-R runs a subset), not missing. ctest hides a passing test's output, so the same
line is printed at the very end of every `ctest` run by --post (CTestCustom.cmake, written by
cmake/BanklabLab.cmake): one line per lab whose build record is newer than the run's start stamp.
Standard library only (it runs in the student release).
"""
from __future__ import annotations

import argparse
import re
import sys
import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[1] / "python" / "banklab_run.py"))  # banklab's path, set in one place
from banklab import schemas  # noqa: E402  (every JSON format's schema name, its strict reader)

ROOT = Path(__file__).resolve().parents[1]
STAMP = ".ctest-start"   # written by CTEST_CUSTOM_PRE_TEST: the start of this ctest run
CPU_NOTE = "the CPU tier reads your layout, predictions and launches through the probe and never runs your kernel"
NO_GPU = re.compile(r"no GPU|no CUDA-capable|CUDA driver version is insufficient|cudaErrorNoDevice|"
                    r"cudaErrorInsufficientDriver|no device", re.I)
INSTRUCTOR = re.compile(r"instructor", re.I)
#: Beside the records: the judge's word on the variant graded (banklab-judge build, grader/judge/main.cpp).
VARIANT_NOTE = "variant.txt"


def _words(text: str, most: int = 120) -> str:
    """`text` as the summary line quotes it: whole when short, else cut at a space with "..." (never
    within a word)."""
    if len(text) <= most:
        return text
    head = text[:most + 1].rsplit(" ", 1)[0] if " " in text[:most + 1] else text[:most]
    return head.rstrip(" ,;:(") + " ..."


def reason(rec: dict) -> str:
    """Why a record was not judged, in plain words."""
    msg = str(rec.get("message", ""))
    if rec.get("status") == "fault":
        first = msg.strip().splitlines()[0] if msg.strip() else "no reason given"
        return "not graded: " + _words(first)
    if rec.get("tier") == "gpu" and (NO_GPU.search(msg) or not msg):
        return "no GPU on this machine (the GPU tier runs and times your kernel)"
    if INSTRUCTOR.search(msg):
        return "predictions checked by your instructor (this copy of the course has no answers)"
    first = msg.strip().splitlines()[0] if msg.strip() else "skipped"
    return _words(first)


def read_records(lab_dir: Path, since: float) -> tuple[dict[str, dict], list[str]]:
    """{test: record} written at or after `since`, and the files that do not read as records."""
    recs, bad = {}, []
    for f in sorted(lab_dir.glob("*.json")):
        if f.stat().st_mtime + 1.0 < since:
            continue
        try:
            r = schemas.loads(f.read_bytes(), schemas.VERDICT)
            if "status" not in r:
                raise ValueError("not a verdict record")
        except (OSError, ValueError) as e:
            bad.append(f"{f.name}: {e}")
            continue
        recs[str(r.get("test", f.stem))] = r
    return recs, bad


def points_of(root: Path, lab: str, tests: list[str]) -> dict[str, float]:
    """Each test's points (banklab.grading.points); {} when the table cannot be read."""
    try:
        from banklab.grading import points as bpt  # noqa: PLC0415
        return bpt.load_points(root, lab).allocate(tests)
    except Exception:  # noqa: BLE001  (points are a courtesy here: the counts say what was judged)
        return {}


def tests_n(n: int) -> str:
    return f"{n} test" + ("" if n == 1 else "s")


def fmt_points(p: float) -> str:
    return f"{p:g}"


def summary_line(lab: str, recs: dict[str, dict], tests: list[str], points: dict[str, float],
                 variant: str = "") -> str:
    """`variant`: the judge's word on the variant (labNN.build wrote it: a student's release grades its
    own variant whatever line the file carries, and says so here when the line names another or none)."""
    build = recs.get(f"Lab{lab}.Build")
    said = [variant] if variant else []
    if build is not None and build.get("status") != "passed":
        return "; ".join([f"lab{lab}: nothing judged: your kernel.cu did not build or its probe failed (see lab{lab}.build)"]
                         + said + ["not graded: " + str(build.get("message", ""))[:120] if build.get("status") == "fault"
                                   else "every test of the lab is failed"])
    judged = {t: r for t, r in recs.items() if t != f"Lab{lab}.Build"}
    parts, tiers = [], []
    for tier, name in (("cpu", "CPU"), ("gpu", "GPU")):
        done = [r for r in judged.values() if r.get("tier") == tier and r.get("status") in ("passed", "failed")]
        if done:
            passed = sum(r["status"] == "passed" for r in done)
            # "emulated": judged on the emulator, not a GPU (the judge's emulated twin, docs/dev/EMULATOR.md)
            emulated = sum(r.get("emulated") is True for r in done)
            on = f"; {emulated} on the emulator, not a GPU" if emulated else ""
            tiers.append(f"{name} tier {tests_n(len(done))} ({passed} passed, {len(done) - passed} failed{on})")
    parts.append(f"lab{lab} judged: " + ("; ".join(tiers) if tiers else "no test"))
    parts += said
    if not any(r.get("tier") == "gpu" and r.get("status") in ("passed", "failed") for r in judged.values()):
        parts.append(CPU_NOTE)
    groups: dict[str, list[str]] = {}
    for t, r in judged.items():
        if r.get("status") in ("skipped", "fault"):
            groups.setdefault(reason(r), []).append(t)
    total = sum(points.get(t, 0.0) for t in tests) if points else 0.0
    for why, ts in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        pts = sum(points.get(t, 0.0) for t in ts)
        of = f", {fmt_points(pts)} of {fmt_points(total)} points" if points and total else ""
        parts.append(f"not judged: {tests_n(len(ts))}{of}: {why}")
    missing = [t for t in tests if t not in recs]
    if missing:
        parts.append(f"{tests_n(len(missing))} not run in this ctest run")
    return "; ".join(parts) + "."


def lab_line(results: Path, lab: str, tests: list[str], root: Path, since: float | None) -> tuple[str, list[str]]:
    lab_dir = results / f"lab{lab}"
    build = lab_dir / f"Lab{lab}.Build.json"
    if not build.is_file():
        return f"lab{lab}: nothing judged: no build record ({build}): labNN.build did not run", ["no build record"]
    recs, bad = read_records(lab_dir, since if since is not None else build.stat().st_mtime)
    return summary_line(lab, recs, tests, points_of(root, lab, tests), variant_said(lab_dir, build)), bad


def variant_said(lab_dir: Path, build: Path) -> str:
    """The judge's word on the variant, written by the same build step as `build` (VARIANT_NOTE), or ""."""
    note = lab_dir / VARIANT_NOTE
    try:
        if note.stat().st_mtime + 2.0 < build.stat().st_mtime:
            return ""          # left by an earlier build (the judge removes it when it has nothing to say)
        return " ".join(note.read_text(errors="replace").split())[:400]
    except OSError:
        return ""


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lab")
    ap.add_argument("--results", type=Path, required=True)
    ap.add_argument("--tests", type=Path, help="the lab's tests, one a line")
    ap.add_argument("--post", action="store_true", help="every lab built since the run's start stamp")
    ap.add_argument("--judge-dir", type=Path, help="with --post: where CMake wrote labNN.tests")
    ap.add_argument("--root", type=Path, default=ROOT)
    a = ap.parse_args(argv)
    if a.post:
        stamp = a.results / STAMP
        if not stamp.is_file():
            return 0
        since = stamp.stat().st_mtime
        for build in sorted(a.results.glob("lab[0-9][0-9]/Lab[0-9][0-9].Build.json")):
            lab = build.parent.name[3:]
            if build.stat().st_mtime + 1.0 < since:
                continue
            tf = (a.judge_dir / f"lab{lab}.tests") if a.judge_dir else None
            tests = tf.read_text().split() if tf and tf.is_file() else []
            print(lab_line(a.results, lab, tests, a.root, None)[0])
        return 0
    if not a.lab or not a.tests:
        ap.error("--lab and --tests (or --post)")
    tests = a.tests.read_text().split() if a.tests.is_file() else []
    line, bad = lab_line(a.results, a.lab, tests, a.root, None)
    print(line)
    if bad:
        print("evidence missing: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
