"""Tests of the batch grader, the points tables, the reports and the platform files.

They run against a judge given by $BANKLAB_TEST_JUDGE, by default the TEST DOUBLE
instructor/batch/tests/fake_judge.py, whose verdicts are chosen by a marker in each source: these
tests check what the batch grader does with verdicts (points, fail-closed reading, reports,
platform formats), not what the real judge decides. The end-to-end test with the real judge
is instructor/batch/tests/test_real_judge.py.

  python3 -m unittest discover -s instructor/batch/tests -p 'test_batch.py' -v
"""

import csv
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import unittest
import urllib.parse
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
from banklab.lab import labs as banklab_labs   # noqa: E402
from banklab.grading import judging   # noqa: E402
from banklab.grading import points as bpt   # noqa: E402
from banklab.grading import invocation   # noqa: E402
from banklab.grading.result import LabResult, Verdict   # noqa: E402
from banklab.grading import reports as br   # noqa: E402
from banklab.grading import lms as blms   # noqa: E402
from banklab.grading import platforms as bp  # noqa: E402

FAKE = HERE / "fake_judge.py"
GRADE_CLASS = HERE.parent / "grade-class"
PLATFORM = ROOT / "instructor" / "platforms" / "grade-platform"
BANKLAB = os.environ.get("BANKLAB_EXE")


def cpu_tests(lab):
    """The CPU tests of lab NN as the fake judge lists them (Lab.tests(), the one list: test.cu's and
    those the judge registers from the description's questions and at_minimum entries; no
    instructor-only check)."""
    return [t.full_name for t in banklab_labs.find_labs(ROOT)[lab].tests() if t.tier == "cpu" and t.kind != "instructor"]


def _weights():
    return tomllib.loads((ROOT / "grader" / "points" / "weights.toml").read_text())["roles"]


def _gates(lab):
    pats = banklab_labs.find_labs(ROOT)[lab].gates
    return lambda t: any(fnmatch.fnmatchcase(t, p) for p in pats)


def expected_points(lab, failing):
    """The default policy, computed on its own from weights.toml and the lab's gates: the
    predictions share the `predictions` weight; the layout tests that are not gates share the
    `layout` weight, and earn nothing while a gate fails; the GPU tier earns nothing on the CPU."""
    w, gate = _weights(), _gates(lab)
    tests = cpu_tests(lab)
    pred = [t for t in tests if "Predictions." in t]
    lay = [t for t in tests if "Layout." in t and not gate(t)]
    gates_ok = not any(gate(t) for t in failing)
    return (w["predictions"] * sum(t not in failing for t in pred) / len(pred)
            + (w["layout"] * sum(t not in failing for t in lay) / len(lay) if gates_ok else 0))


def lab_max(lab):
    """Every test of the lab counts in the maximum (the fake judge knows no instructor checks)."""
    w = _weights()
    return sum(v for k, v in w.items() if k != "instructor")


CPU_SOLVED = _weights()["predictions"] + _weights()["layout"]   # a solved lab on the CPU tier


def emulated_solved(lab):
    """A solved lab graded as the platforms grade by default where there is no GPU (the GPU tier on
    the emulator, graded): every test's points but the timing tests', which are not judged."""
    timed = {t.full_name for t in banklab_labs.find_labs(ROOT)[lab].tests() if t.timed}
    tests = [t for t, _ in invocation.list_tests(FAKE, lab)]
    alloc = bpt.load_points(ROOT, lab).allocate(tests)
    assert timed and set(timed) <= set(tests)
    return round(sum(v for t, v in alloc.items() if t not in timed), 2)


def stub_failing(lab):
    tests = cpu_tests(lab)
    return {t for t in tests if "Predictions." in t} | {next(t for t in tests if "Layout." in t)}


# ----------------------------------------------------------------------------- JSON validators

def validate_gradescope(tc, d):
    if "banklab_not_graded" in d.get("extra_data", {}):       # a fault: no score at all, never a 0
        tc.assertNotIn("score", d)
        tc.assertEqual(d["tests"], [])
        tc.assertIn("Not graded", d["output"])
        return
    tc.assertIsInstance(d["score"], (int, float))
    tc.assertIsInstance(d["tests"], list)
    for t in d["tests"]:
        if t["max_score"] == 0 and "not judged" in t["name"]:   # one line per lab for the tests not judged
            tc.assertNotIn("status", t)                       # neither passed nor failed
            tc.assertEqual(t["score"], 0)
            tc.assertIn("Not judged (not failed)", t["output"])
            continue
        tc.assertTrue({"name", "score", "max_score", "status", "output", "visibility"} <= t.keys(), t)
        tc.assertIsInstance(t["name"], str)
        tc.assertIsInstance(t["score"], (int, float))
        tc.assertIsInstance(t["max_score"], (int, float))
        tc.assertLessEqual(t["score"], t["max_score"])
        tc.assertIn(t["status"], ("passed", "failed"))
        tc.assertIsInstance(t["output"], str)
        tc.assertIn(t["visibility"], ("hidden", "after_due_date", "after_published", "visible"))
    tc.assertAlmostEqual(d["score"], sum(t["score"] for t in d["tests"]), places=2)


def validate_prairielearn(tc, d):
    tc.assertIsInstance(d["gradable"], bool)
    if not d["gradable"]:                    # PrairieLearn's format errors: the attempt does not count
        tc.assertTrue(d["format_errors"] and all(isinstance(e, str) for e in d["format_errors"]))
        return
    if d.get("succeeded") is False:          # a fault: the grading job failed, no score recorded
        tc.assertNotIn("score", d)
        tc.assertIn("not graded", d["message"])
        return
    tc.assertIsInstance(d["score"], (int, float))
    tc.assertGreaterEqual(d["score"], 0.0)
    tc.assertLessEqual(d["score"], 1.0)
    for t in d["tests"]:
        tc.assertTrue({"name", "points", "max_points", "message", "output"} <= t.keys(), t)
        tc.assertIsInstance(t["name"], str)
        tc.assertLessEqual(t["points"], t["max_points"])
        tc.assertIsInstance(t["message"], str)
        tc.assertIsInstance(t["output"], str)


def validate_junit(tc, text):
    root = ET.fromstring(text)
    tc.assertEqual(root.tag, "testsuites")
    for s in root.iter("testsuite"):
        cases = list(s.iter("testcase"))
        tc.assertEqual(int(s.get("tests")), len(cases))
        tc.assertEqual(int(s.get("failures")), sum(1 for c in cases if c.find("failure") is not None))
    return root


# ----------------------------------------------------------------------------- points

