"""What the grading of one lab for one student is: its verdicts (one a test: passed, failed, skipped
or fault, with its points) and the LabResult that holds them, as saved and reread. Every tool that
words, counts or writes a result reads these (reports, status, the LMS and platform files); the
judge's run that makes them is banklab.grading.judging, their points banklab.grading.points.
Python 3 standard library only."""

from __future__ import annotations

import dataclasses

from banklab.grading import cleantext as ct              # noqa: E402  (text a student chose, made harmless)
from banklab import schemas                      # every JSON format's schema name

#: A verdict's status (docs/dev/GRADER.md): "fault" = not judged because of the grading machine
#: (graded mode without a usable GPU, a tracer that cannot start, a judge that crashed): the whole
#: submission is then not graded (LabResult.not_graded), never a number (banklab.grading.status).
STATUSES = ("passed", "failed", "skipped", "fault")

#: How the judge's emulated twin words the skip of a timing test (grader/judge/emulation.cpp,
#: timing_needs_a_gpu(): "needs a GPU: this test times kernels, and the emulator ... does not time
#: them"): the emulator runs kernels but does not time them. What the points table's [emulated]
#: timing setting applies to (banklab.grading.points); checked against the real judge's records by
#: batch.EmulatedGradingThroughEveryEntryPoint.
EMULATOR_TIMING_SKIP = "needs a GPU"


@dataclasses.dataclass
class Verdict:
    test: str
    tier: str
    status: str        # passed | failed | skipped | fault (after our own fail-closed reading)
    message: str
    checks: int = 0
    points: float = 0.0
    max_points: float = 0.0
    note: str = ""     # why a passed test earned nothing (a required group failed), or less (emulated)
    emulated: bool = False     # judged on the emulator, not a GPU (the record's "emulated": true)
    awaits_gpu: bool = False   # judged on the emulator, but the course's [emulated] earns = "none":
                               # not judged for its points until a GPU judges it (banklab.grading.points)
    reweighted: bool = False   # a timing test the emulator cannot judge, its points shared by the lab's
                               # other tests ([emulated] timing = "reweighted"): out of the maximum

    @property
    def timing_on_emulator(self) -> bool:
        """A timing test the emulator skipped (it does not time kernels): "needs a GPU"."""
        return self.emulated and self.status == "skipped" and self.message.startswith(EMULATOR_TIMING_SKIP)

    def __post_init__(self):
        # The message may quote the student's file, compiler or probe: bounded and visible from here
        # on (cleantext.py), whatever reads it (a pattern, a report, a terminal, a saved result).
        self.message = ct.message(self.message)


