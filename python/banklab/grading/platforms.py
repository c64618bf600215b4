"""The files each grading platform reads, made from graded results (banklab.grading.result.LabResult):
JUnit XML, Gradescope's results.json, PrairieLearn's results.json, a GitHub job summary. A result
that is not graded (banklab.grading.status) is never a score on any of them. Standard library only."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from banklab.lab import labs as banklab_labs
from banklab.grading import cleantext as ct   # text a student chose, in Markdown (issue 45)
from banklab.grading import status as bs
from banklab.grading.result import LabResult, Verdict, fmt_points
from banklab.grading.wording import (NOT_BUILT, STATUS_WORD, failure_groups, student_message,
                                    lab_points as _lab_points, tests_named as _names, total_points as _total_points)


def junit_xml(results: list[LabResult], student: str = "") -> str:
    suites = ET.Element("testsuites", name=f"banklab {student}".strip())
    for r in sorted(results, key=lambda r: r.lab):
        s = ET.SubElement(suites, "testsuite", name=f"lab{r.lab}", tests=str(len(r.verdicts)),
                          failures=str(len(r.failed)), errors=str(sum(v.status == "fault" for v in r.verdicts)),
                          skipped=str(sum(v.status == "skipped" for v in r.verdicts)))
        for v in r.verdicts:
            c = ET.SubElement(s, "testcase", classname=f"lab{r.lab}", name=v.test,
                              time=str(0))
            if v.status == "failed":
                ET.SubElement(c, "failure", message=v.message.split("\n")[0][:200]).text = v.message
            elif v.status == "fault":      # the grading machine's problem: an error, not a failure
                ET.SubElement(c, "error", message=v.message.split("\n")[0][:200]).text = v.message
            elif v.status == "skipped":
                ET.SubElement(c, "skipped", message=v.message[:200])
    return ET.tostring(suites, encoding="unicode", xml_declaration=True)


#: How a platform's test line says it was judged on the emulator (Verdict.emulated), not a GPU.
ON_EMULATOR = "judged on the emulator (no GPU on the grading machine), not on a GPU"


def _on_emulator(v: Verdict) -> bool:
    """Judged (passed or failed) on the emulator: a timing test it skipped is "not judged"."""
    return v.emulated and v.status in ("passed", "failed")


def _word(v: Verdict) -> str:
    """A test's word on PrairieLearn: its status's, marked where the emulator judged it."""
    if v.timing_on_emulator:
        return "not judged (needs a GPU)" + (": its points are shared by the lab's other tests" if v.reweighted else "")
    return STATUS_WORD[v.status] + (" (on the emulator)" if _on_emulator(v) else "")


def _output(v: Verdict) -> str:
    said = f"({ON_EMULATOR})\n" if _on_emulator(v) else ""
    if v.message:
        return said + student_message(v.message) + (f"\n({v.note})" if v.note else "")
    return said + ("passed" if v.status == "passed" else v.status) + (f" ({v.note})" if v.note else "")


def build_failure(r: LabResult) -> str:
    """The compiler's message when the lab did not build (the judge's LabNN.Build record), else ""."""
    b = next((v for v in r.verdicts if v.test == f"Lab{r.lab}.Build" and v.status == "failed"), None)
    return student_message(b.message) if b else ""


def _is_instructor(test: str) -> bool:
    """LabNNInstructor*.*: an instructor-only check (solutions/NN_name/instructor_*_test.cu)."""
    return banklab_labs.lab_number(test) is not None and test[len("LabNN"):].startswith("Instructor")


def not_graded_lines(results: list[LabResult]) -> list[str]:
    """"lab 05: not graded: REASON" for each result that is no grade (a platform shows no score then)."""
    return [f"lab {r.lab}: not graded: {r.not_graded}" for r in sorted(results, key=lambda r: r.lab) if r.not_graded]


def _not_judged_line(r: LabResult) -> dict | None:
    """Gradescope: the tests of one lab this run did not judge (no GPU on the grader, a tier left
    out), as ONE line worth 0 of 0 that says why, instead of a failed 0/N per test."""
    vs = [v for v in r.verdicts if v.status == "skipped"]
    if not vs:
        return None
    tiers = "/".join(sorted({v.tier for v in vs}))
    why = vs[0].message.removeprefix("not judged: ")
    return {"name": f"lab{r.lab}: {len(vs)} {tiers} test(s) not judged here", "score": 0.0, "max_score": 0.0,
            "output": (f"Not judged (not failed): {why}. These {len(vs)} test(s) ("
                       f"{fmt_points(round(sum(v.max_points for v in vs), 2))} points) count for nothing in this "
                       "score; they are judged where the course grades the GPU tier."), "visibility": "visible"}


def gradescope_results(results: list[LabResult], instructor_visibility: str = "after_published") -> dict:
    """Gradescope's autograder results.json: score, tests[] of name, score, max_score, status,
    output, visibility. Instructor-only checks (LabNNInstructor*) get `instructor_visibility`
    ("after_published": shown once grades are published; "hidden": never shown to students); while
    any is not visible, the whole result's `visibility` (its score and output; a test's own
    visibility overrides it) is "after_published", so that their points cannot be read off the
    score before the grades are published. A build failure is one test with the compiler's
    message, not one per test; tests not judged (no GPU here) are one line worth 0 of 0 that says
    so, never a failed 0/N. A submission not graded (a fault: banklab.grading.status) gets no score and no
    tests: write_gradescope() then writes no results.json at all (a results.json without a score is
    a 0, the sum of no tests), so that Gradescope shows the autograder as failed."""
    ng = not_graded_lines(results)
    if ng:
        return {"output": "Not graded (this is not a grade and not a zero; the grading machine could not "
                          "judge your submission, not your code's doing): " + "; ".join(ng),
                "visibility": "visible", "stdout_visibility": "hidden", "tests": [],
                "extra_data": {"banklab_not_graded": ng}}
    tests = []
    hidden = False
    for r in sorted(results, key=lambda r: r.lab):
        built = not build_failure(r)
        for v in r.verdicts:
            if v.status == "skipped":
                continue
            out = _output(v)
            if not built and v.test != f"Lab{r.lab}.Build" and v.status == "failed":
                out = NOT_BUILT.format(r.lab)
            vis = instructor_visibility if _is_instructor(v.test) else "visible"
            hidden |= vis != "visible"
            tests.append({"name": f"lab{r.lab} {v.test}", "score": round(v.points, 4),
                          "max_score": round(v.max_points, 4),
                          "status": "passed" if v.status == "passed" else "failed",
                          "output": out, "visibility": vis} | ({"tags": ["emulated"]} if _on_emulator(v) else {}))
        line = _not_judged_line(r)
        if line:
            tests.append(line)
    notes = [f"lab {r.lab}: graded as variant {r.variant}" for r in sorted(results, key=lambda r: r.lab)
             if r.variant is not None]
    notes += [f"lab {r.lab}: not judged: {r.judge_note}" for r in results if r.judge_note]
    notes += [f"lab {r.lab}: {r.incomplete_line()}" for r in results if not r.complete]
    notes += [f"lab {r.lab}: {r.emulated_line()}" for r in sorted(results, key=lambda r: r.lab) if r.emulated_line()]
    if not hidden:           # the points per lab would tell the hidden checks' share
        notes += [f"lab {r.lab}: {fmt_points(r.points)} / {fmt_points(r.max_points)} points "
                  f"(table {r.points_table}, tier {r.tier})" for r in sorted(results, key=lambda r: r.lab)]
    return {"score": round(sum(r.points for r in results), 3),
            "output": "\n".join(notes) if notes else "Nothing was graded.",
            "visibility": "after_published" if hidden else "visible", "stdout_visibility": "hidden",
            "tests": tests}


#: Gradescope: where a run that is no grade says why, beside results.json (Gradescope reads only
#: results.json; the instructor sees this run's stdout, which repeats it).
GRADESCOPE_NOT_GRADED_FILE = "not-graded.json"


def write_gradescope(folder: Path, data: dict) -> Path:
    """Write gradescope_results()'s `data` (or a refusal) in Gradescope's results folder; returns the
    file written. Gradescope's specification (gradescope-autograders.readthedocs.io, "Autograder
    Specifications"): the top-level `score` is optional, and without it the total is the sum of the
    tests' scores, so a file with neither is a 0. A run without a valid results.json is shown as
    failed ("The autograder failed to execute correctly", its "Troubleshooting" page). So data
    without a score (not graded, refused) is written as GRADESCOPE_NOT_GRADED_FILE and no
    results.json is left in the folder: the run shows as failed, never a 0."""
    folder.mkdir(parents=True, exist_ok=True)
    graded = "score" in data
    name, other = ("results.json", GRADESCOPE_NOT_GRADED_FILE) if graded else (GRADESCOPE_NOT_GRADED_FILE, "results.json")
    (folder / other).unlink(missing_ok=True)
    (folder / name).write_text(json.dumps(data, indent=1) + "\n")
    return folder / name


def prairielearn_results(results: list[LabResult]) -> dict:
    """PrairieLearn external grader results.json: gradable, score in [0, 1], tests[] of name,
    points, max_points, message, output. A submission that did not build, or that holds no kernel,
    is `gradable: false` with `format_errors`: PrairieLearn then shows the errors and the attempt
    is not counted against the student. A submission not graded (a fault) is `gradable: false`
    too, with no score: PrairieLearn sets the score to 0 wherever the course's `succeeded` is false
    and counts the attempt unless `gradable` is false (processGradingResult,
    apps/prairielearn/src/lib/externalGrader.ts; docs/externalGrading.md, "Grading results")."""
    def format_error(r: LabResult) -> str:
        if build_failure(r):
            return f"lab {r.lab}: your kernel did not compile:\n{build_failure(r)}"
        if not r.source and r.judge_note:
            return f"lab {r.lab}: {r.judge_note}"
        return ""
    ng = not_graded_lines(results)
    if ng:       # a fault: not gradable, so PrairieLearn awards and takes nothing and counts no attempt
        return not_gradable_result("not graded (the grading machine could not judge this submission; "
                                   "not a zero): " + "; ".join(ng))
    errors = [format_error(r) for r in results if format_error(r)]
    # Not gradable when nothing could be judged (a PrairieLearn question is one lab: its compile
    # error, or a missing kernel); a lab that built in a multi-lab submission keeps it gradable.
    if not results or len(errors) == len(results):
        return {"gradable": False, "format_errors": errors or ["no kernel was submitted"],
                "message": "not graded: " + (errors[0].split("\n")[0] if errors else "no kernel was submitted")}
    tests = []
    for r in sorted(results, key=lambda r: r.lab):
        for v in r.verdicts:
            tests.append({"name": f"lab{r.lab} {v.test}", "points": round(v.points, 4),
                          "max_points": round(v.max_points, 4),
                          "message": _word(v),
                          "output": _output(v)})
    pts = sum(r.points for r in results)
    mx = sum(r.max_points for r in results)
    msg = "; ".join(f"lab {r.lab}: {fmt_points(r.points)}/{fmt_points(r.max_points)}"
                    + ("" if r.variant is None else f" (variant {r.variant})")
                    + (" (GPU tier on the emulator)" if r.emulated else "")
                    + ("" if r.complete else " (incomplete: timing needs a GPU)" if r.emulated
                       else " (incomplete: GPU tier not judged)")
                    for r in sorted(results, key=lambda r: r.lab))
    return {"gradable": True, "score": round(pts / mx, 6) if mx > 0 else 0.0,
            "points": round(pts, 3), "max_points": round(mx, 3), "tests": tests, "message": msg}


def not_gradable_result(msg: str) -> dict:
    """PrairieLearn's results.json for a submission the grader could not judge (a fault, a grader
    that cannot run there): `gradable: false`, the reason in `format_errors` and `message`, no score
    (`succeeded: false` says the grading itself failed; with `gradable: false` it records nothing)."""
    return {"succeeded": False, "gradable": False, "format_errors": [msg], "message": msg, "output": msg,
            "tests": []}


def github_summary(results: list[LabResult]) -> str:
    md = ["## banklab: points", "", "| lab | points | complete | failed tests |", "| --- | --- | --- | --- |"]
    for r in sorted(results, key=lambda r: r.lab):
        if bs.not_judged(r):       # nothing gradable handed in: its tests never ran (no 0, no failed test)
            md.append(f"| {r.lab} | not judged | not judged: {ct.md_text(bs.not_judged(r))} | none |")
            continue
        failed = ", ".join(f"`{v.test}`" for v in r.failed) or "none"
        md.append(f"| {r.lab} | {_lab_points(r).removesuffix(' points')} | "
                  f"{'yes' if r.complete else ('NO: ' + ct.md_text(r.not_graded)) if r.not_graded else 'no: timing needs a GPU' if r.emulated else 'no: GPU tier not judged'}"
                  f"{' (GPU tier on the emulator)' if r.emulated else ''}"
                  f" | {failed} |")
    md += ["", f"**Total: {_total_points(results)}**", "",
           "Points tables: " + ", ".join(f"`{r.points_table}`" for r in sorted(results, key=lambda r: r.lab)), ""]
    for r in sorted(results, key=lambda r: r.lab):
        for msg, vs in ([] if bs.not_judged(r) else failure_groups(r)):
            if vs[0].status != "failed":
                continue
            md += [f"<details><summary>lab {r.lab} {_names(vs)}</summary>", "",
                   *ct.md_code(student_message(msg).rstrip()), "</details>", ""]
    return "\n".join(md)
