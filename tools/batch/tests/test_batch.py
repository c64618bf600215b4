"""Tests of the batch grader, the points tables, the reports and the platform files.

They run against a judge given by $BANKLAB_TEST_JUDGE, by default the TEST DOUBLE
tools/batch/tests/fake_judge.py, whose verdicts are chosen by a marker in each source: these
tests check what the batch grader does with verdicts (points, fail-closed reading, reports,
platform formats), not what the real judge decides. The end-to-end test with the real judge
is tools/batch/tests/test_real_judge.py.

  python3 -m unittest discover -s tools/batch/tests -p 'test_batch.py' -v
"""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))
import banklab_grading as bg   # noqa: E402
import banklab_reports as br   # noqa: E402

FAKE = HERE / "fake_judge.py"
GRADE_CLASS = HERE.parent / "grade-class"
PLATFORM = ROOT / "tools" / "platforms" / "grade-platform"
BANKLAB = os.environ.get("BANKLAB_EXE")


def cpu_tests(lab):
    src = (ROOT / "grader" / f"lab{lab}_test.cu").read_text()
    return [f"{s}.{n}" for s, n in re.findall(r"^TEST\((\w+),\s*(\w+)\)", src, re.M) if not s.endswith("OnGpu")]


def expected_points(lab, failing):
    """The default table's rule, computed independently: 30 points shared by the predictions,
    40 by the layout tests; a test earns its share when it passes."""
    tests = cpu_tests(lab)
    pred = [t for t in tests if "Predictions." in t]
    lay = [t for t in tests if "Layout." in t]
    return (30 * sum(t not in failing for t in pred) / len(pred)
            + 40 * sum(t not in failing for t in lay) / len(lay))


def stub_failing(lab):
    tests = cpu_tests(lab)
    return {t for t in tests if "Predictions." in t} | {next(t for t in tests if "Layout." in t)}


# ----------------------------------------------------------------------------- JSON validators

def validate_gradescope(tc, d):
    tc.assertIsInstance(d["score"], (int, float))
    tc.assertIsInstance(d["tests"], list)
    for t in d["tests"]:
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
            return bg.PointsTable.load(p)

    def test_every_lab_folder_has_a_points_table_that_loads(self):
        for lab in bg.find_labs(ROOT):
            t = bg.load_points(ROOT, lab)
            self.assertEqual(t.lab, lab)
            self.assertTrue(t.groups)

    def test_the_default_tables_weight_predictions_apart_from_layout_and_gpu(self):
        for lab in bg.find_labs(ROOT):
            alloc = bg.load_points(ROOT, lab).allocate(t for t, _ in _fake_list(lab))
            by = lambda k: sum(v for t, v in alloc.items() if k in t)
            self.assertAlmostEqual(by("Predictions."), 30)
            self.assertAlmostEqual(by("Layout."), 40)
            self.assertAlmostEqual(by("OnGpu."), 30)

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

    def test_a_group_with_no_test_in_the_run_adds_nothing_to_the_maximum(self):
        t = bg.load_points(ROOT, "05")
        alloc = t.allocate(["Lab05Layout.A"])
        self.assertEqual(sum(alloc.values()), 40)

    def test_a_table_with_negative_points_is_refused(self):
        with self.assertRaisesRegex(ValueError, "points must be a number >= 0"):
            self.table('lab = "05"\n[groups.p]\nmatch = "x"\npoints = -1\n')

    def test_a_table_for_another_lab_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "lab04.toml").write_text('lab = "05"\n')
            with self.assertRaisesRegex(ValueError, 'says lab = "05", expected "04"'):
                bg.load_points(ROOT, "04", Path(d))


def _fake_list(lab):
    return bg.list_tests(FAKE, lab)


# ----------------------------------------------------------------------------- fail closed