class PointsTables(unittest.TestCase):
    def table(self, text):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "lab05.toml"
            p.write_text(text)
            return bpt.PointsTable.load(p)

    def test_every_lab_folder_has_a_points_table_that_loads(self):
        for lab in banklab_labs.lab_folders(ROOT):
            t = bpt.load_points(ROOT, lab)
            self.assertEqual(t.lab, lab)
            self.assertTrue(t.groups)

    def test_the_labs_central_objective_carries_at_least_half_of_its_points(self):
        for lab in banklab_labs.lab_folders(ROOT):
            t = bpt.load_points(ROOT, lab)
            tests = [x for x, _ in _fake_list(lab)]
            for extra in ([], [f"Lab{lab}InstructorX.A"]):     # the release, and the course with its checks
                alloc = t.allocate(tests + extra)
                traced = sum(v for k, v in alloc.items() if k.startswith(f"Lab{lab}OnGpu.Traced"))
                with self.subTest(lab=lab, instructor=bool(extra)):
                    self.assertTrue(any(k.startswith(f"Lab{lab}OnGpu.Traced") for k in alloc))
                    self.assertGreaterEqual(traced + 1e-9, sum(alloc.values()) / 2)

    def test_without_the_gpu_tier_no_lab_can_reach_half_of_its_points(self):
        for lab in banklab_labs.lab_folders(ROOT):
            alloc = bpt.load_points(ROOT, lab).allocate(t for t, _ in _fake_list(lab))
            cpu = sum(v for k, v in alloc.items() if "OnGpu." not in k)
            self.assertLess(cpu, sum(alloc.values()) / 2, lab)

    def test_the_weights_live_in_one_file_and_a_role_without_a_weight_is_refused(self):
        with self.assertRaisesRegex(ValueError, "role 'nosuch' has no weight"):
            self.table('lab = "05"\n[groups.p]\nmatch = "x"\nrole = "nosuch"\n')
        with tempfile.TemporaryDirectory() as d:
            w = (ROOT / "grader" / "points" / "weights.toml").read_text()
            (Path(d) / "weights.toml").write_text(re.sub(r"(?m)^layout\s*=\s*\d+", "layout = 3", w))
            t = bpt.load_points(ROOT, "05", Path(d))
            self.assertEqual({g.name: g.points for g in t.groups}["layout"], 3)
            self.assertEqual({g.name: g.points for g in t.groups}["objective"], _weights()["objective"])

    def test_a_labs_table_is_its_gates_then_the_groups_every_lab_shares(self):
        for lab in banklab_labs.lab_folders(ROOT):
            t = bpt.load_points(ROOT, lab)
            desc = banklab_labs.find_labs(ROOT)[lab].description
            with self.subTest(lab=lab):
                self.assertEqual([g.name for g in t.groups],
                                 ["gates", "objective", "predictions", "layout", "timing", "instructor"])
                self.assertEqual(t.groups[0].patterns, desc["points"]["gates"])
                self.assertEqual(t.groups[0].points, 0)
                self.assertEqual(t.group("objective").patterns, [f"Lab{lab}OnGpu.Traced*"])
                self.assertIn(f"labs/{banklab_labs.lab_folders(ROOT)[lab]}/judge/lab.toml", t.path)
                self.assertIn("grader/points/weights.toml", t.path)

    def test_a_labs_own_test_points_come_from_its_description(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            shutil.copytree(ROOT / "grader" / "points", root / "grader" / "points")
            shutil.copytree(ROOT / "labs" / "05_swizzle", root / "labs" / "05_swizzle")
            desc = root / "labs" / "05_swizzle" / "judge" / "lab.toml"
            text = desc.read_text().replace(
                "# ---- judge ----", 'points.tests."Lab05Layout.A" = 20\n# ---- judge ----')
            desc.write_text(text)
            t = bpt.load_points(root, "05")
            alloc = t.allocate(["Lab05Layout.A", "Lab05Layout.B"])
            self.assertEqual(alloc, {"Lab05Layout.A": 20, "Lab05Layout.B": _weights()["layout"] - 20})

    def test_an_instructors_own_table_in_the_points_dir_replaces_the_labs(self):
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "lab05.toml").write_text(
                'lab = "05"\n[groups.p]\nmatch = "Lab05Predictions.*"\npoints = 30\n')
            t = bpt.load_points(ROOT, "05", Path(d))
            self.assertEqual([g.name for g in t.groups], ["p"])
            self.assertEqual(t.allocate(["Lab05Predictions.A"]), {"Lab05Predictions.A": 30})
            self.assertEqual(bpt.load_points(ROOT, "04", Path(d)).group("gates").patterns,
                             banklab_labs.find_labs(ROOT)["04"].gates)

    def test_a_group_that_requires_the_gates_earns_nothing_while_a_gate_fails(self):
        t = self.table('lab = "05"\n[groups.g]\nmatch = "Lab05Layout.InBounds"\npoints = 0\n'
                       '[groups.l]\nmatch = "Lab05Layout.*"\npoints = 20\nrequires = ["g"]\n')
        r = LabResult("s", "05", "k.cu", "x", "cpu",
                         [Verdict("Lab05Layout.InBounds", "cpu", "failed", "out of bounds"),
                          Verdict("Lab05Layout.Conflicts", "cpu", "passed", "", 1)])
        bpt.apply_points(r, t)
        self.assertEqual((r.points, r.max_points), (0, 20))
        self.assertIn("earns nothing until Lab05Layout.InBounds passes", r.verdicts[1].note)
        r.verdicts[0].status = "passed"
        bpt.apply_points(r, t)
        self.assertEqual(r.points, 20)

    def test_a_table_requiring_an_unknown_group_is_refused(self):
        with self.assertRaisesRegex(ValueError, "requires unknown group 'nope'"):
            self.table('lab = "05"\n[groups.l]\nmatch = "x"\npoints = 1\nrequires = ["nope"]\n')

    def test_a_group_shares_its_points_equally_among_its_tests(self):
        t = self.table('lab = "05"\n[groups.p]\nmatch = "Lab05Predictions.*"\npoints = 30\n')
        self.assertEqual(t.allocate(["Lab05Predictions.A", "Lab05Predictions.B", "Lab05Predictions.C"]),
                         {"Lab05Predictions.A": 10, "Lab05Predictions.B": 10, "Lab05Predictions.C": 10})

    def test_a_test_with_its_own_points_takes_them_out_of_its_group(self):
        t = self.table('lab = "05"\n[groups.p]\nmatch = "Lab05Layout.*"\npoints = 40\n'
                       '[tests]\n"Lab05Layout.A" = 20\n')
        self.assertEqual(t.allocate(["Lab05Layout.A", "Lab05Layout.B", "Lab05Layout.C"]),
                         {"Lab05Layout.A": 20, "Lab05Layout.B": 10, "Lab05Layout.C": 10})

    def test_a_test_in_no_group_is_unscored(self):
        t = self.table('lab = "05"\n[groups.p]\nmatch = "Lab05Layout.*"\npoints = 40\n')
        self.assertEqual(t.allocate(["Lab05.Build", "Lab05Layout.A"]), {"Lab05.Build": 0, "Lab05Layout.A": 40})

    def test_a_group_with_no_test_in_the_list_adds_nothing_to_the_maximum(self):
        t = bpt.load_points(ROOT, "05")
        alloc = t.allocate(["Lab05Layout.A"])
        self.assertEqual(sum(alloc.values()), _weights()["layout"])

    def test_a_table_with_negative_points_is_refused(self):
        with self.assertRaisesRegex(ValueError, "points must be a number >= 0"):
            self.table('lab = "05"\n[groups.p]\nmatch = "x"\npoints = -1\n')

    def test_a_table_for_another_lab_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "lab04.toml").write_text('lab = "05"\n')
            with self.assertRaisesRegex(ValueError, 'says lab = "05", expected "04"'):
                bpt.load_points(ROOT, "04", Path(d))


