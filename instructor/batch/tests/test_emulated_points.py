"""What a GPU test judged on the emulator earns, and how every report says it (issue 47, "Grading
where there is no GPU"; no judge needed): the judge's record says `"emulated": true`
(read_verdict reads it, and refuses it anywhere but on a GPU test, and as anything but true); the
points table's [emulated] (grader/points/weights.toml) says what such a test earns ("full", a
fraction, "none") and what becomes of a timing test the emulator cannot judge ("not judged": in the
maximum, the grade incomplete; "reweighted": its points shared by the lab's other tests, the
maximum unchanged); a bad setting is refused. The gradebook, results.csv, the feedback, Gradescope's
and PrairieLearn's results and the GitHub summary each say which tests were emulated, and a timing
test not judged is never a recorded zero: Gradescope has a top-level score and no failed line for
it, PrairieLearn a gradable score.

  python3 -m unittest -v test_emulated_points
"""

import csv
import tempfile
import unittest
from pathlib import Path

from banklab.grading import judging                      # noqa: E402
from banklab.grading import platforms as bp              # noqa: E402
from banklab.grading import points as bpt                # noqa: E402
from banklab.grading import reports as br                # noqa: E402
from banklab.grading.result import LabResult             # noqa: E402
from batch_common import ROOT                            # noqa: E402
from test_platform_rules import gradescope_shows, prairielearn_records   # noqa: E402

#: The weights a lab's table is made of (grader/points/weights.toml's groups), as data.
GROUPS = {"gates": {"points": 0, "match": ["Lab00OnGpu.*IsCorrect"]},
          "objective": {"points": 50, "match": "Lab00OnGpu.Traced*", "requires": ["gates"]},
          "layout": {"points": 25, "match": "Lab00Layout.*", "requires": ["gates"]},
          "timing": {"points": 5, "match": "Lab00OnGpu.*", "requires": ["gates"]}}
TIMING_SKIP = ("needs a GPU: this test times kernels, and the emulator (banklab emulator) runs them but does "
               "not time them")


def record(test: str, status: str, emulated: bool | None = True, message: str = "", tier: str = "gpu") -> dict:
    r = {"schema": "banklab.verdict.v1", "test": test, "tier": tier, "status": status, "checks": 3 if status == "passed" else 0,
         "message": message}
    if emulated is not None:
        r["emulated"] = emulated
    return r


def emulated_grade(objective: str = "passed") -> list[dict]:
    """The records of lab 00's solution (objective passed) or stub (failed) graded on the emulator."""
    return [record("Lab00Layout.AccessesAtTheMinimum", "passed", None, tier="cpu"),
            record("Lab00OnGpu.MultiplyByIIsCorrect", "passed"),
            record("Lab00OnGpu.TracedSharedAccessesAreConflictFree", objective,
                   message="" if objective == "passed" else "1 of 1 shared-memory instructions fail"),
            record("Lab00OnGpu.TileStoresMeetTheTimingTarget", "skipped", message=TIMING_SKIP)]


def result(records: list[dict], emulated: dict | None = None) -> LabResult:
    table = bpt.PointsTable.from_data({"lab": "00", "groups": GROUPS}, "test", "test", {}, emulated)
    vs = [judging.read_verdict(r["test"], r["tier"], r, "") for r in records]
    res = LabResult("ada", "00", "kernel.cu", "0" * 64, "all", vs)
    bpt.apply_points(res, table)
    return res


