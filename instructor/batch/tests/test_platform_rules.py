"""Each platform's own rules decide what our files mean (issue 46, items 1 and 2).

Our results files are fed through a small model of what each platform does with them, written from
the platform's documentation and code, and the test asks what the student ends up with:
- PrairieLearn: a not-graded submission (a fault: no GPU under --graded; a grader that cannot run
  there) is "invalid, not gradable": no score recorded, the attempt not counted; a graded one is a
  score in [0, 1]; a compile error stays not gradable.
- Gradescope: a not-graded run (a fault, a refusal) shows as a failed autograder run, never a
  total of 0; a graded run's total is its score.

  python3 -m unittest -v test_platform_rules
"""

import json
import math
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from banklab.grading.result import LabResult, Verdict   # noqa: E402
from banklab.grading import platforms as bp  # noqa: E402
from banklab.grading import status as bs    # noqa: E402
from batch_common import FAKE, PLATFORM      # noqa: E402


def prairielearn_records(results: dict, job_succeeded: bool = True) -> dict:
    """What PrairieLearn records from a course's /grade/results/results.json (`results`), as its code
    does it (PrairieLearn/PrairieLearn; docs/externalGrading.md, "Grading results"):
    - the grader host wraps the file: {"succeeded": <the job ran>, "results": <the file>};
    - makeGradingResult (apps/prairielearn/src/lib/externalGraderCommon.ts): a job that did not
      succeed scores 0; else the score is results.score as it is (absent stays absent);
    - processGradingResult (apps/prairielearn/src/lib/externalGrader.ts): where the course's
      results.succeeded is false the score is set to 0; the submission is gradable when the job
      succeeded and results.gradable is not false (absent: true); a gradable one without a finite
      score in [0, 1] becomes not gradable (an error) with score 0.
    - the docs: with "gradable": false "no points will be awarded or lost, and the student will not
      be penalized an attempt"; a gradable submission records its score and counts as an attempt.
    Returns {"gradable", "score" (what is recorded; None when nothing is), "attempt_counted"}."""
    score = results.get("score") if job_succeeded else 0
    if not results.get("succeeded", True):
        score = 0
    gradable = job_succeeded and bool(results.get("gradable", True))
    if gradable and (not isinstance(score, (int, float)) or not math.isfinite(score) or not 0 <= score <= 1):
        gradable, score = False, 0
    return {"gradable": gradable, "score": score if gradable else None, "attempt_counted": gradable}


def gradescope_shows(folder: Path) -> tuple[str, float | None]:
    """What Gradescope shows for the results folder of a run (gradescope-autograders.readthedocs.io):
    no valid JSON file at results/results.json: the run failed ("The autograder failed to execute
    correctly", "Troubleshooting"), no score; else the total is the top-level "score" or, where it is
    left out ("optional, but required if not on each test case", "Autograder Specifications"), the
    sum of the tests' scores. Returns ("failed", None) or ("scored", total)."""
    try:
        d = json.loads((folder / "results.json").read_text())
    except (OSError, ValueError):
        return "failed", None
    if not isinstance(d, dict):
        return "failed", None
    if "score" in d:
        return "scored", float(d["score"])
    return "scored", float(sum(t.get("score", 0) for t in d.get("tests") or []))


def result(status: str) -> LabResult:
    v = Verdict("Lab05Predictions.Q1", "cpu", status, "" if status == "passed" else "why", 1 if status == "passed" else 0)
    v.max_points, v.points = 10.0, 10.0 if status == "passed" else 0.0
    return LabResult("s", "05", "kernel.cu", "0" * 64, "cpu", [v])


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-rules-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def platform(self, platform: str, *args, judge=FAKE, kernel="// FAKE-JUDGE: solved\n"):
        root = self.tmp / platform
        sub = root / ("submission" if platform == "gradescope" else "student")
        sub.mkdir(parents=True)
        (sub / "kernel.cu").write_text(kernel)
        if platform == "prairielearn":         # the question's server.py gives the student's variant
            (root / "data").mkdir()
            (root / "data" / "data.json").write_text(json.dumps({"params": {"banklab_lab": "05", "banklab_variant": 0}}))
        p = subprocess.run([sys.executable, str(PLATFORM), platform, "--root", str(root), "--lab", "05",
                            "--judge", str(judge), *args], capture_output=True, text=True, timeout=300)
        return p, root / "results"