def _fake_list(lab):
    return invocation.list_tests(FAKE, lab)


# ----------------------------------------------------------------------------- fail closed

class ReadingTheJudgesVerdicts(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-batch-"))
        self.tmp.chmod(0o755)
        self.addCleanup(shutil.rmtree, self.tmp)
        self.table = bpt.load_points(ROOT, "05")
        self.expected = _fake_list("05")          # every tier: the GPU tests stay in the maximum

    def grade(self, marker, **kw):
        src = self.tmp / f"{abs(hash(marker))}.cu"
        src.write_text(f"// FAKE-JUDGE: {marker}\n")
        kw.setdefault("expected", self.expected)
        return judging.grade_one(FAKE, "05", src, self.tmp / "w", table=self.table, **kw)

    def test_a_solved_lab_earns_every_cpu_point(self):
        r = self.grade("solved")
        self.assertEqual((r.points, r.max_points), (CPU_SOLVED, lab_max("05")))

    def test_a_grade_without_the_gpu_tier_is_incomplete_and_says_so(self):
        r = self.grade("solved")
        self.assertFalse(r.complete)
        self.assertTrue(all(v.status == "skipped" for v in r.verdicts if v.tier == "gpu"))
        self.assertIn("Incomplete grade", r.incomplete_line())
        self.assertIn("Incomplete grade", br.feedback_markdown("s", [r], br.Explainer(None)))

    def test_passed_records_with_zero_checks_and_another_sources_hash_earn_nothing(self):
        r = self.grade("forge")
        self.assertEqual(r.points, 0)
        self.assertEqual(r.max_points, lab_max("05"))
        self.assertIn("hash differs", r.judge_note)

    def test_an_unreadable_verdict_file_earns_nothing(self):
        r = self.grade("garbage")
        self.assertEqual(r.points, 0)
        self.assertIn("unreadable", r.judge_note)

    def test_a_judge_that_crashes_is_not_graded_never_a_zero(self):
        r = self.grade("crash")
        self.assertEqual(r.points, 0)
        self.assertTrue(all(v.status == "fault" for v in r.verdicts if v.tier == "cpu"))
        self.assertIn("the judge crashed", r.not_graded)
        self.assertFalse(r.complete)
        self.assertEqual(blms.lms_score(r, 100), "")

    def test_a_judge_that_hangs_is_stopped_at_the_outer_timeout(self):
        r = self.grade("hang", timeout=2)
        self.assertEqual(r.points, 0)
        self.assertIn("did not finish within 2 s", r.judge_note)
        self.assertLess(r.seconds, 30)

    def test_a_judge_list_that_names_no_test_of_the_lab_is_an_error(self):
        with self.assertRaisesRegex(RuntimeError, "named no test of lab 42"):
            invocation.list_tests(FAKE, "42")

    def test_the_judge_list_is_read_as_json_or_as_lines(self):
        self.assertEqual(invocation.parse_list('[{"lab": "05", "test": "Lab05Layout.A", "tier": "cpu"}]'),
                         [("05", "Lab05Layout.A", "cpu")])
        self.assertEqual(invocation.parse_list("05  Lab05OnGpu.B  gpu\n"), [("05", "Lab05OnGpu.B", "gpu")])

    def test_a_passed_record_with_zero_checks_is_a_failure(self):
        v = judging.read_verdict("T.A", "cpu", {"status": "passed", "checks": 0}, "")
        self.assertEqual(v.status, "failed")

    def test_a_test_the_judge_lists_but_gives_no_record_for_fails(self):
        r = self.grade("solved", expected=self.expected + [("Lab05Layout.NotInTheFile", "cpu")])
        v = next(v for v in r.verdicts if v.test == "Lab05Layout.NotInTheFile")
        self.assertEqual(v.status, "failed")
        self.assertLess(r.points, r.max_points)

    def test_a_build_failure_fails_every_test_with_the_compilers_message(self):
        r = self.grade("nocompile")
        self.assertEqual(r.points, 0)
        build = next(v for v in r.verdicts if v.test == "Lab05.Build")
        self.assertIn("error:", build.message)

    def test_a_build_failure_is_reported_once_in_the_feedback_and_on_the_platforms(self):
        r = self.grade("nocompile")
        md = br.feedback_markdown("s", [r], br.Explainer(None))
        self.assertEqual(md.count("error: expected ';'"), 1)
        gs = bp.gradescope_results([r])
        self.assertEqual(sum("error: expected" in t["output"] for t in gs["tests"]), 1)
        pl = bp.prairielearn_results([r])
        self.assertIs(pl["gradable"], False)
        self.assertEqual(len(pl["format_errors"]), 1)
        self.assertIn("error: expected ';'", pl["format_errors"][0])

    def test_feedback_commands_run_from_the_students_checkout(self):
        v = Verdict("Lab05Layout.A", "cpu", "failed",
                       'x. See it: /work/course/build/gpu/tools/banklab explain --line "ld 4 ffffffff 0"')
        r = LabResult("s", "05", "k.cu", "x", "cpu", [v])
        md = br.feedback_markdown("s", [r], br.Explainer(None))
        self.assertIn('See it: build/dev/tools/banklab explain --line "ld 4 ffffffff 0"', md)
        self.assertNotIn("/work/course", md)
        self.assertNotIn("/work/course", json.dumps(bp.gradescope_results([r])))

    def test_a_timed_out_result_is_marked_so_that_it_is_never_reused(self):
        r = self.grade("hang", timeout=2)
        self.assertTrue(r.timed_out)
        self.assertTrue(r.to_json()["timed_out"])

    def test_gpu_tests_skipped_without_a_gpu_earn_nothing_but_count_in_the_maximum(self):
        r = self.grade("solved", expected=_fake_list("05"), tier="all")
        gpu = [v for v in r.verdicts if v.tier == "gpu"]
        self.assertTrue(gpu and all(v.status == "skipped" for v in gpu))
        self.assertEqual((r.points, r.max_points), (CPU_SOLVED, lab_max("05")))
        self.assertFalse(r.complete)

    def test_in_graded_mode_a_gpu_test_that_cannot_run_is_a_fault_and_no_grade(self):
        r = self.grade("solved", expected=_fake_list("05"), tier="all", graded=True)
        self.assertTrue(all(v.status == "fault" for v in r.verdicts if v.tier == "gpu"))
        self.assertIn("no GPU on this machine", r.not_graded)
        self.assertFalse(r.complete)
        self.assertIn("Not graded: no GPU on this machine", r.incomplete_line())
        self.assertEqual(blms.lms_score(r, 100), "")
        gs = bp.gradescope_results([r])
        self.assertNotIn("score", gs)              # Gradescope: an autograder failure, never a 0
        self.assertEqual(gs["tests"], [])
        pl = bp.prairielearn_results([r])
        self.assertIs(pl["succeeded"], False)
        self.assertNotIn("score", pl)


# ----------------------------------------------------------------------------- end to end

SUBMISSIONS = {
    # student: {file in the student's folder: content}, expected CPU points per lab (None: 0)
    "s01_solved":      {"05_swizzle.cu": "// FAKE-JUDGE: solved", "04_padding.cu": "// FAKE-JUDGE: solved"},
    "s02_stub":        {"05_swizzle.cu": "// FAKE-JUDGE: stub", "04_padding.cu": "// FAKE-JUDGE: stub"},
    "s03_wrong":       {"05_swizzle.cu": "// FAKE-JUDGE: wrong Lab05Layout.ColumnReadsOfTheTileAreConflictFree",
                        "04_padding.cu": "// FAKE-JUDGE: wrong Lab04Predictions.PaddedTileSizeIsPredicted"},
    "s04_nocompile":   {"05_swizzle.cu": "// FAKE-JUDGE: nocompile", "04_padding.cu": "// FAKE-JUDGE: nocompile"},
    "s05_hang":        {"05_swizzle.cu": "// FAKE-JUDGE: hang", "04_padding.cu": "// FAKE-JUDGE: solved"},
    "s06_forge":       {"05_swizzle.cu": "// FAKE-JUDGE: forge", "04_padding.cu": "// FAKE-JUDGE: forge"},
    "s07_checkout":    {"labs/05_swizzle/kernel.cu": "// FAKE-JUDGE: solved",
                        "labs/04_padding/kernel.cu": "// FAKE-JUDGE: stub"},
    "s08_crash":       {"lab05.cu": "// FAKE-JUDGE: crash", "lab04/kernel.cu": "// FAKE-JUDGE: garbage"},
    "s09_missing":     {"05_swizzle.cu": "// FAKE-JUDGE: solved"},
    "s10_symlink":     {"04_padding.cu": "// FAKE-JUDGE: stub"},       # 05 is a link to a solution
    "s11_planted":     {"05_swizzle.cu": "// FAKE-JUDGE: stub", "results/lab05.json": "{}",
                        "grade.json": '{"schema": "banklab.grade.v1", "lab": "05", "verdicts": []}'},
    "s12_wrong_pred":  {"05_swizzle.cu": "// FAKE-JUDGE: wrong Lab05Predictions.BytesSavedOverPaddingArePredicted",
                        "04_padding.cu": "// FAKE-JUDGE: solved"},
}


def expected_for(student, lab):
    content = None
    for rel, text in SUBMISSIONS[student].items():
        if rel.endswith(".cu") and (f"{lab}_" in rel or f"lab{lab}" in rel):
            content = text
    if student == "s10_symlink" and lab == "05":
        return 0.0
    if content is None:
        return 0.0
    mode = content.split(": ", 1)[1].split()
    if mode[0] == "solved":
        return CPU_SOLVED
    if mode[0] == "stub":
        return expected_points(lab, stub_failing(lab))
    if mode[0] == "wrong":
        return expected_points(lab, {mode[1]})
    return 0.0


class GradingAClass(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-class-"))
        cls.tmp.chmod(0o755)
        subs = cls.tmp / "submissions"
        for student, files in SUBMISSIONS.items():
            for rel, text in files.items():
                p = subs / student / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text + "\n")
        (subs / "s10_symlink" / "05_swizzle.cu").symlink_to(ROOT / "solutions" / "05_swizzle" / "kernel.cu")
        cls.out = cls.tmp / "out"
        cls.cmd = [sys.executable, str(GRADE_CLASS), str(subs), "--out", str(cls.out), "--lab", "all",
                   "-j", "4", "--timeout", "15", "--judge", str(FAKE)] + (["--banklab", BANKLAB] if BANKLAB else [])
        cls.first = subprocess.run(cls.cmd, capture_output=True, text=True, timeout=600)
        with open(cls.out / "results.csv") as f:
            cls.rows = list(csv.DictReader(f))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def row(self, student, lab):
        return next((r for r in self.rows if r["student"] == student and r["lab"] == lab),
                    {"points": "0", "max": str(lab_max(lab)), "failed_tests": ""})

    def test_the_batch_grader_exits_4_and_names_the_submission_it_could_not_grade(self):
        # s08_crash's lab 05: the judge crashed, a fault: not graded, never the student's 0.
        self.assertEqual(self.first.returncode, 4, self.first.stderr)
        self.assertIn("1 submission(s) were NOT GRADED", self.first.stderr)
        self.assertRegex(self.first.stderr, r"s08_crash lab 05: not graded: the judge crashed \(exit status -6")
        self.assertRegex(self.first.stdout, r"s08_crash +lab 05  NOT GRADED: the judge crashed")
        with open(self.out / "not-graded.csv", encoding="utf-8") as f:
            status = {(r["student"], r["lab"]): r for r in csv.DictReader(f)}
        self.assertEqual(status[("s08_crash", "05")]["status"], "not graded")
        self.assertIn("the judge crashed", status[("s08_crash", "05")]["why"])
        crash = self.row("s08_crash", "05")
        self.assertEqual((crash["points"], crash["complete"]), ("", "not graded"))

    def test_only_the_labs_a_student_handed_in_are_graded(self):
        self.assertEqual({(r["student"], r["lab"]) for r in self.rows},
                         {(st, lab) for st, files in SUBMISSIONS.items() for lab in ("04", "05")
                          if any(f"{lab}_" in rel or f"lab{lab}" in rel for rel in files)}
                         | {("s10_symlink", "05")})      # a link is handed in, and refused
        self.assertEqual(list(self.rows[0].keys()), ["student", "lab", "points", "max", "complete", "failed_tests", "not judged",
                                                         "emulated_tests"])

    def test_every_submission_gets_the_points_its_verdicts_earn(self):
        for student in SUBMISSIONS:
            for lab in ("04", "05"):
                with self.subTest(student=student, lab=lab):
                    r = self.row(student, lab)
                    if (student, lab) == ("s08_crash", "05"):       # not graded: no number
                        self.assertEqual(r["points"], "")
                        continue
                    saved = self.out / "results" / student / f"lab{lab}.json"
                    if saved.is_file() and not json.loads(saved.read_text())["source"]:
                        self.assertEqual((r["points"], r["complete"]), ("", "not judged"))   # nothing gradable
                        continue
                    self.assertAlmostEqual(float(r["points"]), expected_for(student, lab), places=1)
                    self.assertEqual(float(r["max"]), lab_max(lab))

    def test_the_failed_tests_column_names_the_failing_test(self):
        self.assertEqual(self.row("s03_wrong", "05")["failed_tests"], "Lab05Layout.ColumnReadsOfTheTileAreConflictFree")
        self.assertEqual(self.row("s01_solved", "05")["failed_tests"], "")

    def test_a_symbolic_link_is_not_graded_and_says_why(self):
        r = json.loads((self.out / "results" / "s10_symlink" / "lab05.json").read_text())
        self.assertIn("symbolic link", r["judge_note"])

    def test_a_hanging_submission_is_stopped_without_costing_the_others(self):
        r = json.loads((self.out / "results" / "s05_hang" / "lab05.json").read_text())
        self.assertIn("did not finish", r["judge_note"])
        self.assertEqual(float(self.row("s05_hang", "04")["points"]), CPU_SOLVED)

    def test_every_student_gets_feedback_in_markdown_and_html(self):
        for student in SUBMISSIONS:
            md = (self.out / "feedback" / f"{student}.md").read_text()
            self.assertIn(f"# Feedback for {student}", md)
            judged = [d for d in (json.loads(f.read_text()) for f in (self.out / "results" / student).glob("lab*.json"))
                      if d["source"]]
            self.assertEqual("Points table:" in md, bool(judged))    # a lab not judged has no table of tests
            h = (self.out / "feedback" / f"{student}.html").read_text()
            self.assertTrue(h.startswith("<!doctype html>"))

    def test_feedback_carries_the_teaching_message_of_each_failed_test(self):
        md = (self.out / "feedback" / "s03_wrong.md").read_text()
        self.assertIn("### Lab05Layout.ColumnReadsOfTheTileAreConflictFree (FAILED)", md)
        self.assertIn("Try an odd stride", md)

    @unittest.skipUnless(BANKLAB, "BANKLAB_EXE is not set: no banklab command to draw with")
    def test_feedback_embeds_the_banklab_explain_drawing_of_a_failed_access(self):
        h = (self.out / "feedback" / "s03_wrong.html").read_text()
        self.assertIn("<svg", h)
        md = (self.out / "feedback" / "s03_wrong.md").read_text()
        self.assertIn("wavefront", md.split("Try an odd stride", 1)[1])

    def test_the_class_summary_gives_the_distribution_and_the_most_failed_tests(self):
        md = (self.out / "summary.md").read_text()
        self.assertIn("## Points distribution per lab", md)
        self.assertIn("## Most-failed tests per lab", md)
        self.assertIn("### Lab 04", md)
        data = json.loads((self.out / "summary.json").read_text())
        n05 = sum(1 for r in self.rows if r["lab"] == "05")
        graded05 = sum(1 for r in self.rows if r["lab"] == "05" and r["points"] != "" and not r["not judged"])
        self.assertLess(graded05, n05)        # a crash not graded, a link refused: no number, no bin
        self.assertEqual(sum(data["labs"]["05"]["histogram"]), graded05)
        self.assertEqual(data["labs"]["05"]["graded"], graded05)
        self.assertEqual(data["labs"]["05"]["not_graded"], 1)
        self.assertEqual(data["labs"]["05"]["full_marks"], 0)      # CPU tier: never full marks
        self.assertEqual(data["labs"]["05"]["incomplete"], n05)
        self.assertTrue(all(t["test"].startswith("Lab05") for t in data["most_failed"]["05"]))

    def test_every_student_gets_valid_platform_files(self):
        for student in SUBMISSIONS:
            pf = self.out / "platforms" / student
            gs = pf / "gradescope" / "results.json"
            if not gs.exists():          # not graded: no results.json (Gradescope shows a failed run), why beside it
                d = json.loads((pf / "gradescope" / bp.GRADESCOPE_NOT_GRADED_FILE).read_text())
                self.assertNotIn("score", d)
                self.assertIn("not graded", d["output"].lower())
            else:
                validate_gradescope(self, json.loads(gs.read_text()))
            validate_prairielearn(self, json.loads((pf / "prairielearn" / "results.json").read_text()))
            validate_junit(self, (pf / "junit.xml").read_text())

    def test_a_second_run_reuses_every_unchanged_result_but_a_timed_out_one(self):
        r = subprocess.run(self.cmd, capture_output=True, text=True, timeout=600)
        # the hang (timed out) and the crash (not graded) are judged again, nothing else
        self.assertIn(f"1 graded, {len(self.rows) - 2} unchanged and reused", r.stdout)
        self.assertIn("1 NOT graded (a fault)", r.stdout)
        self.assertRegex(r.stdout, r"s05_hang +lab 05 .*did not finish")

    def test_a_changed_source_is_graded_again(self):
        p = self.tmp / "submissions" / "s02_stub" / "05_swizzle.cu"
        old = p.read_text()
        self.addCleanup(p.write_text, old)
        p.write_text("// FAKE-JUDGE: solved\n")
        out = self.tmp / "out2"
        shutil.copytree(self.out, out)
        cmd = [out.as_posix() if c == self.out.as_posix() else c for c in self.cmd]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        self.assertIn(f"2 graded, {len(self.rows) - 3} unchanged and reused", r.stdout)   # + the hang; the crash
        self.assertIn("1 NOT graded", r.stdout)                                            # is judged again
        with open(out / "results.csv") as f:
            row = next(x for x in csv.DictReader(f) if x["student"] == "s02_stub" and x["lab"] == "05")
        self.assertEqual(float(row["points"]), CPU_SOLVED)


class InterruptingAClass(unittest.TestCase):
    def test_ctrl_c_stops_every_judge_prints_no_traceback_and_keeps_only_finished_results(self):
        import signal
        import time
        tmp = Path(tempfile.mkdtemp(prefix="banklab-int-"))
        self.addCleanup(shutil.rmtree, tmp)
        for st, text in (("a", "// FAKE-JUDGE: solved"), ("b", "// FAKE-JUDGE: hang"), ("c", "// FAKE-JUDGE: hang")):
            (tmp / "subs" / st).mkdir(parents=True)
            (tmp / "subs" / st / "lab05.cu").write_text(text + "\n")
        p = subprocess.Popen([sys.executable, str(GRADE_CLASS), str(tmp / "subs"), "--out", str(tmp / "out"),
                              "--lab", "05", "-j", "3", "--judge", str(FAKE)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not (tmp / "out" / "results" / "a" / "lab05.json").is_file() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, err)
        self.assertNotIn("Traceback", err)
        self.assertIn("Run the same command again to resume", err)
        self.assertTrue((tmp / "out" / "results" / "a" / "lab05.json").is_file())
        self.assertFalse((tmp / "out" / "results" / "b" / "lab05.json").exists())


class TheJudgesLimitsAreStatedFromOnePlace(unittest.TestCase):
    """grader/judge/limits.json is the one home of the judge's time limits: documents state the same
    numbers, and every outer limit (grade-class, PrairieLearn's run and info.json) leaves room for
    two compiles and the probe."""
    DOCS = ["README.md", "docs/dev/GRADER.md", "grader/points/README.md", "instructor/README.md",
            "instructor/platforms/prairielearn/Dockerfile", "instructor/platforms/prairielearn/run",
            "instructor/platforms/prairielearn/README.md",
            "instructor/platforms/gradescope/setup.sh", "instructor/batch/grade-class"]
    RX = re.compile(r"compiles?\b[^.\n|]{0,60}?\b(\d+) ?s\b|\b(\d+) ?s\b[^.\n|]{0,12}\bcompile", re.I)

    def test_every_document_states_the_judges_compile_limit(self):
        limit = judging.judge_limits()["compile"]
        found = 0
        for rel in self.DOCS:
            p = ROOT / rel
            if not p.is_file():
                continue
            for m in self.RX.finditer(p.read_text()):
                n = int(m.group(1) or m.group(2))
                found += 1
                self.assertEqual(n, limit, f"{rel}: {m.group(0)!r} (the judge: {limit:g} s)")
        self.assertGreater(found, 0)

    def test_every_outer_limit_leaves_room_for_two_compiles_and_the_probe(self):
        lim = judging.judge_limits()
        need = 2 * lim["compile"] + lim["probe"]
        run = (ROOT / "instructor/platforms/prairielearn/run").read_text()
        pl_run = float(re.search(r"BANKLAB_TIMEOUT:-(\d+)", run).group(1))
        info = json.loads((ROOT / "instructor/platforms/prairielearn/question/info.json").read_text())
        self.assertGreater(pl_run, need)
        self.assertGreater(info["externalGradingOptions"]["timeout"], pl_run)
        self.assertGreater(judging.DEFAULT_GRADE_TIMEOUT_S, need)


# ----------------------------------------------------------------------------- an LMS export

# Two assignment exports (lab 04, then lab 05), as an LMS gives them: folders named after the
# students verbatim (spaces, punctuation, non-ASCII; Moodle's "Name_ID_assignsubmission_file_"),
# Canvas's flat files (login_ID_submission_file), bare kernel.cu, labNN.cu, checkouts, one .cu
# file anywhere, two .cu files, nothing, a symbolic link. None is for lab 04 and lab 05 alike.
S = "// FAKE-JUDGE: solved"
T = "// FAKE-JUDGE: stub"
W4 = "// FAKE-JUDGE: wrong Lab04Layout.ColumnReadsOfTheTileAreConflictFree"
W5 = "// FAKE-JUDGE: wrong Lab05Predictions.BytesSavedOverPaddingArePredicted"
N = "// FAKE-JUDGE: nocompile"
EXPORT04 = {
    "jo ann/kernel.cu": S, "Zoë Ångström/kernel.cu": T, "O'Brien, Pat/kernel.cu": W4,
    "李雷/kernel.cu": S, "a.b/kernel.cu": N, "x  y/kernel.cu": S,
    "s07/lab04.cu": T, "s08/lab04.cu": S, "s09/04_padding.cu": W4,
    "s10/labs/04_padding/kernel.cu": S, "s11/labs/04_padding/kernel.cu": T,
    "Ann Lee_1234_assignsubmission_file_/deep/er/my kernel.cu": S,
    "Bo Yu_5678_assignsubmission_file_/kernel (1).cu": W4,
    "leeann_111_999_kernel.cu": S, "smithj_LATE_222_998_kernel-1.cu": T, "doej_333_997_lab04.cu": S,
    "s17/a.cu": S, "s17/b.cu": T,                       # two files: which one?
    "s18/README.txt": "nothing handed in",
    "s20/notes.txt": "the kernel is a link",          # + s20/kernel.cu -> a solution (below)
    "s21/lab04/kernel.cu": S,
}
EXPORT05 = {
    "jo ann/kernel.cu": W5, "Zoë Ångström/lab05.cu": S, "李雷/05_swizzle/kernel.cu": T,
    "s08/kernel.cu": S, "s10/labs/05_swizzle/kernel.cu": S, "leeann_111_1999_kernel.cu": T,
    "new student/kernel.cu": S, "another new/x/y.cu": W5,
}
MODE_POINTS = {S: lambda lab: CPU_SOLVED, T: lambda lab: expected_points(lab, stub_failing(lab)),
               W4: lambda lab: expected_points(lab, {W4.split()[-1]}),
               W5: lambda lab: expected_points(lab, {W5.split()[-1]}), N: lambda lab: 0.0}
CANVAS = {"leeann": "111", "smithj": "222", "doej": "333"}


def bg_file_key(student: str) -> str:
    """grade-class's file name for a student (its file_key(), for these names)."""
    return urllib.parse.quote(student, safe="-_.")


def export_expected(export, lab):
    """{student: points} for one export, by the rules the docstring of grade-class states."""
    out = {}
    for rel, text in export.items():
        first = rel.split("/")[0]
        name = first.split("_")[0] if first.split("_")[0] in CANVAS else first
        name = name.split("_")[0] if name.endswith("_assignsubmission_file_") else name   # Moodle: the name
        pts = MODE_POINTS.get(text, lambda lab: 0.0)(lab)
        if name in out and name == "s17":
            pts = 0.0
        out[name] = pts if name not in out else min(out[name], pts)
    return out


class GradingAnLmsExport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-lms-"))
        cls.tmp.chmod(0o755)
        for lab, export in (("04", EXPORT04), ("05", EXPORT05)):
            for rel, text in export.items():
                p = cls.tmp / f"export{lab}" / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text + "\n")
        (cls.tmp / "export04" / "s20" / "kernel.cu").symlink_to(ROOT / "solutions" / "04_padding" / "kernel.cu")
        cls.out = cls.tmp / "grades"
        cls.runs = []
        for lab in ("04", "05"):
            cls.runs.append(subprocess.run(
                [sys.executable, str(GRADE_CLASS), str(cls.tmp / f"export{lab}"), "--out", str(cls.out),
                 "--lab", lab, "-j", "2", "--judge", str(FAKE)], capture_output=True, text=True, timeout=600))
        with open(cls.out / "gradebook.csv", encoding="utf-8") as f:
            cls.book = list(csv.DictReader(f))
        with open(cls.out / "lms.csv", encoding="utf-8") as f:
            cls.lms = list(csv.DictReader(f))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_both_runs_exit_zero(self):
        for r in self.runs:
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("Traceback", r.stderr)

    def test_the_class_has_at_least_twenty_students(self):
        self.assertGreaterEqual(len(export_expected(EXPORT04, "04")), 20)

    def test_the_gradebook_has_one_row_per_student_and_a_column_per_lab(self):
        names = set(export_expected(EXPORT04, "04")) | set(export_expected(EXPORT05, "05"))
        self.assertEqual(sorted(r["student"] for r in self.book), sorted(names))
        m = lab_max("04")
        # Labs 04 and 05 have variants: each has the column of the variant graded (0: no course seed).
        # Lab 04's export holds Canvas's smithj_LATE_...: its column says late (issue 46), lab 05's has none.
        self.assertEqual(list(self.book[0].keys()), ["student", f"lab04 ({m})", "lab04 complete", "lab04 variant",
                                                     "lab04 late", f"lab05 ({m})", "lab05 complete", "lab05 variant",
                                                     "total", "incomplete labs", "not judged"])
        self.assertEqual({r["student"] for r in self.book if r["lab04 late"] == "late"}, {"smithj"})

    def test_every_student_has_the_points_of_each_lab_they_were_graded_for_and_blanks_elsewhere(self):
        m = lab_max("04")
        e04, e05 = export_expected(EXPORT04, "04"), export_expected(EXPORT05, "05")
        for row in self.book:
            st = row["student"]
            judged = []
            for lab, exp in (("04", e04), ("05", e05)):
                with self.subTest(student=st, lab=lab):
                    saved = self.out / "results" / bg_file_key(st) / f"lab{lab}.json"
                    if st in exp and json.loads(saved.read_text())["source"]:
                        self.assertAlmostEqual(float(row[f"lab{lab} ({m})"]), exp[st], places=1)
                        self.assertEqual(row[f"lab{lab} complete"], "no")     # CPU tier only
                        judged.append(lab)
                    elif st in exp:               # nothing gradable handed in: not judged, no number
                        self.assertEqual((row[f"lab{lab} ({m})"], row[f"lab{lab} complete"]), ("", "not judged"))
                    else:
                        self.assertEqual(row[f"lab{lab} ({m})"], "")
            if judged:
                self.assertAlmostEqual(float(row["total"]), sum({"04": e04, "05": e05}[x][st] for x in judged), places=1)
            else:
                self.assertEqual(row["total"], "")

    def test_names_are_kept_verbatim_and_their_files_escaped(self):
        for st in ("jo ann", "Zoë Ångström", "O'Brien, Pat", "李雷", "x  y", "Ann Lee"):
            self.assertTrue(any(r["student"] == st for r in self.book), st)
        self.assertTrue((self.out / "feedback" / "jo%20ann.md").is_file())
        self.assertTrue((self.out / "feedback" / "Zo%C3%AB%20%C3%85ngstr%C3%B6m.html").is_file())
        md = (self.out / "feedback" / "%E6%9D%8E%E9%9B%B7.md").read_text(encoding="utf-8")
        self.assertIn("# Feedback for 李雷", md)
        self.assertIn("## Lab 04", md)
        self.assertIn("## Lab 05", md)

    def test_what_could_not_be_graded_says_why(self):
        res = lambda st: json.loads((self.out / "results" / st / "lab04.json").read_text())
        self.assertIn("several .cu files", res("s17")["judge_note"])
        self.assertIn("no kernel.cu for lab 04", res("s18")["judge_note"])
        self.assertIn("symbolic link", res("s20")["judge_note"])

    def test_the_lms_csv_has_canvas_columns_and_the_lms_ids(self):
        self.assertEqual(list(self.lms[0].keys())[:5], ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"])
        ids = {r["Student"]: r["ID"] for r in self.lms}
        for login, i in CANVAS.items():
            self.assertEqual(ids[login], i)
        self.assertEqual(ids["Ann Lee"], "")       # a Moodle participant number is not a Canvas ID
        with open(self.out / "lms-moodle-lab04.csv", encoding="utf-8") as f:
            moodle = {r["Full name"]: r["Identifier"] for r in csv.DictReader(f)}
        self.assertEqual(moodle["Ann Lee"], "Participant 1234")
        self.assertEqual(self.lms[0]["Student"].strip(), "Points Possible")     # Canvas's second row
        self.assertEqual(len(self.lms) - 1, len(self.book))

    def test_the_summary_lists_the_most_failed_tests_of_each_lab(self):
        data = json.loads((self.out / "summary.json").read_text())
        self.assertEqual(set(data["most_failed"]), {"04", "05"})
        for lab in ("04", "05"):
            self.assertTrue(all(t["test"].startswith(f"Lab{lab}") for t in data["most_failed"][lab]))
        self.assertEqual(data["labs"]["04"]["submissions"], len(export_expected(EXPORT04, "04")))


# ----------------------------------------------------------------------------- platforms

class PlatformsOnAFakeRoot(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-platform-"))
        self.tmp.chmod(0o755)
        self.addCleanup(shutil.rmtree, self.tmp)

    def run_platform(self, *args):
        log = self.tmp / f"judge-{len(list(self.tmp.glob('judge-*')))}.jsonl"
        r = subprocess.run([sys.executable, str(PLATFORM), *args, "--judge", str(FAKE)],
                           capture_output=True, text=True, timeout=300, env=dict(os.environ, FAKE_JUDGE_ENV_LOG=str(log)))
        self.assertEqual(r.returncode, 0, r.stderr)
        r.log = log
        return r

    def judge_args(self, r):
        """The flags of every grade the run's judges were given (FAKE_JUDGE_ENV_LOG)."""
        return {f for line in r.log.read_text().splitlines() for f in json.loads(line)["flags"]}

    def put(self, rel, text):
        p = self.tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text + "\n")

    def test_gradescope_scores_a_solved_lab_a_stub_and_a_cheat(self):
        self.put("submission/05_swizzle.cu", "// FAKE-JUDGE: solved")
        self.put("submission/04_padding.cu", "// FAKE-JUDGE: stub")
        self.put("submission/03_vector_lds.cu", "// FAKE-JUDGE: forge")
        self.run_platform("gradescope", "--root", str(self.tmp), "--tier", "cpu")     # the cpu-only setting
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        validate_gradescope(self, d)
        self.assertAlmostEqual(d["score"], CPU_SOLVED + expected_points("04", stub_failing("04")), places=1)
        self.assertFalse(any(t.get("status") == "passed" for t in d["tests"] if t["name"].startswith("lab03")))
        validate_junit(self, (self.tmp / "results" / "junit.xml").read_text())

    def test_gradescope_with_one_lab_accepts_a_bare_kernel_cu(self):
        self.put("submission/kernel.cu", "// FAKE-JUDGE: solved")
        r = self.run_platform("gradescope", "--root", str(self.tmp), "--lab", "05")
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        # The default: the GPU tier too, graded, here (no GPU) on the emulator; timing not judged.
        self.assertIn("--graded", self.judge_args(r))
        self.assertIn("--emulate-gpu", self.judge_args(r))
        self.assertAlmostEqual(d["score"], emulated_solved("05"), places=1)
        self.assertGreater(d["score"], CPU_SOLVED)
        gpu = [t for t in d["tests"] if "emulated" in (t.get("tags") or [])]
        self.assertTrue(gpu and all(t["status"] == "passed" for t in gpu), d["tests"])
        self.assertFalse([t for t in d["tests"] if t.get("status") == "failed"], d["tests"])   # timing: no failed 0
        self.assertIn("were judged on the emulator", d["output"])
        self.assertIn("Incomplete grade", d["output"])
        r = self.run_platform("gradescope", "--root", str(self.tmp), "--lab", "05", "--tier", "cpu")   # cpu only
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        self.assertNotIn("--graded", self.judge_args(r))
        self.assertEqual(d["score"], CPU_SOLVED)
        self.assertFalse([t for t in d["tests"] if t.get("tags")])
        self.assertIn("Incomplete grade", d["output"])

    def test_a_hostile_archive_on_a_platform_is_a_named_refusal_not_a_crash(self):
        # Issue 30 family 2: a 5 GiB pax header in a small .tar.xz, beside nothing else; and a
        # stale stub beside the real file in a zip (issue 31 item 3).
        from test_uploads import huge_header_tar, make_zip
        (self.tmp / "submission").mkdir()
        huge_header_tar(self.tmp / "submission" / "lab05.tar.xz", b"x", 5, "xz")
        self.run_platform("gradescope", "--root", str(self.tmp))
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        self.assertEqual(d["score"], 0)
        self.assertIn("lab05.tar.xz was not unpacked: it holds a header of 5368709120 bytes", json.dumps(d))
        shutil.rmtree(self.tmp / "submission")
        self.put("submission/kernel.cu", "// FAKE-JUDGE: stub")
        make_zip(self.tmp / "submission" / "kernel_final.zip", {"kernel.cu": b"// FAKE-JUDGE: solved\n"})
        shutil.move(self.tmp / "submission", self.tmp / "student")
        self.run_platform("prairielearn", "--root", str(self.tmp), "--lab", "05")
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        self.assertFalse(d["gradable"])                  # not a grade: PrairieLearn asks for a new upload
        self.assertIn("more than one upload could be lab 05's kernel", json.dumps(d))
        self.assertIn("kernel_final.zip: kernel.cu", json.dumps(d))

    def test_prairielearn_scores_a_solved_lab_a_stub_and_a_cheat(self):
        self.put("student/05_swizzle.cu", "// FAKE-JUDGE: solved")
        self.put("student/04_padding.cu", "// FAKE-JUDGE: stub")
        self.put("student/03_vector_lds.cu", "// FAKE-JUDGE: forge")
        self.put("data/data.json", '{"params": {"banklab_variant": 0}}')    # the labs have variants
        self.run_platform("prairielearn", "--root", str(self.tmp), "--tier", "cpu")     # the cpu-only setting
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        validate_prairielearn(self, d)
        self.assertTrue(d["gradable"])
        self.assertAlmostEqual(d["score"], (CPU_SOLVED + expected_points("04", stub_failing("04"))) / (3 * lab_max("04")), places=3)

    def test_prairielearn_takes_the_lab_from_the_questions_data(self):
        self.put("student/kernel.cu", "// FAKE-JUDGE: solved")
        self.put("data/data.json", '{"params": {"banklab_lab": "05", "banklab_variant": 0}}')
        self.run_platform("prairielearn", "--root", str(self.tmp))   # the default: the GPU tier on the emulator
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        validate_prairielearn(self, d)
        self.assertTrue(d["gradable"])                  # timing not judged: gradable, never a recorded 0
        self.assertAlmostEqual(d["score"], emulated_solved("05") / lab_max("05"), places=3)
        self.assertIn("(GPU tier on the emulator)", d["message"])
        self.assertTrue(any(t["message"] == "passed (on the emulator)" for t in d["tests"]), d["tests"])
        self.run_platform("prairielearn", "--root", str(self.tmp), "--tier", "cpu")     # the cpu-only setting
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        self.assertAlmostEqual(d["score"], CPU_SOLVED / lab_max("05"), places=5)
        self.assertNotIn("on the emulator", json.dumps(d))

    def test_github_writes_the_points_of_every_lab_to_the_job_summary(self):
        labs = banklab_labs.lab_folders(ROOT)
        for lab, lab_dir in labs.items():
            mode = {"05": "solved", "04": "stub", "03": "forge"}.get(lab, "stub")
            self.put(f"labs/{lab_dir}/kernel.cu", f"// FAKE-JUDGE: {mode}")
        summary = self.tmp / "summary.md"
        self.run_platform("github", "--root", str(self.tmp), "--summary", str(summary))
        md = summary.read_text()
        self.assertIn(f"| 05 | {CPU_SOLVED} / {lab_max('05')} | no: GPU tier not judged | none |", md)
        self.assertRegex(md, rf"\| 03 \| 0 / {lab_max('03')} \|")
        self.assertIn("**Total:", md)
        validate_junit(self, (self.tmp / "build" / "grade" / "junit.xml").read_text())

    @unittest.skipUnless((ROOT / ".git").exists() and (ROOT / "solutions").is_dir(),
                         "not a git checkout of the course repository")
    def test_the_gradescope_zip_has_its_scripts_on_top_and_no_solutions(self):
        import zipfile
        z = self.tmp / "not" / "made" / "yet" / "autograder.zip"     # make-zip makes the folder
        r = subprocess.run([sys.executable, str(ROOT / "instructor/platforms/gradescope/make-zip"), str(z), "--lab", "05"],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        names = zipfile.ZipFile(z).namelist()
        self.assertIn("BANKLAB_LAB=05", zipfile.ZipFile(z).read("banklab.env").decode())
        self.assertIn("setup.sh", names)
        self.assertIn("run_autograder", names)
        self.assertIn("instructor/platforms/grade-platform", names)
        self.assertIn("grader/labs/05_swizzle/lab.toml", names)   # the release keeps the judge files out of labs/
        self.assertIn("grader/points/weights.toml", names)
        self.assertIn("python/banklab/lab/labs.py", names)
        # A grading image: every lab's answers (its judge checks predictions) and the kit (the platform's
        # scripts run from it), no solution, no case, no instructor-only check (without --with-instructor).
        self.assertFalse([n for n in names if n.startswith(("solutions/", "grader/selftest/"))
                          and not n.endswith(("/answers.toml", "/variants.toml")) or "instructor_" in n])
        self.assertIn("solutions/05_swizzle/answers.toml", names)
        self.assertIn("solutions/05_swizzle/variants.toml", names)   # the variants' answer templates
        self.assertEqual(zipfile.ZipFile(z).getinfo("run_autograder").external_attr >> 16 & 0o111, 0o111)

    def test_the_platform_entry_scripts_pass_the_root_through(self):
        self.put("submission/05_swizzle.cu", "// FAKE-JUDGE: solved")
        for args, score in ((f"--judge {FAKE}", emulated_solved("05")),           # the default
                            (f"--judge {FAKE} --tier cpu", CPU_SOLVED)):           # the instructor's cpu-only setting
            env = dict(os.environ, AUTOGRADER_ROOT=str(self.tmp), BANKLAB_SOURCE=str(ROOT), BANKLAB_GRADE_ARGS=args)
            r = subprocess.run(["bash", str(ROOT / "instructor/platforms/gradescope/run_autograder")],
                               env=env, capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertAlmostEqual(json.loads((self.tmp / "results" / "results.json").read_text())["score"], score,
                                   places=1)

    def test_instructor_checks_are_not_visible_on_gradescope_until_published(self):
        v = [Verdict("Lab05InstructorEdgeTiles.A", "cpu", "failed", "secret drawing"),
             Verdict("Lab05Layout.B", "cpu", "passed", "", 1)]
        r = LabResult("s", "05", "k.cu", "x", "cpu", v)
        for vis in ("after_published", "hidden"):
            tests = {t["name"]: t["visibility"] for t in bp.gradescope_results([r], vis)["tests"]}
            self.assertEqual(tests["lab05 Lab05InstructorEdgeTiles.A"], vis)
            self.assertEqual(tests["lab05 Lab05Layout.B"], "visible")

    def test_github_fails_the_check_below_the_passing_score(self):
        self.put("labs/05_swizzle/kernel.cu", "// FAKE-JUDGE: stub")
        base = [sys.executable, str(PLATFORM), "github", "--root", str(self.tmp), "--lab", "05",
                "--summary", str(self.tmp / "s.md"), "--judge", str(FAKE)]
        r = subprocess.run(base + ["--fail-under", "50"], capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("below the passing score", r.stderr)
        self.put("labs/05_swizzle/kernel.cu", "// FAKE-JUDGE: solved")
        r = subprocess.run(base + ["--fail-under", "40"], capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