class ReadingTheJudgesVerdicts(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-batch-"))
        self.tmp.chmod(0o755)
        self.addCleanup(shutil.rmtree, self.tmp)
        self.table = bg.load_points(ROOT, "05")
        self.expected = [t for t in _fake_list("05") if t[1] == "cpu"]

    def grade(self, marker, **kw):
        src = self.tmp / f"{abs(hash(marker))}.cu"
        src.write_text(f"// FAKE-JUDGE: {marker}\n")
        kw.setdefault("expected", self.expected)
        return bg.grade_one(FAKE, "05", src, self.tmp / "w", table=self.table, **kw)

    def test_a_solved_lab_earns_every_cpu_point(self):
        r = self.grade("solved")
        self.assertEqual((r.points, r.max_points), (70, 70))

    def test_passed_records_with_zero_checks_and_another_sources_hash_earn_nothing(self):
        r = self.grade("forge")
        self.assertEqual(r.points, 0)
        self.assertEqual(r.max_points, 70)
        self.assertIn("hash differs", r.judge_note)

    def test_an_unreadable_verdict_file_earns_nothing(self):
        r = self.grade("garbage")
        self.assertEqual(r.points, 0)
        self.assertIn("unreadable", r.judge_note)

    def test_a_judge_that_crashes_earns_nothing(self):
        r = self.grade("crash")
        self.assertEqual(r.points, 0)
        self.assertTrue(all(v.status == "failed" for v in r.verdicts))

    def test_a_judge_that_hangs_is_stopped_at_the_outer_timeout(self):
        r = self.grade("hang", timeout=2)
        self.assertEqual(r.points, 0)
        self.assertIn("did not finish within 2 s", r.judge_note)
        self.assertLess(r.seconds, 30)

    def test_a_judge_list_that_names_no_test_of_the_lab_is_an_error(self):
        with self.assertRaisesRegex(RuntimeError, "named no test of lab 42"):
            bg.list_tests(FAKE, "42")

    def test_the_judge_list_is_read_as_json_or_as_lines(self):
        self.assertEqual(bg.parse_list('[{"lab": "05", "test": "Lab05Layout.A", "tier": "cpu"}]'),
                         [("05", "Lab05Layout.A", "cpu")])
        self.assertEqual(bg.parse_list("05  Lab05OnGpu.B  gpu\n"), [("05", "Lab05OnGpu.B", "gpu")])

    def test_a_passed_record_with_zero_checks_is_a_failure(self):
        v = bg.read_verdict("T.A", "cpu", {"status": "passed", "checks": 0}, "")
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

    def test_gpu_tests_skipped_without_a_gpu_earn_nothing_but_count_in_the_maximum(self):
        r = self.grade("solved", expected=_fake_list("05"), tier="all")
        gpu = [v for v in r.verdicts if v.tier == "gpu"]
        self.assertTrue(gpu and all(v.status == "skipped" for v in gpu))
        self.assertEqual((r.points, r.max_points), (70, 100))

    def test_in_graded_mode_a_gpu_test_that_cannot_run_fails(self):
        r = self.grade("solved", expected=_fake_list("05"), tier="all", graded=True)
        self.assertTrue(all(v.status == "failed" for v in r.verdicts if v.tier == "gpu"))


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
        return 70.0
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
        with open(cls.out / "gradebook.csv") as f:
            cls.rows = list(csv.DictReader(f))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def row(self, student, lab):
        return next(r for r in self.rows if r["student"] == student and r["lab"] == lab)

    def test_the_batch_grader_exits_zero(self):
        self.assertEqual(self.first.returncode, 0, self.first.stderr)

    def test_the_gradebook_has_one_row_per_student_and_lab_with_its_header(self):
        self.assertEqual(len(self.rows), len(SUBMISSIONS) * len(bg.find_labs(ROOT)))
        self.assertEqual(list(self.rows[0].keys()), ["student", "lab", "points", "max", "failed_tests"])

    def test_every_submission_gets_the_points_its_verdicts_earn(self):
        for student in SUBMISSIONS:
            for lab in ("04", "05"):
                with self.subTest(student=student, lab=lab):
                    r = self.row(student, lab)
                    self.assertAlmostEqual(float(r["points"]), expected_for(student, lab), places=1)
                    self.assertEqual(float(r["max"]), 70)

    def test_the_failed_tests_column_names_the_failing_test(self):
        self.assertEqual(self.row("s03_wrong", "05")["failed_tests"], "Lab05Layout.ColumnReadsOfTheTileAreConflictFree")
        self.assertEqual(self.row("s01_solved", "05")["failed_tests"], "")

    def test_a_symbolic_link_is_not_graded_and_says_why(self):
        r = json.loads((self.out / "results" / "s10_symlink" / "lab05.json").read_text())
        self.assertIn("symbolic link", r["judge_note"])

    def test_a_hanging_submission_is_stopped_without_costing_the_others(self):
        r = json.loads((self.out / "results" / "s05_hang" / "lab05.json").read_text())
        self.assertIn("did not finish", r["judge_note"])
        self.assertEqual(float(self.row("s05_hang", "04")["points"]), 70)

    def test_every_student_gets_feedback_in_markdown_and_html(self):
        for student in SUBMISSIONS:
            md = (self.out / "feedback" / f"{student}.md").read_text()
            self.assertIn(f"# Feedback for {student}", md)
            self.assertIn("Points table:", md)
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
        self.assertIn("## Most-failed tests", md)
        data = json.loads((self.out / "summary.json").read_text())
        self.assertEqual(sum(data["labs"]["05"]["histogram"]), len(SUBMISSIONS))
        self.assertEqual(data["labs"]["05"]["full_marks"],
                         sum(1 for s in SUBMISSIONS if expected_for(s, "05") == 70))

    def test_every_student_gets_valid_platform_files(self):
        for student in SUBMISSIONS:
            pf = self.out / "platforms" / student
            validate_gradescope(self, json.loads((pf / "gradescope" / "results.json").read_text()))
            validate_prairielearn(self, json.loads((pf / "prairielearn" / "results.json").read_text()))
            validate_junit(self, (pf / "junit.xml").read_text())

    def test_a_second_run_reuses_every_unchanged_result(self):
        r = subprocess.run(self.cmd, capture_output=True, text=True, timeout=600)
        self.assertIn(f"0 graded, {len(self.rows)} unchanged and reused", r.stdout)

    def test_a_changed_source_is_graded_again(self):
        p = self.tmp / "submissions" / "s02_stub" / "05_swizzle.cu"
        old = p.read_text()
        self.addCleanup(p.write_text, old)
        p.write_text("// FAKE-JUDGE: solved\n")
        out = self.tmp / "out2"
        shutil.copytree(self.out, out)
        cmd = [out.as_posix() if c == self.out.as_posix() else c for c in self.cmd]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        self.assertIn(f"1 graded, {len(self.rows) - 1} unchanged and reused", r.stdout)
        with open(out / "gradebook.csv") as f:
            row = next(x for x in csv.DictReader(f) if x["student"] == "s02_stub" and x["lab"] == "05")
        self.assertEqual(float(row["points"]), 70)


# ----------------------------------------------------------------------------- platforms

class PlatformsOnAFakeRoot(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-platform-"))
        self.tmp.chmod(0o755)
        self.addCleanup(shutil.rmtree, self.tmp)

    def run_platform(self, *args):
        r = subprocess.run([sys.executable, str(PLATFORM), *args, "--judge", str(FAKE)],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def put(self, rel, text):
        p = self.tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text + "\n")

    def test_gradescope_scores_a_solved_lab_a_stub_and_a_cheat(self):
        self.put("submission/05_swizzle.cu", "// FAKE-JUDGE: solved")
        self.put("submission/04_padding.cu", "// FAKE-JUDGE: stub")
        self.put("submission/03_vector_lds.cu", "// FAKE-JUDGE: forge")
        self.run_platform("gradescope", "--root", str(self.tmp))
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        validate_gradescope(self, d)
        self.assertAlmostEqual(d["score"], 70 + expected_points("04", stub_failing("04")), places=1)
        self.assertFalse(any(t["status"] == "passed" for t in d["tests"] if t["name"].startswith("lab03")))
        validate_junit(self, (self.tmp / "results" / "junit.xml").read_text())

    def test_gradescope_with_one_lab_accepts_a_bare_kernel_cu(self):
        self.put("submission/kernel.cu", "// FAKE-JUDGE: solved")
        self.run_platform("gradescope", "--root", str(self.tmp), "--lab", "05")
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        self.assertEqual(d["score"], 70)

    def test_prairielearn_scores_a_solved_lab_a_stub_and_a_cheat(self):
        self.put("student/05_swizzle.cu", "// FAKE-JUDGE: solved")
        self.put("student/04_padding.cu", "// FAKE-JUDGE: stub")
        self.put("student/03_vector_lds.cu", "// FAKE-JUDGE: forge")
        self.run_platform("prairielearn", "--root", str(self.tmp))
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        validate_prairielearn(self, d)
        self.assertTrue(d["gradable"])
        self.assertAlmostEqual(d["score"], (70 + expected_points("04", stub_failing("04"))) / 210, places=3)

    def test_prairielearn_takes_the_lab_from_the_questions_data(self):
        self.put("student/kernel.cu", "// FAKE-JUDGE: solved")
        self.put("data/data.json", '{"params": {"banklab_lab": "05"}}')
        self.run_platform("prairielearn", "--root", str(self.tmp))
        d = json.loads((self.tmp / "results" / "results.json").read_text())
        self.assertEqual(d["score"], 1.0)

    def test_github_writes_the_points_of_every_lab_to_the_job_summary(self):
        labs = bg.find_labs(ROOT)
        for lab, lab_dir in labs.items():
            mode = {"05": "solved", "04": "stub", "03": "forge"}.get(lab, "stub")
            self.put(f"labs/{lab_dir}/kernel.cu", f"// FAKE-JUDGE: {mode}")
        summary = self.tmp / "summary.md"
        self.run_platform("github", "--root", str(self.tmp), "--summary", str(summary))
        md = summary.read_text()
        self.assertIn("| 05 | 70 / 70 | none |", md)
        self.assertRegex(md, r"\| 03 \| 0 / 70 \|")
        self.assertIn("**Total:", md)
        validate_junit(self, (self.tmp / "build" / "grade" / "junit.xml").read_text())

    @unittest.skipUnless((ROOT / ".git").exists() and (ROOT / "solutions").is_dir(),
                         "not a git checkout of the course repository")
    def test_the_gradescope_zip_has_its_scripts_on_top_and_no_solutions(self):
        import zipfile
        z = self.tmp / "autograder.zip"
        subprocess.run([sys.executable, str(ROOT / "tools/platforms/gradescope/make-zip"), str(z)],
                       check=True, capture_output=True, timeout=300)
        names = zipfile.ZipFile(z).namelist()
        self.assertIn("setup.sh", names)
        self.assertIn("run_autograder", names)
        self.assertIn("tools/platforms/grade-platform", names)
        self.assertIn("grader/points/lab05.toml", names)
        self.assertFalse([n for n in names if n.startswith(("solutions/", "grader/selftest/", "instructor/"))])
        self.assertEqual(zipfile.ZipFile(z).getinfo("run_autograder").external_attr >> 16 & 0o111, 0o111)

    def test_the_platform_entry_scripts_pass_the_root_through(self):
        self.put("submission/05_swizzle.cu", "// FAKE-JUDGE: solved")
        env = dict(os.environ, AUTOGRADER_ROOT=str(self.tmp), BANKLAB_SOURCE=str(ROOT),
                   BANKLAB_GRADE_ARGS=f"--judge {FAKE}")
        r = subprocess.run(["bash", str(ROOT / "tools/platforms/gradescope/run_autograder")],
                           env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads((self.tmp / "results" / "results.json").read_text())["score"], 70)


if __name__ == "__main__":
    unittest.main()
