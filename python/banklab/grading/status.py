"""Whether a result is a grade: the one home of "not graded" for every tool that writes a number.

A grade leaves the tools only when it was judged. A result is one of:
- graded: the judge judged the submission (a --tier cpu grade too: it is marked incomplete);
- not graded: the grading machine could not judge it (a `fault` verdict: graded mode without a
  usable GPU, a tracer that cannot start, a judge that crashed, a full disk; or a cluster task
  that was cancelled or lost). Never the student's failure, never a number:
  blank in the gradebook and every LMS file, named on the terminal and in OUT/not-graded.csv,
  judged again on the next run (a result not graded is never reused), and grade-class exits
  NOT_GRADED_EXIT while any is left;
- pending: queued on a cluster and not graded yet (`--engine slurm --slurm-no-wait`, or a Ctrl-C
  while the array runs): an incomplete grade (the CPU verdicts of an earlier run kept, the rest
  "not judged: pending"), counted and named on the terminal with the command that collects it,
  and grade-class exits PENDING_EXIT while any is left (NOT_GRADED_EXIT first where both are);
- not judged: nothing gradable was handed in (no kernel, several candidates, an archive refused,
  an upload the grader does not recognise; not_judged()): its tests never ran, so it is blank or
  "not judged" in every output (the LMS import files, the terminal, the gradebook and results,
  the feedback), never 0 or FAILED and never complete, its reason in the gradebook; a student who
  handed in nothing at all (a roster's student with no upload too) is counted apart from the
  submissions.
Python 3 standard library.
"""

from __future__ import annotations

from pathlib import Path

from banklab.grading import uploads as bu
from banklab.grading.result import LabResult
from banklab.grading.csvfile import write_csv   # the one CSV writer (cells a spreadsheet would run are quoted)

#: grade-class's exit status when it finished but left some submission not graded (a fault).
NOT_GRADED_EXIT = 4
#: grade-class's exit status when nothing is left not graded but some submission is still pending
#: on the cluster (queued by --slurm-no-wait, not graded yet).
PENDING_EXIT = 5
#: The one table of grade-class's and grade-platform's exit statuses: `grade-class --help` prints
#: it, README.md's "Exit status" table must say the same (batch.FaultsAreNeverGrades checks).
EXIT_STATUS = {
    0: "every submission has its grade (or nothing was handed in)",
    1: "grade-platform only: the score is below --fail-under",
    2: "an error: nothing graded (a bad option, a lab description or points table that does not "
       "parse, no judge, a job the cluster refused)",
    3: "the judge cannot confine a student's code here (no bubblewrap): nothing graded",
    NOT_GRADED_EXIT: "some submission is NOT GRADED (a fault of the grading machine or a lost "
                     "cluster task): fix the cause and run the same command again",
    PENDING_EXIT: "some submission is still PENDING on the Slurm cluster (--slurm-no-wait): run the "
                  "command printed to wait for it and collect it",
    130: "interrupted (Ctrl-C): what was finished is kept; the same command resumes",
}
#: A saved result whose cache_key starts so is a placeholder for a submission queued on a cluster.
PENDING_KEY = "pending:"
#: The file that names every result that is not a grade (always written, a header alone when none).
STATUS_FILE = "not-graded.csv"


def nothing_handed_in(r: LabResult) -> bool:
    """The student handed in nothing for this lab (no file at all, not a refused or unknown one)."""
    return not r.source and not r.not_graded and not bu.names_a_problem(r.judge_note or "")


def not_judged(r: LabResult) -> str:
    """Why nothing of this lab was judged ("" when it was, or when it is not graded): nothing
    gradable was handed in (no kernel, a PDF alone, several candidates, a refused archive). Its
    tests never ran: every output shows it blank or "not judged", never 0 or FAILED, and it is
    not a complete grade."""
    if r.source or r.not_graded:
        return ""
    return r.judge_note or "nothing was handed in"


def blank_reason(r: LabResult) -> str:
    """Why an LMS import file leaves this lab's score blank ("" when it carries a number): not
    graded (a fault, a lost or pending task), or nothing gradable handed in (missing, ambiguous,
    refused, unrecognised)."""
    if r.not_graded:
        return f"not graded: {r.not_graded}"
    if not r.source:
        return f"not judged: {r.judge_note or 'nothing was handed in'}"
    return ""


def has_number(r: LabResult) -> bool:
    """Whether `r` may be written as a number in an import file or a platform's score."""
    return not blank_reason(r)


def reusable(saved: dict) -> bool:
    """Whether a saved result (OUT/results/STUDENT/labNN.json) may be reused as it is: never one
    that is not graded (it is judged again), nor one stopped by the outer timeout."""
    if saved.get("timed_out") or saved.get("ungraded"):
        return False
    return not any(isinstance(v, dict) and v.get("status") == "fault" for v in saved.get("verdicts") or [])