class EmulatedVerdictsEarnWhatTheTableSays(unittest.TestCase):
    def test_the_record_is_read_fail_closed(self):
        ok = judging.read_verdict("Lab00OnGpu.X", "gpu", record("Lab00OnGpu.X", "passed"), "")
        self.assertEqual((ok.status, ok.emulated), ("passed", True))
        plain = judging.read_verdict("Lab00OnGpu.X", "gpu", record("Lab00OnGpu.X", "passed", None), "")
        self.assertEqual((plain.status, plain.emulated), ("passed", False))
        for bad in (record("Lab00OnGpu.X", "passed", False), record("Lab00Layout.X", "passed", tier="cpu"),
                    dict(record("Lab00OnGpu.X", "passed"), emulated="true")):
            v = judging.read_verdict(bad["test"], bad["tier"], bad, "")
            self.assertEqual((v.status, v.emulated), ("failed", False), bad)
            self.assertIn("'emulated'", v.message)

    def test_the_default_emulated_tests_earn_their_points_and_timing_is_not_judged(self):
        r = result(emulated_grade())
        pts = {v.test: (v.points, v.max_points) for v in r.verdicts}
        self.assertEqual(pts["Lab00OnGpu.TracedSharedAccessesAreConflictFree"], (50, 50))
        self.assertEqual(pts["Lab00OnGpu.TileStoresMeetTheTimingTarget"], (0, 5))   # in the maximum
        self.assertEqual((r.points, r.max_points), (75, 80))
        self.assertFalse(r.complete)
        self.assertEqual([v.test for v in r.not_judged], ["Lab00OnGpu.TileStoresMeetTheTimingTarget"])
        self.assertEqual(len(r.emulated), 2)
        self.assertIn("timing needs a GPU", r.incomplete_line())
        self.assertIn("2 GPU test(s) were judged on the emulator", r.emulated_line())
        self.assertIn("(5 points)", r.emulated_line())

    def test_reweighted_timing_leaves_the_maximum_unchanged_and_the_grade_complete(self):
        r = result(emulated_grade(), {"earns": 1.0, "timing": "reweighted"})
        timing = next(v for v in r.verdicts if v.test == "Lab00OnGpu.TileStoresMeetTheTimingTarget")
        self.assertEqual((timing.points, timing.max_points, timing.reweighted), (0, 0, True))
        self.assertAlmostEqual(r.points, 80)
        self.assertAlmostEqual(r.max_points, 80)
        self.assertTrue(r.complete)
        self.assertIn("shared by", timing.note)
        self.assertIn("their points shared by the lab's other tests", r.emulated_line())
        stub = result(emulated_grade("failed"), {"earns": 1.0, "timing": "reweighted"})
        self.assertAlmostEqual(stub.max_points, 80)
        self.assertLess(stub.points, 80 - 50)            # the objective failed: its share is lost

    def test_a_fraction_and_none(self):
        half = result(emulated_grade(), {"earns": 0.5, "timing": "not judged"})
        obj = next(v for v in half.verdicts if v.test == "Lab00OnGpu.TracedSharedAccessesAreConflictFree")
        self.assertEqual((obj.points, obj.max_points), (25, 50))
        self.assertIn("50 %", obj.note)
        none = result(emulated_grade(), {"earns": 0.0, "timing": "not judged"})
        self.assertEqual(none.points, 25)               # the CPU test's points alone
        self.assertEqual(half.points, 25 + 25)
        self.assertEqual({v.test for v in none.not_judged},
                         {v.test for v in none.verdicts if v.tier == "gpu"})   # awaiting a GPU, not failed
        self.assertFalse(none.complete)

    def test_a_gpu_verdict_is_not_changed(self):
        gpu = [dict(r) for r in emulated_grade()]
        for r in gpu:
            r.pop("emulated", None)
        gpu[-1] = record("Lab00OnGpu.TileStoresMeetTheTimingTarget", "passed", None)
        for policy in ({"earns": 0.0, "timing": "reweighted"}, None):
            r = result(gpu, policy)
            self.assertEqual((r.points, r.max_points, r.complete, r.emulated), (80, 80, True, []))

    def test_the_setting_is_read_from_weights_toml_and_a_bad_one_is_refused(self):
        self.assertEqual(bpt.load_points(ROOT, "00").emulated, bpt.EMULATED_DEFAULTS)   # the course's defaults
        with tempfile.TemporaryDirectory() as tmp:
            w = (ROOT / "grader" / "points" / "weights.toml").read_text()
            for said, want in (('earns = "full"', 1.0), ('earns = "none"', 0.0), ("earns = 0.25", 0.25)):
                (Path(tmp) / "weights.toml").write_text(w.replace('earns = "full"', said))
                t = bpt.load_points(ROOT, "00", Path(tmp))
                self.assertEqual(t.emulated["earns"], want, said)
            digests = {t.digest}
            (Path(tmp) / "weights.toml").write_text(w.replace('timing = "not judged"', 'timing = "reweighted"'))
            digests.add(bpt.load_points(ROOT, "00", Path(tmp)).digest)
            self.assertEqual(len(digests), 2, "the setting changes the table's digest (a saved result is re-scored)")
            for bad in ('earns = "half"', "earns = 1.5", "earns = true", 'timing = "zero"', "paid = 1"):
                key = "earns" if bad.startswith(("earns", "paid")) else "timing"
                (Path(tmp) / "weights.toml").write_text(
                    w.replace('earns = "full"' if key == "earns" else 'timing = "not judged"', bad))
                with self.assertRaises(ValueError, msg=bad):
                    bpt.load_points(ROOT, "00", Path(tmp))

    def test_every_report_says_which_tests_were_emulated(self):
        r = result(emulated_grade())
        with tempfile.TemporaryDirectory() as tmp:
            br.write_gradebook([r], Path(tmp) / "gradebook.csv")
            row = next(csv.DictReader(open(Path(tmp) / "gradebook.csv", encoding="utf-8")))
            self.assertEqual(row["lab00 emulated"], "2")
            br.write_results_csv([r], Path(tmp) / "results.csv")
            row = next(csv.DictReader(open(Path(tmp) / "results.csv", encoding="utf-8")))
            self.assertEqual(row["emulated_tests"].split(";"),
                             ["Lab00OnGpu.MultiplyByIIsCorrect", "Lab00OnGpu.TracedSharedAccessesAreConflictFree"])
            gs = bp.gradescope_results([r])
            bp.write_gradescope(Path(tmp) / "gs", gs)
            self.assertEqual(gradescope_shows(Path(tmp) / "gs"), ("scored", 75))   # a score, never a 0
        md = br.feedback_markdown("ada", [r], br.Explainer(None))
        self.assertIn("| gpu (emulated) | passed |", md)
        self.assertIn(r.emulated_line(), md)
        self.assertIn(r.emulated_line(), br.feedback_html("ada", [r], br.Explainer(None)))
        tagged = [t for t in gs["tests"] if "emulated" in t.get("tags", [])]
        self.assertEqual([t["name"] for t in tagged], ["lab00 Lab00OnGpu.MultiplyByIIsCorrect",
                                                       "lab00 Lab00OnGpu.TracedSharedAccessesAreConflictFree"])
        self.assertTrue(all(t["output"].startswith(f"({bp.ON_EMULATOR})") for t in tagged))
        self.assertFalse([t for t in gs["tests"] if "Timing" in t["name"]], "a timing test not judged has no line")
        self.assertIn(r.emulated_line(), gs["output"])
        pl = bp.prairielearn_results([r])
        self.assertEqual(prairielearn_records(pl), {"gradable": True, "score": round(75 / 80, 6),
                                                    "attempt_counted": True})
        self.assertIn("(GPU tier on the emulator)", pl["message"])
        self.assertEqual([t["message"] for t in pl["tests"] if "Timing" in t["name"]], ["not judged (needs a GPU)"])
        self.assertEqual(sorted(t["name"] for t in pl["tests"] if t["message"].endswith("(on the emulator)")),
                         [t["name"] for t in tagged])
        self.assertIn("| 00 | 75 / 80 | no: timing needs a GPU (GPU tier on the emulator) | none |",
                      bp.github_summary([r]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