class PrairieLearnCountsNoAttemptThatWasNotGraded(Tmp):
    def test_a_fault_is_not_gradable_no_score_no_attempt(self):
        rec = prairielearn_records(bp.prairielearn_results([result("fault")]))
        self.assertEqual(rec, {"gradable": False, "score": None, "attempt_counted": False})

    def test_graded_mode_without_a_gpu_through_grade_platform(self):
        p, res = self.platform("prairielearn", "--tier", "all", "--graded")
        self.assertEqual(p.returncode, bs.NOT_GRADED_EXIT, p.stdout + p.stderr)
        d = json.loads((res / "results.json").read_text())
        self.assertEqual(prairielearn_records(d)["attempt_counted"], False, d)
        self.assertIn("no GPU on this machine", " ".join(d["format_errors"]))
        self.assertNotIn("score", d)

    def test_a_grader_that_cannot_run_here_counts_no_attempt(self):
        p, res = self.platform("prairielearn", judge=self.tmp / "no-such-judge")
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        d = json.loads((res / "results.json").read_text())
        self.assertEqual(prairielearn_records(d), {"gradable": False, "score": None, "attempt_counted": False})

    def test_a_graded_submission_records_its_score_and_counts(self):
        p, res = self.platform("prairielearn", "--tier", "cpu")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        d = json.loads((res / "results.json").read_text())
        rec = prairielearn_records(d)
        self.assertTrue(rec["attempt_counted"], d)
        self.assertGreater(rec["score"], 0)
        self.assertAlmostEqual(rec["score"], d["points"] / d["max_points"], places=5)
        failed = prairielearn_records(bp.prairielearn_results([result("failed")]))
        self.assertEqual(failed, {"gradable": True, "score": 0.0, "attempt_counted": True})   # a real 0 stays one

    def test_the_model_is_prairielearns(self):
        # The cases the code names: a course's succeeded false with gradable left true scores 0 and counts
        # (what banklab wrote before issue 46); a job that failed is not gradable; no score is an error.
        self.assertEqual(prairielearn_records({"succeeded": False, "gradable": True}),
                         {"gradable": True, "score": 0, "attempt_counted": True})
        self.assertFalse(prairielearn_records({"score": 1.0}, job_succeeded=False)["gradable"])
        self.assertFalse(prairielearn_records({"gradable": True})["gradable"])
        self.assertFalse(prairielearn_records({"score": 1.5})["gradable"])


class GradescopeShowsAFailedRunNeverAZeroTotal(Tmp):
    def test_graded_mode_without_a_gpu_is_a_failed_run(self):
        p, res = self.platform("gradescope", "--tier", "all", "--graded")
        self.assertEqual(p.returncode, bs.NOT_GRADED_EXIT, p.stdout + p.stderr)
        self.assertEqual(gradescope_shows(res), ("failed", None))
        why = json.loads((res / bp.GRADESCOPE_NOT_GRADED_FILE).read_text())
        self.assertIn("no GPU on this machine", why["output"])
        self.assertIn("no GPU on this machine", p.stdout)        # the instructor's view of the run

    def test_a_grader_that_cannot_run_here_is_a_failed_run(self):
        p, res = self.platform("gradescope", judge=self.tmp / "no-such-judge")
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertEqual(gradescope_shows(res), ("failed", None))
        self.assertIn("no-such-judge does not exist", p.stdout)

    def test_a_graded_run_shows_its_total_and_a_later_fault_leaves_no_old_total(self):
        p, res = self.platform("gradescope", "--tier", "cpu")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        shown, total = gradescope_shows(res)
        d = json.loads((res / "results.json").read_text())
        self.assertEqual((shown, total), ("scored", d["score"]))
        self.assertGreater(total, 0)
        self.assertFalse((res / bp.GRADESCOPE_NOT_GRADED_FILE).exists())
        bp.write_gradescope(res, bp.gradescope_results([result("fault")]))
        self.assertEqual(gradescope_shows(res), ("failed", None))
        bp.write_gradescope(res, bp.gradescope_results([result("failed")]))     # a real 0 is shown as one
        self.assertEqual(gradescope_shows(res), ("scored", 0.0))

    def test_the_model_is_gradescopes(self):
        (self.tmp / "results.json").write_text('{"tests": []}')   # what banklab wrote before issue 46
        self.assertEqual(gradescope_shows(self.tmp), ("scored", 0.0))
        (self.tmp / "results.json").write_text('{"tests": [{"score": 2}, {"score": 3}]}')
        self.assertEqual(gradescope_shows(self.tmp), ("scored", 5.0))



class GitHubSummarySaysNotJudged(unittest.TestCase):
    def test_a_lab_with_nothing_handed_in_is_not_judged_not_0_and_not_complete(self):
        v = Verdict("Lab06Predictions.Q1", "cpu", "failed", "not judged: no kernel.cu for lab 06 was submitted", 0)
        v.max_points = 10.0
        missing = LabResult("s", "06", "", "", "cpu", [v], "no kernel.cu for lab 06 was submitted")
        md = bp.github_summary([result("passed"), missing])
        self.assertIn("| 06 | not judged | not judged: no kernel.cu for lab 06 was submitted | none |", md)
        self.assertNotIn("Lab06Predictions.Q1", md)              # no failed test that never ran
        self.assertIn("| 05 | 10 / 10 | yes | none |", md)       # a judged lab as before


if __name__ == "__main__":
    unittest.main(verbosity=2)
