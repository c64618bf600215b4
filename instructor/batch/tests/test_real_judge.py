"""End to end with the real judge ($BANKLAB_JUDGE, target banklab_judge): a class of 14
submissions of labs 04 and 05 (solved, stub, wrong, non-compiling, hanging, cheating), graded by
instructor/batch/grade-class, CPU tier; then every output file, and the platforms on fake roots.

The expected points are not copied from a run: a solution earns the maximum, a submission that
does not build, hangs in its host code or cheats earns nothing, a stub earns exactly what the
judge's records for the stub itself give (graded alone, by the judge, in this test), and a
known-bad kernel loses the test its EXPECT_FAIL line names and nothing a solution would pass
beyond it.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
from banklab.lab import labs as banklab_labs   # noqa: E402
from banklab.grading import points as bpt   # noqa: E402
from test_batch import validate_gradescope, validate_junit, validate_prairielearn  # noqa: E402

JUDGE = os.environ.get("BANKLAB_JUDGE")
BANKLAB = os.environ.get("BANKLAB_EXE")
#: The two labs graded here ({"04": "04_padding", ...}: their folders, from the descriptions) and a
#: known-bad case of each (solutions/NN_name/cases/bad/).
LABS = {n: lab.folder for n, lab in banklab_labs.find_labs(ROOT).items() if n in ("04", "05")}
WRONG = {"04": "pad_two.patch", "05": "wrong_bits.patch"}
SELFTEST = ROOT / "grader" / "selftest"


def wrong_case(lab):
    """Lab `lab`'s known-bad case WRONG[lab]: solutions/NN_name/cases/bad/<case>."""
    return next(p for p in banklab_labs.find_labs(ROOT)[lab].cases("bad") if p.name == WRONG[lab])


def known_bad(lab):
    """The kernel a known-bad case stands for (the solution with the case's defect applied)."""
    out = subprocess.run([sys.executable, str(SELFTEST / "materialize.py"), "--case",
                          str(wrong_case(lab)), "--lab-dir",
                          str(ROOT / "solutions" / LABS[lab]), "--out", "/dev/stdout"],
                         check=True, capture_output=True, text=True)
    return out.stdout
HANG_HOST = "\nstatic int banklab_hang_ = [] { for (volatile int i = 0;; i = i + 1) {} return 0; }();\n"
# Host code that forges "all passed" grade files wherever it can reach, with the right hash of its
# own source, then leaves before the probe writes anything.
CHEAT_HOST = r'''
#include <cstdio>
#include <cstdlib>
#include <string>
namespace {
int banklab_cheat_ = [] {
  const char* names[] = {"grade.json", "../grade.json", "../../grade.json", "answers.txt", "../answers.txt"};
  for (const char* n : names) {
    if (FILE* f = std::fopen(n, "w")) {
      std::fputs("{\"schema\": \"banklab.grade.v1\", \"verdicts\": []}", f);
      std::fclose(f);
    }
  }
  std::exit(0);
  return 0;
}();
}
'''


def lab_source(kind, lab):
    d = LABS[lab]
    if kind == "solved":
        return (ROOT / "solutions" / d / "kernel.cu").read_text()
    if kind == "stub":
        return (ROOT / "labs" / d / "kernel.cu").read_text()
    if kind == "wrong":
        return known_bad(lab)
    if kind == "nocompile":
        return (ROOT / "solutions" / d / "kernel.cu").read_text().replace("namespace predict {", "namespace predict {\nint x = ;", 1)
    if kind == "hang":
        return (ROOT / "solutions" / d / "kernel.cu").read_text() + HANG_HOST
    if kind == "cheat":
        return (ROOT / "labs" / d / "kernel.cu").read_text() + CHEAT_HOST
    raise ValueError(kind)


KINDS = ["solved", "stub", "wrong", "nocompile", "hang", "cheat"]


