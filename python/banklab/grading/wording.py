"""How a graded result is worded for the people who read it (feedback, platform files): the word of
each status, the judge's messages with `banklab` commands the student can run, the failures
grouped by message, the points of a lab and of all. Standard library only."""

from __future__ import annotations

import re

from banklab.grading.result import LabResult, Verdict, fmt_points

STATUS_WORD = {"passed": "passed", "failed": "FAILED", "skipped": "skipped", "fault": "NOT GRADED"}


#: The banklab command as the student runs it, from the top of their own checkout (the dev preset).
STUDENT_BANKLAB = "build/dev/tools/banklab"
_CMD_RE = re.compile(r"(?<![\w/.-])(?:/[^\s\"']*/)?banklab(?= (?:explain|predict|compare|trace)\b)")


def student_message(msg: str) -> str:
    """A teaching message with every `banklab <cmd>` command rewritten to run on the student's
    machine: the judge prints the absolute path of the grader's own build."""
    return _CMD_RE.sub(STUDENT_BANKLAB, msg)


def failure_groups(r: LabResult) -> list[tuple[str, list[Verdict]]]:
    """The failed and skipped verdicts of one lab grouped by their message, in order: a build
    failure (or any message many tests share) is shown once, with the tests it stands for."""
    groups: dict[str, list[Verdict]] = {}
    build = [v for v in r.verdicts if v.test == f"Lab{r.lab}.Build"]
    broken = bool(build) and build[0].status == "failed"
    for v in build + [v for v in r.verdicts if v not in build]:
        if v.status != "passed" and v.message:
            msg = v.message
            if broken and v not in build and v.status == "failed" and msg.startswith("not judged"):
                msg = NOT_BUILT.format(r.lab)      # the judge repeats the compiler's message here
            groups.setdefault(msg, []).append(v)
    return list(groups.items())


NOT_BUILT = ("not judged: the lab did not build, and every test needs its build (Lab{}.Build's message "
             "says why: the compiler's errors, or code of yours that did not finish)")


def tests_named(vs: list[Verdict]) -> str:
    return vs[0].test if len(vs) == 1 else f"{vs[0].test} and {len(vs) - 1} more test(s)"


def lab_points(r: LabResult) -> str:
    """"12 / 100 points", or "not graded (not a zero)" where the result is no grade."""
    if r.not_graded:
        return f"not graded (not a zero) of {fmt_points(r.max_points)} points"
    return f"{fmt_points(r.points)} / {fmt_points(r.max_points)} points"


def total_points(results: list[LabResult]) -> str:
    maxi = fmt_points(sum(r.max_points for r in results))
    if any(r.not_graded for r in results):
        return f"not known yet: a lab is not graded (out of {maxi} points)"
    return f"{fmt_points(sum(r.points for r in results))} / {maxi} points"


EXPLAIN_RE = re.compile(r'banklab explain --line "([^"]+)"')


def explain_lines(message: str) -> list[str]:
    """The access lines of every `banklab explain --line "..."` command in a teaching message."""
    return list(dict.fromkeys(EXPLAIN_RE.findall(message)))