def status_rows(results: list[LabResult]) -> list[list[str]]:
    """[student, lab, status, why] of every result that is no number: "not graded" first."""
    rows = []
    for r in results:
        if r.not_graded:
            rows.append([r.student, r.lab, "not graded", r.not_graded])
        elif not r.source:
            rows.append([r.student, r.lab, "nothing handed in" if nothing_handed_in(r) else "not judged",
                         r.judge_note])
    return sorted(rows, key=lambda x: (x[2] != "not graded", x[0], x[1]))


def write_status_file(results: list[LabResult], out: Path) -> Path:
    """OUT/not-graded.csv: every (student, lab) whose score is left blank, and why."""
    path = out / STATUS_FILE
    write_csv(path, ["student", "lab", "status", "why"], status_rows(results))
    return path


def report(results: list[LabResult], out: Path, say=print) -> int:
    """What grade-class says at the end about results that are not grades: the blank LMS cells
    counted, every submission not graded named with why. Returns how many are not graded."""
    rows = status_rows(results)
    path = write_status_file(results, out)
    faults = [x for x in rows if x[2] == "not graded"]
    if rows:
        kinds = {k: sum(1 for x in rows if x[2] == k) for k in ("not graded", "not judged", "nothing handed in")}
        say(f"grade-class: {len(rows)} score(s) left BLANK in the LMS files (" +
            ", ".join(f"{n} {k}" for k, n in kinds.items() if n) + f"): a blank is no grade; {path} lists them")
    if faults:
        say(f"grade-class: {len(faults)} submission(s) were NOT GRADED (the grading machine's problem, not the "
            "students'); no number was written for them. Fix the cause and run the same command again: "
            "they are judged again.")
        for student, lab, _, why in faults[:20]:
            say(f"  {student} lab {lab}: not graded: {why}")
        if len(faults) > 20:
            say(f"  ... and {len(faults) - 20} more in {path}")
    return len(faults)


def is_pending(saved: dict) -> bool:
    """Whether a saved result (OUT/results/STUDENT/labNN.json) is a placeholder for a submission
    queued on a cluster and not graded yet."""
    return str(saved.get("cache_key") or "").startswith(PENDING_KEY)


def report_pending(pending: list[tuple[str, str, str]], queued: dict[str, tuple[str, str]], say=print) -> int:
    """What grade-class says at the end about results still pending on the cluster ((student,
    lab, result file) each): how many, in which job, and the command that collects them (the one
    that queued them: `queued`, banklab.grading.slurm.queued_by_file). Returns how many are pending."""
    if not pending:
        return 0
    groups: dict[str, list] = {}
    for student, lab, rfile in pending:
        job, cmd = queued.get(str(Path(rfile).resolve()), ("", ""))
        groups.setdefault(cmd, []).append((student, lab, job))
    say(f"grade-class: {len(pending)} submission(s) are PENDING on the Slurm cluster: queued and not graded yet "
        "(an incomplete grade: their GPU tests show as pending, no final number). Collect them when you can "
        "wait (this waits for the job, then writes every report again):")
    for cmd, rows in groups.items():
        jobs = sorted({job for _, _, job in rows if job})
        names = ", ".join(f"{s} lab {l}" for s, l, _ in rows[:6]) + (" ..." if len(rows) > 6 else "")
        say(f"  {len(rows)} in job(s) {', '.join(jobs) or 'unknown'} ({names}):")
        say(f"  {cmd}" if cmd else "  run the command that queued them again, without --slurm-no-wait")
    return len(pending)


def exit_status(not_graded: int, pending: int) -> int:
    """grade-class's exit status once it finished: not graded first (a fault needs fixing), then
    pending (it needs time and the collecting command), else 0."""
    return NOT_GRADED_EXIT if not_graded else PENDING_EXIT if pending else 0


def exit_status_help() -> str:
    """EXIT_STATUS as `--help` prints it."""
    return "exit status:\n" + "\n".join(f"  {code:<4}{why}" for code, why in EXIT_STATUS.items())


def summary_counts(rs: list[LabResult]) -> dict:
    """One lab's counts for the class summary: students (rows), submissions (something handed in),
    nothing handed in, not graded, and the results with a number (the statistics are theirs)."""
    numbered = [r for r in rs if has_number(r)]
    return {"students": len(rs), "submissions": sum(1 for r in rs if not nothing_handed_in(r)),
            "nothing_handed_in": sum(1 for r in rs if nothing_handed_in(r)),
            "not_graded": sum(1 for r in rs if r.not_graded), "graded": len(numbered)}