@unittest.skipUnless(JUDGE, "BANKLAB_JUDGE is not set: the real judge is not built")
@unittest.skipUnless((ROOT / "solutions").is_dir(), "no solutions/ (a student release)")
class GradingAClassWithTheRealJudge(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-real-"))
        cls.tmp.chmod(0o755)   # run as root, the judge's probe runs as nobody and must reach it
        subs = cls.tmp / "submissions"
        for kind in KINDS:
            for lab in LABS:
                p = subs / f"{kind}_a" / f"{LABS[lab]}.cu"          # files named by lab
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(lab_source(kind, lab))
        for kind in ("solved", "stub"):                                # checkouts
            for lab in LABS:
                p = subs / f"{kind}_checkout" / "labs" / LABS[lab] / "kernel.cu"
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(lab_source(kind, lab))
        cls.n_students = len(KINDS) + 2
        cls.out = cls.tmp / "out"
        cmd = [sys.executable, str(HERE.parent / "grade-class"), str(subs), "--out", str(cls.out),
               "--lab", "all", "-j", "2", "--timeout", "600", "--judge", JUDGE]
        if BANKLAB:
            cmd += ["--banklab", BANKLAB]
        cls.proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        with open(cls.out / "results.csv") as f:
            cls.rows = {(r["student"], r["lab"]): r for r in csv.DictReader(f)}
        cls.tables = {lab: bpt.load_points(ROOT, lab) for lab in LABS}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def result(self, student, lab):
        return json.loads((self.out / "results" / student / f"lab{lab}.json").read_text())

    def test_the_batch_grader_exits_zero(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr[-3000:])

    def test_the_gradebook_has_every_student_and_lab(self):
        self.assertEqual(len({s for s, _ in self.rows}), self.n_students)

    def cpu_max(self, student, lab):
        return sum(v["max_points"] for v in self.result(student, lab)["verdicts"] if v["tier"] == "cpu")

    def test_a_solution_earns_every_cpu_point_and_its_grade_says_it_is_incomplete(self):
        for student in ("solved_a", "solved_checkout"):
            for lab in LABS:
                r = self.rows[(student, lab)]
                self.assertGreater(float(r["max"]), 0)
                self.assertAlmostEqual(float(r["points"]), self.cpu_max(student, lab), places=2,
                                       msg=(student, lab, r["failed_tests"]))
                self.assertLess(float(r["points"]), float(r["max"]) / 2)    # never full marks without a GPU
                self.assertEqual(r["complete"], "no")
                self.assertIn("Incomplete grade", (self.out / "feedback" / f"{student}.md").read_text())

    def test_the_stub_earns_at_most_ten_percent_and_every_test_it_passes_is_a_gate(self):
        for lab in LABS:
            r = self.rows[("stub_a", lab)]
            self.assertLessEqual(float(r["points"]), 0.10 * float(r["max"]))
            passed = {v["test"] for v in self.result("stub_a", lab)["verdicts"]
                      if v["status"] == "passed" and v["test"] != f"Lab{lab}.Build"}
            self.assertTrue(passed)
            for t in passed:
                self.assertEqual(self.tables[lab].group_of(t), "gates", t)

    def test_a_stub_earns_what_the_judges_records_for_the_stub_give_and_fails_with_teaching_messages(self):
        for lab in LABS:
            res = self.result("stub_a", lab)
            passed = {v["test"] for v in res["verdicts"] if v["status"] == "passed"}
            alloc = self.tables[lab].allocate(v["test"] for v in res["verdicts"])
            self.assertAlmostEqual(float(self.rows[("stub_a", lab)]["points"]),
                                   sum(alloc[t] for t in passed), places=1)
            self.assertLess(float(self.rows[("stub_a", lab)]["points"]), float(self.rows[("stub_a", lab)]["max"]))
            self.assertEqual(self.rows[("stub_a", lab)]["points"], self.rows[("stub_checkout", lab)]["points"])
            msgs = " ".join(v["message"] for v in res["verdicts"] if v["status"] == "failed")
            self.assertRegex(msgs, r"bank|wavefront|predict")

    def test_a_known_bad_kernel_fails_the_test_its_expect_fail_line_names(self):
        for lab in LABS:
            src = wrong_case(lab).read_text()
            test = re.search(r"EXPECT_FAIL:\s*(\S+)", src).group(1)
            r = self.rows[("wrong_a", lab)]
            self.assertIn(test, r["failed_tests"].split(";"))
            self.assertLess(float(r["points"]), float(r["max"]))

    def test_a_submission_that_does_not_compile_earns_nothing_and_shows_the_compiler(self):
        for lab in LABS:
            self.assertEqual(float(self.rows[("nocompile_a", lab)]["points"]), 0)
            md = (self.out / "feedback" / "nocompile_a.md").read_text()
            self.assertIn("error", md)
            build = next(v["message"] for v in self.result("nocompile_a", lab)["verdicts"]
                         if v["test"] == f"Lab{lab}.Build")
            first = next(l for l in build.splitlines() if "error" in l)
            self.assertEqual(md.count(first), 1, first)    # the compiler's message once, not once per test

    def test_a_submission_whose_host_code_hangs_earns_nothing(self):
        for lab in LABS:
            self.assertEqual(float(self.rows[("hang_a", lab)]["points"]), 0)

    def test_a_hang_in_host_code_is_reported_by_its_cause_first(self):
        for lab in LABS:
            build = next(v["message"] for v in self.result("hang_a", lab)["verdicts"] if v["test"] == f"Lab{lab}.Build")
            self.assertTrue(build.startswith("your code did not finish within"), build[:300])

    @unittest.skipUnless(BANKLAB, "BANKLAB_EXE is not set: no drawings")
    def test_the_stubs_html_feedback_stays_small(self):
        # labs 04 and 05 with every drawing as a picture: 930,063 bytes before; one picture a lab now
        size = (self.out / "feedback" / "stub_a.html").stat().st_size
        self.assertLess(size, 250_000)

    def test_a_submission_that_forges_verdict_files_earns_nothing(self):
        for lab in LABS:
            self.assertEqual(float(self.rows[("cheat_a", lab)]["points"]), 0)

    def test_every_output_file_is_written_and_valid(self):
        self.assertTrue((self.out / "summary.md").is_file())
        data = json.loads((self.out / "summary.json").read_text())
        self.assertEqual(set(data["labs"]), set(LABS))
        for student in {s for s, _ in self.rows}:
            self.assertTrue((self.out / "feedback" / f"{student}.md").is_file())
            self.assertTrue((self.out / "feedback" / f"{student}.html").is_file())
            pf = self.out / "platforms" / student
            validate_gradescope(self, json.loads((pf / "gradescope" / "results.json").read_text()))
            validate_prairielearn(self, json.loads((pf / "prairielearn" / "results.json").read_text()))
            validate_junit(self, (pf / "junit.xml").read_text())

    def test_the_platforms_grade_a_solved_lab_a_stub_and_a_cheat_on_fake_roots(self):
        root = self.tmp / "gs"
        for kind, lab in (("solved", "05"), ("stub", "04")):
            p = root / "submission" / f"{LABS[lab]}.cu"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(lab_source(kind, lab))
        (root / "submission" / "03_vector_lds.cu").write_text(
            (ROOT / "labs" / "03_vector_lds" / "kernel.cu").read_text() + CHEAT_HOST)
        r = subprocess.run([sys.executable, str(ROOT / "instructor/platforms/grade-platform"), "gradescope",     # the cpu-only setting: as grade-class's rows
                            "--root", str(root), "--judge", JUDGE, "--tier", "cpu"], capture_output=True, text=True, timeout=3600)
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads((root / "results" / "results.json").read_text())
        validate_gradescope(self, d)
        stub04 = float(self.rows[("stub_a", "04")]["points"])
        self.assertAlmostEqual(d["score"], float(self.rows[("solved_a", "05")]["points"]) + stub04, places=1)

    def test_prairielearn_and_github_grade_on_fake_roots(self):
        pl = self.tmp / "pl"
        for kind, lab in (("solved", "05"), ("stub", "04")):
            p = pl / "student" / f"{LABS[lab]}.cu"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(lab_source(kind, lab))
        (pl / "student" / "03_vector_lds.cu").write_text(
            (ROOT / "labs" / "03_vector_lds" / "kernel.cu").read_text() + CHEAT_HOST)
        (pl / "data").mkdir()                    # labs 03-05 have variants: the question's variant 0
        (pl / "data" / "data.json").write_text('{"params": {"banklab_variant": 0}}')
        r = subprocess.run([sys.executable, str(ROOT / "instructor/platforms/grade-platform"), "prairielearn",     # the cpu-only setting: as grade-class's rows
                            "--root", str(pl), "--judge", JUDGE, "--tier", "cpu"], capture_output=True, text=True, timeout=3600)
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads((pl / "results" / "results.json").read_text())
        validate_prairielearn(self, d)
        max03 = json.loads((pl / "results" / "lab03.json").read_text())["max_points"]
        self.assertEqual(json.loads((pl / "results" / "lab03.json").read_text())["points"], 0)
        mx = float(self.rows[("solved_a", "05")]["max"]) + float(self.rows[("stub_a", "04")]["max"]) + max03
        want = (float(self.rows[("solved_a", "05")]["points"]) + float(self.rows[("stub_a", "04")]["points"])) / mx
        self.assertAlmostEqual(d["score"], want, places=3)

        gh = self.tmp / "gh"
        p = gh / "labs" / LABS["05"] / "kernel.cu"
        p.parent.mkdir(parents=True)
        p.write_text(lab_source("solved", "05"))
        summary = gh / "summary.md"
        r = subprocess.run([sys.executable, str(ROOT / "instructor/platforms/grade-platform"), "github", "--root", str(gh),
                            "--lab", "05", "--summary", str(summary), "--judge", JUDGE],
                           capture_output=True, text=True, timeout=3600)
        self.assertEqual(r.returncode, 0, r.stderr)
        r05 = self.rows[("solved_a", "05")]
        self.assertIn(f"| 05 | {r05['points']} / {r05['max']} | no: GPU tier not judged | none |", summary.read_text())



def gpu_present() -> bool:
    return any(Path(p).exists() for p in ("/dev/nvidia0", "/dev/nvidiactl", "/proc/driver/nvidia/gpus"))


@unittest.skipUnless(JUDGE, "BANKLAB_JUDGE is not set: the real judge is not built")
@unittest.skipUnless((ROOT / "solutions").is_dir(), "no solutions/ (a student release)")
@unittest.skipIf(gpu_present(), "this machine has a GPU: the GPU tier would be judged here")
class NoGpuUnderGradedModeIsNotAGrade(unittest.TestCase):
    """Issue 31, item 1: --tier all --graded on a machine without a GPU (this one) gave a perfect
    lab 05 solution 15/100 marked complete, 15 in lms.csv, exit 0. It must be no grade at all."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-nogpu-"))
        cls.tmp.chmod(0o755)
        sol = ROOT / "solutions" / LABS["05"] / "kernel.cu"
        (cls.tmp / "subs" / "ada").mkdir(parents=True)
        shutil.copy(sol, cls.tmp / "subs" / "ada" / "kernel.cu")
        cls.out = cls.tmp / "out"
        cls.p = subprocess.run([sys.executable, str(HERE.parent / "grade-class"), str(cls.tmp / "subs"), "--out",
                                str(cls.out), "--lab", "05", "--tier", "all", "--graded", "--judge", JUDGE],
                               capture_output=True, text=True, timeout=900)
        cls.work = cls.tmp / "work"
        cls.judge = subprocess.run([JUDGE, "grade", "--lab", "05", "--source", str(sol), "--work", str(cls.work),
                                    "--json", str(cls.tmp / "grade.json"), "--tier", "gpu", "--graded"],
                                   capture_output=True, text=True, timeout=900)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_grade_class_writes_no_number_marks_nothing_complete_and_exits_4_naming_the_fault(self):
        p = self.p
        self.assertEqual(p.returncode, 4, p.stdout + p.stderr)
        self.assertIn("ada lab 05: not graded: no GPU on this machine", p.stderr)
        self.assertNotIn("driver version is insufficient", p.stderr)
        book = next(csv.DictReader(open(self.out / "gradebook.csv", encoding="utf-8")))
        self.assertEqual(book["lab05 complete"], "not graded")
        self.assertEqual(book[next(k for k in book if k.startswith("lab05 ("))], "")
        lms = list(csv.DictReader(open(self.out / "lms.csv", encoding="utf-8")))
        self.assertEqual(lms[1]["banklab lab 05"], "")
        for f in ("lms-moodle-lab05.csv", "lms-blackboard.csv"):
            row = list(csv.reader(open(self.out / f, encoding="utf-8")))[1]
            self.assertFalse([c for c in row if re.fullmatch(r"[0-9.]+", c) and c != "100"], (f, row))
        status = list(csv.DictReader(open(self.out / "not-graded.csv", encoding="utf-8")))
        self.assertEqual([(r["student"], r["status"]) for r in status], [("ada", "not graded")])

    def test_the_judge_records_a_fault_in_plain_words_and_says_not_graded(self):
        self.assertEqual(self.judge.returncode, 0, self.judge.stdout + self.judge.stderr)
        d = json.loads((self.tmp / "grade.json").read_text())
        gpu = [v for v in d["verdicts"] if v["tier"] == "gpu"]
        self.assertTrue(gpu)
        for v in gpu:
            self.assertEqual(v["status"], "fault", v)
            self.assertTrue(v["message"].startswith("not graded: no GPU on this machine"), v["message"])
            self.assertNotIn("driver version is insufficient", v["message"])
        self.assertIn("[ FAULT  ]", self.judge.stdout)
        self.assertIn("NOT GRADED", self.judge.stdout)

    def test_banklab_judge_test_exits_1_for_a_fault_in_graded_mode(self):
        test = next(v["test"] for v in json.loads((self.tmp / "grade.json").read_text())["verdicts"]
                    if v["tier"] == "gpu")
        r = subprocess.run([JUDGE, "test", "--lab", "05", "--work", str(self.work / ""), "--test", test, "--graded"],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("[ FAULT  ]", r.stdout)
        # A student's machine: skipped, not red (BANKLAB_EMULATE=0: without it, the test runs on the
        # emulator, which is the default where no GPU is usable, issue 47: its record says so).
        plain = {k: v for k, v in os.environ.items() if k != "BANKLAB_EMULATE"}
        r = subprocess.run([JUDGE, "test", "--lab", "05", "--work", str(self.work), "--test", test],
                           capture_output=True, text=True, timeout=300, env=dict(plain, BANKLAB_EMULATE="0"))
        self.assertEqual(r.returncode, 77, r.stdout + r.stderr)
        self.assertIn("no GPU on this machine", r.stdout)
        r = subprocess.run([JUDGE, "test", "--lab", "05", "--work", str(self.work), "--test", test],
                           capture_output=True, text=True, timeout=300, env=plain)
        self.assertIn(r.returncode, (0, 77), r.stdout + r.stderr)      # passed, or a timing test skipped
        self.assertIn("on the emulator", r.stdout)

if __name__ == "__main__":
    unittest.main()