@dataclasses.dataclass
class LabResult:
    student: str
    lab: str
    source: str
    source_sha256: str
    tier: str
    verdicts: list[Verdict]
    judge_note: str = ""       # why the judge's file was not used (empty when it was)
    seconds: float = 0.0
    points_table: str = ""
    timed_out: bool = False    # the outer timeout stopped the judge: never reused on a resume
    ungraded: str = ""         # why this is no grade though no verdict says fault (a lost or pending task)
    ignored: list[str] = dataclasses.field(default_factory=list)   # files handed in, not graded
    variant: int | None = None  # the variant graded, for a lab with variants (banklab/grading/assigned.py)
    kept_work: str = ""        # --keep-work: what of the work folder was not kept, and why (keepwork.py)

    def __post_init__(self):
        # No text a student chose is kept raw (cleantext.py): the name (a folder's), the file graded
        # and those ignored (archive members), the notes that name them.
        self.student, self.source = ct.name(self.student), ct.name(self.source, 1024)
        self.judge_note, self.ungraded = ct.message(self.judge_note), ct.message(self.ungraded)
        self.ignored = [ct.name(n, 1024) for n in self.ignored]

    @property
    def points(self) -> float:
        return round(sum(v.points for v in self.verdicts), 3)

    @property
    def max_points(self) -> float:
        return round(sum(v.max_points for v in self.verdicts), 3)

    @property
    def failed(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.status == "failed"]

    @property
    def not_judged(self) -> list[Verdict]:
        """Tests this grade does not cover: left out of the run (--tier cpu), skipped (no GPU, or a
        timing test on the emulator), not judged because of the grading machine (fault), or judged on
        the emulator where the course gives that nothing (awaits_gpu). A timing test whose points
        the table shared out (reweighted) is not among them."""
        return [v for v in self.verdicts if (v.status in ("skipped", "fault") and not v.reweighted) or v.awaits_gpu]

    @property
    def emulated(self) -> list[Verdict]:
        """The GPU tests judged on the emulator (passed or failed there), not on a GPU."""
        return [v for v in self.verdicts if v.emulated and v.status in ("passed", "failed")]

    def emulated_line(self) -> str:
        """One sentence for the feedback and the platforms where GPU tests were judged on the emulator
        (no GPU on the grading machine), "" where none was."""
        if not self.emulated:
            return ""
        timing = [v for v in self.verdicts if v.timing_on_emulator]
        said = (f"{len(self.emulated)} GPU test(s) were judged on the emulator (no GPU on the grading machine: "
                "your compiled kernel run warp by warp on the CPU, its shared-memory traffic judged as on the "
                "GPU), not on a GPU")
        if timing and all(v.reweighted for v in timing):
            said += (f"; {len(timing)} timing test(s) need a GPU and were not judged, their points shared by "
                     "the lab's other tests")
        elif timing:
            said += (f"; {len(timing)} timing test(s) need a GPU and were not judged "
                     f"({fmt_points(round(sum(v.max_points for v in timing), 2))} points)")
        return said + "."

    @property
    def not_graded(self) -> str:
        """Why this result is no grade at all ("" when it is one): a test the judge could not run
        where it had to (a fault: no usable GPU in graded mode, a crashed judge), or a cluster task
        lost or still pending. Such a result is a number nowhere (banklab.grading.status)."""
        if self.ungraded:
            return self.ungraded
        f = next((v for v in self.verdicts if v.status == "fault"), None)
        return f.message.removeprefix("not graded: ").strip() if f else ""

    @property
    def complete(self) -> bool:
        """A grade is complete when every test of the lab was judged (none skipped or left out)."""
        return not self.not_judged

    def incomplete_line(self) -> str:
        """One sentence for the feedback and the reports; "" when the grade is complete."""
        if self.complete:
            return ""
        if self.not_graded:
            return (f"Not graded: {self.not_graded.rstrip('.')}. This is not a grade and not a zero: "
                    "nothing here is the student's doing, and the submission is graded again.")
        pts = sum(v.max_points for v in self.not_judged)
        tiers = sorted({v.tier for v in self.not_judged})
        why = ("timing needs a GPU, and this grade's GPU tier ran on the emulator" if self.emulated
               else "no GPU, or the run left that tier out")
        return (f"Incomplete grade: {len(self.not_judged)} test(s) of the {'/'.join(tiers)} tier "
                f"({fmt_points(round(pts, 2))} of {fmt_points(self.max_points)} points) were not judged "
                f"({why}); they earn nothing until a run with "
                f"--tier all on a GPU judges them.")

    def to_json(self) -> dict:
        d = dataclasses.asdict(self)
        d["schema"] = schemas.BATCH_RESULT
        d["points"] = self.points
        d["max_points"] = self.max_points
        d["complete"] = self.complete
        return d

    @staticmethod
    def from_json(d: dict) -> "LabResult":
        """The result a saved record (to_json()) holds; a record of another schema raises
        schemas.SchemaError (a ValueError)."""
        if d.get("schema") != schemas.BATCH_RESULT:
            raise schemas.SchemaError(f"not a {schemas.BATCH_RESULT} record (schema {d.get('schema')!r})")
        d = dict(d)
        for k in ("schema", "points", "max_points", "graded", "complete", "cache_key", "lms_id",
                  "verdict_key", "lms", "points_digest"):
            d.pop(k, None)
        d["verdicts"] = [Verdict(**v) for v in d["verdicts"]]
        return LabResult(**d)


def fmt_points(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))
