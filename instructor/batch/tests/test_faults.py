"""A grade leaves the tools only when it was judged (issue 31, items 1, 2, 6, 7).

With the judge's test double (fake_judge.py) and a test double of Slurm (fake_slurm.py): a task
cancelled on the cluster, and a node without a usable GPU under --tier all --graded, leave the
submission NOT GRADED: blank in every LMS file, named on the terminal and in not-graded.csv, and
grade-class exits 4; submissions queued with --slurm-no-wait are pending: counted, the command
that collects them printed (it runs as printed), and grade-class exits 5 until they are collected;
README.md's exit status table is banklab.grading.status.EXIT_STATUS; each LMS format writes a blank for each kind of result that is no judged
grade; Gradescope shows no failed 0/N line for a test not judged, no score for a fault, and no
total that tells the hidden instructor checks' points; a re-run after --rescore --points-dir
says how many it re-scored; the summary counts a student who handed in nothing apart.
(The real judge on this GPU-less machine: test_real_judge.py, NoGpuUnderGradedModeIsNotAGrade.)

  python3 -m unittest -v test_faults
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from banklab.grading.result import LabResult, Verdict   # noqa: E402
from banklab.grading import lms as blms   # noqa: E402
from banklab.grading import status as bs    # noqa: E402
from banklab.grading.platforms import GRADESCOPE_NOT_GRADED_FILE  # noqa: E402
from banklab.grading import platforms as bp  # noqa: E402
from batch_common import FAKE, GRADE_CLASS, PLATFORM, ROOT, fake_slurm_env, read_csv  #  E402


class Tmp(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-faults-"))
        cls.tmp.chmod(0o755)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def students(cls, marks: dict[str, str]) -> Path:
        subs = cls.tmp / "subs"
        for name, mark in marks.items():
            (subs / name).mkdir(parents=True, exist_ok=True)
            if mark:
                (subs / name / "kernel.cu").write_text(f"// FAKE-JUDGE: {mark}\n")
        return subs

    @classmethod
    def grade(cls, subs: Path, out: Path, *args, env=None):
        return subprocess.run([sys.executable, str(GRADE_CLASS), str(subs), "--out", str(out), "--lab", "05",
                               "--judge", str(FAKE), "--timeout", "60", *map(str, args)],
                              capture_output=True, text=True, timeout=300, env=env)


SLURM = ["--engine", "slurm", "--slurm-poll", "0.5", "--slurm-shard", "1"]


class ACancelledSlurmTaskIsNotGraded(Tmp):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        subs = cls.students({"alice": "solved", "mallory": "solved"})
        cls.out = cls.tmp / "out"
        cls.p = cls.grade(subs, cls.out, *SLURM, env=fake_slurm_env(cls.tmp, cancel="mallory"))

    def test_it_is_retried_then_named_and_the_run_exits_non_zero(self):
        p = self.p
        self.assertEqual(p.returncode, bs.NOT_GRADED_EXIT, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"ended CANCELLED .* without grading mallory lab 05: submitting it again")
        self.assertRegex(p.stderr, r"mallory lab 05: task \d+ of job \d+ ended CANCELLED")
        self.assertIn("1 submission(s) were NOT GRADED", p.stderr)
        rows = {r["student"]: r for r in read_csv(self.out / "not-graded.csv")}
        self.assertEqual(set(rows), {"mallory"})
        self.assertEqual(rows["mallory"]["status"], "not graded")
        self.assertEqual(read_csv(self.out / "slurm" / "status.csv")[1]["status"], "not graded")

    def test_every_lms_file_leaves_it_blank_and_keeps_the_judged_grade(self):
        lms = {r["Student"]: r for r in read_csv(self.out / "lms.csv")}
        self.assertEqual(lms["mallory"]["banklab lab 05"], "")
        self.assertGreater(float(lms["alice"]["banklab lab 05"]), 0)
        moodle = {r["Full name"]: r for r in read_csv(self.out / "lms-moodle-lab05.csv")}
        self.assertEqual(moodle["mallory"]["Grade"], "")
        self.assertGreater(float(moodle["alice"]["Grade"]), 0)
        # a folder's name is no Blackboard Username (issue 30 family 5): rows by the name column
        bb = {r["Last Name"]: r for r in read_csv(self.out / "lms-blackboard.csv")}
        col = next(c for c in bb["mallory"] if c.startswith("banklab lab 05"))
        self.assertEqual(bb["mallory"][col], "")
        book = {r["student"]: r for r in read_csv(self.out / "gradebook.csv")}
        lab_col = next(c for c in book["mallory"] if c.startswith("lab05 ("))
        self.assertEqual((book["mallory"][lab_col], book["mallory"]["lab05 complete"]), ("", "not graded"))
        self.assertIn("1 score(s) left BLANK in the LMS files (1 not graded)", self.p.stderr)


class ANodeWithoutAUsableGpuUnderGradedModeIsNotGraded(Tmp):
    """--tier all --graded on Slurm, the node without a usable GPU (the test double's fault): the
    task fails (its result is no grade), is submitted again, and the submission is not graded."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        subs = cls.students({"alice": "solved"})
        cls.out = cls.tmp / "out"
        cls.p = cls.grade(subs, cls.out, "--tier", "all", "--graded", *SLURM, env=fake_slurm_env(cls.tmp))

    def test_the_task_fails_is_retried_and_the_fault_is_named(self):
        p = self.p
        self.assertEqual(p.returncode, bs.NOT_GRADED_EXIT, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"ended FAILED .* without grading alice lab 05: submitting it again")
        self.assertIn("alice lab 05", p.stderr)
        self.assertIn("no GPU on this machine", p.stderr)
        status = read_csv(self.out / "slurm" / "status.csv")[0]
        self.assertEqual(status["status"], "not graded")
        self.assertIn("no GPU on this machine", status["why"])
        self.assertEqual(read_csv(self.out / "lms.csv")[1]["banklab lab 05"], "")


class SubmissionsPendingOnSlurmAreNoFinishedRun(Tmp):
    """--slurm-no-wait (issue 31): the array queued (held in the test double), grade-class exits
    PENDING_EXIT, says how many are pending and prints the command that collects them; that
    command, pasted into a shell once the job was released, collects them and exits 0."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.subs = cls.students({"alice": "solved", "bob": "stub", "dan": ""})
        cls.out = cls.tmp / "out"
        cls.env = fake_slurm_env(cls.tmp)
        cls.queued = cls.grade(cls.subs, cls.out, *SLURM, "--slurm-no-wait", "--slurm-arg=--hold", env=cls.env)
        cls.book = {r["student"]: r for r in read_csv(cls.out / "gradebook.csv")}

    def collect_command(self) -> str:
        lines = self.queued.stderr.splitlines()
        at = next(i for i, l in enumerate(lines) if re.match(r"  2 in job\(s\) \d+ \(", l))
        return lines[at + 1].strip()

    def test_pending_is_its_own_non_zero_exit_and_is_counted_on_the_terminal(self):
        p = self.queued
        self.assertEqual(p.returncode, bs.PENDING_EXIT, p.stdout + p.stderr)
        self.assertNotIn(bs.PENDING_EXIT, (0, bs.NOT_GRADED_EXIT))
        self.assertIn("2 submission(s) are PENDING on the Slurm cluster", p.stderr)
        self.assertRegex(p.stderr, r"  2 in job\(s\) 1000 \(alice lab 05, bob lab 05\):")
        self.assertEqual(self.book["alice"]["lab05 complete"], "no")        # an incomplete grade, not a final one
        self.assertNotIn("NOT GRADED", p.stderr)

    def test_the_printed_command_collects_them_as_printed(self):
        cmd = self.collect_command()
        self.assertNotIn("--slurm-no-wait", cmd)
        self.assertIn("--engine slurm", cmd)
        subprocess.run(["scontrol", "release", "1000"], env=self.env, check=True, timeout=300)
        p = subprocess.run(["sh", "-c", cmd], env=self.env, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertNotIn("submitted job", p.stdout)           # it collects, it never queues them again
        self.assertNotIn("PENDING", p.stderr)
        book = {r["student"]: r for r in read_csv(self.out / "gradebook.csv")}
        self.assertGreater(float(book["alice"][next(c for c in book["alice"] if c.startswith("lab05 ("))]), 0)
        self.assertFalse([f for f in self.out.glob("results/*/lab05.json")
                          if bs.is_pending(json.loads(f.read_text()))])


class TheSlurmStatusFileGoesThroughTheOneCsvWriter(Tmp):
    def test_a_formula_in_a_students_name_is_not_run_by_a_spreadsheet(self):
        from banklab.grading import slurm as banklab_slurm
        out = self.tmp / "status-out"
        (out / "slurm").mkdir(parents=True, exist_ok=True)
        banklab_slurm._write_status(out, [["=HYPERLINK(\"http://x\")", "05", "not graded", "12", "3", "cancelled", "log"],
                                     ["aadams", "05", "graded", "12", "4", "", "log"]])
        rows = read_csv(out / "slurm" / "status.csv")
        self.assertEqual([r["student"] for r in rows], ["'=HYPERLINK(\"http://x\")", "aadams"])
        self.assertEqual(rows[0]["status"], "not graded")


class TheExitStatusTable(unittest.TestCase):
    def test_not_graded_comes_before_pending(self):
        self.assertEqual([bs.exit_status(*x) for x in ((0, 0), (0, 3), (2, 0), (1, 1))],
                         [0, bs.PENDING_EXIT, bs.NOT_GRADED_EXIT, bs.NOT_GRADED_EXIT])

    def test_the_readme_table_is_banklab_status_exit_status(self):
        text = (ROOT / "README.md").read_text()
        table = text[text.index("**Exit status** of `grade-class`"):]
        rows = re.findall(r"(?m)^\| (\d+) \| (.*) \|$", table.split("\n\n", 2)[1])
        self.assertEqual({int(c): w for c, w in rows}, bs.EXIT_STATUS)
        help_ = subprocess.run([sys.executable, str(GRADE_CLASS), "--help"], capture_output=True, text=True).stdout
        for code, why in bs.EXIT_STATUS.items():
            self.assertIn(f"  {code:<4}{why}", help_)


class LocallyWithoutAGpuUnderGradedMode(Tmp):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.subs = cls.students({"alice": "solved", "dan": ""})
        cls.out = cls.tmp / "out"
        cls.p = cls.grade(cls.subs, cls.out, "--tier", "all", "--graded")

    def test_no_number_no_complete_grade_and_exit_4(self):
        self.assertEqual(self.p.returncode, bs.NOT_GRADED_EXIT, self.p.stderr)
        self.assertIn("alice lab 05: not graded: no GPU on this machine", self.p.stderr)
        r = next(x for x in read_csv(self.out / "results.csv") if x["student"] == "alice")
        self.assertEqual((r["points"], r["complete"]), ("", "not graded"))
        self.assertIn("2 score(s) left BLANK in the LMS files (1 not graded, 1 nothing handed in)", self.p.stderr)

    def test_it_is_said_at_the_start_and_no_cpu_tier_is_judged_for_nothing(self):
        log, out = self.tmp / "calls.jsonl", self.tmp / "out-nogpu"
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="-1", FAKE_JUDGE_ENV_LOG=str(log))   # no GPU, on any machine
        p = self.grade(self.subs, out, "--tier", "all", "--graded", env=env)
        self.assertEqual(p.returncode, bs.NOT_GRADED_EXIT, p.stderr)
        self.assertTrue(p.stderr.startswith("grade-class: no GPU on this machine"), p.stderr[:300])
        self.assertFalse(log.exists(), "a judge ran, though its grade could only be a fault")
        self.assertIn("alice lab 05: not graded: no GPU on this machine", p.stderr)
        self.assertEqual(read_csv(out / "results.csv")[0]["complete"], "not graded")
        # the variant it would be graded as is known and said, as a Slurm task's judge run says it
        alice = next(x for x in read_csv(out / "gradebook.csv") if x["student"] == "alice")
        self.assertEqual(alice.get("lab05 variant"), "0", alice)
        p = self.grade(self.subs, out, "--tier", "cpu", env=env)       # the CPU tier alone needs no GPU
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(log.exists())

    def test_a_rerun_judges_it_again(self):
        p = self.grade(self.subs, self.out, "--tier", "all", "--graded")
        self.assertEqual(p.returncode, bs.NOT_GRADED_EXIT)
        self.assertIn("1 NOT graded (a fault)", p.stdout)
        self.assertIn("0 graded, 1 unchanged and reused", p.stdout)          # dan's: nothing to judge

    def test_the_summary_counts_a_student_who_handed_in_nothing_apart(self):
        d = json.loads((self.out / "summary.json").read_text())["labs"]["05"]
        self.assertEqual((d["students"], d["submissions"], d["nothing_handed_in"], d["not_graded"], d["graded"]),
                         (2, 1, 1, 1, 0))
        md = (self.out / "summary.md").read_text()
        self.assertIn("| 05 | 1 | 1 | 1 | 0 |", md)          # submissions, nothing handed in, not graded, graded
        self.assertIn("### Lab 05 (1 submissions, 1 student(s) handed in nothing, 1 NOT graded", md)


class AKeptResultIsReusedOnlyOnTheDeviceItWasJudgedOn(Tmp):
    """Graded mode with --emulate-gpu: the emulator judges the GPU tier where no GPU is seen, a GPU
    where one is. A result kept from one is never reused where the other judges (the cache key
    names the device): a laptop's emulated grade is judged again on a GPU machine, and back."""

    def test_an_emulated_grade_is_judged_again_on_a_gpu_and_the_other_way_round(self):
        subs = self.students({"alice": "solved"})
        out = self.tmp / "out-devices"
        base = {k: v for k, v in os.environ.items() if k != "BANKLAB_EMULATE"}
        laptop = dict(base, CUDA_VISIBLE_DEVICES="-1")                  # no GPU: the emulator
        gpu = dict(base, CUDA_VISIBLE_DEVICES="GPU-fake-0", FAKE_JUDGE_USABLE_GPU="GPU-fake-0")

        def grade(env, judged: int, emulated: bool):
            p = self.grade(subs, out, "--tier", "all", "--graded", "--emulate-gpu", env=env)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn(f"{judged} graded, {1 - judged} unchanged and reused", p.stdout)
            r = LabResult.from_json(json.loads((out / "results" / "alice" / "lab05.json").read_text()))
            judged_gpu = [v for v in r.verdicts if v.tier == "gpu" and v.status == "passed"]
            self.assertTrue(judged_gpu)
            self.assertEqual({v.emulated for v in judged_gpu}, {emulated}, [(v.test, v.emulated) for v in judged_gpu])
        grade(laptop, 1, True)
        grade(laptop, 0, True)          # the same device: reused
        grade(gpu, 1, False)            # never the emulator's records on a GPU
        grade(gpu, 0, False)
        grade(laptop, 1, True)          # nor the GPU's on the emulator


def result(student: str, source: str, status: str = "passed", note: str = "", ungraded: str = "") -> LabResult:
    v = Verdict("Lab05Predictions.Q1", "cpu", status, "" if status == "passed" else "why", 1 if status == "passed" else 0)
    r = LabResult(student, "05", source, "0" * 64 if source else "", "cpu", [v], note, ungraded=ungraded)
    r.verdicts[0].max_points = 10.0
    r.verdicts[0].points = 10.0 if status == "passed" else 0.0
    return r


class EachLmsFormatWritesBlanksForWhatIsNoGrade(Tmp):
    def test_blank_for_not_graded_lost_missing_and_ambiguous(self):
        results = [result("judged", "kernel.cu"),
                   result("fault", "kernel.cu", "fault"),
                   result("lost", "", "skipped", "the cluster task ended CANCELLED", "the cluster task ended CANCELLED"),
                   result("missing", "", "failed", "no kernel.cu for lab 05 was submitted"),
                   result("ambiguous", "", "failed", "several .cu files were submitted (a.cu, b.cu): hand in one")]
        ids = {r.student: {"source": "moodle", "id": str(100 + i), "name": r.student} for i, r in enumerate(results)}
        out = self.tmp / "lms"
        out.mkdir()
        blms.write_lms_files(results, ids, out)
        canvas = {r["Student"]: r["banklab lab 05"] for r in read_csv(out / "lms.csv")[1:]}
        moodle = {r["Full name"]: r["Grade"] for r in read_csv(out / "lms-moodle-lab05.csv")}
        bb = {r["Last Name"]: r[next(c for c in r if c.startswith("banklab"))] for r in read_csv(out / "lms-blackboard.csv")}
        for name, cells in (("canvas", canvas), ("moodle", moodle), ("blackboard", bb)):
            with self.subTest(name):
                self.assertEqual(float(cells["judged"]), 100.0)
                self.assertEqual({k for k, v in cells.items() if v == ""}, {"fault", "lost", "missing", "ambiguous"})
        said = []
        self.assertEqual(bs.report(results, out, say=said.append), 2)      # not graded: the fault, the lost task
        self.assertIn("4 score(s) left BLANK in the LMS files (2 not graded, 1 not judged, 1 nothing handed in)", said[0])


class GradescopeShowsNoFailedLineForATestNotJudged(Tmp):
    def platform(self, *args):
        root = self.root = self.tmp / f"gs{len(list(self.tmp.glob('gs*')))}"
        (root / "submission").mkdir(parents=True)
        (root / "submission" / "kernel.cu").write_text("// FAKE-JUDGE: solved\n")
        p = subprocess.run([sys.executable, str(PLATFORM), "gradescope", "--root", str(root), "--lab", "05",
                            "--judge", str(FAKE), *args], capture_output=True, text=True, timeout=300)
        f = root / "results" / "results.json"
        return p, json.loads((f if f.exists() else root / "results" / GRADESCOPE_NOT_GRADED_FILE).read_text())

    def test_a_gpu_less_run_shows_one_zero_point_line_per_lab_not_a_failed_0_of_50_per_test(self):
        p, d = self.platform("--tier", "all")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse([t for t in d["tests"] if "OnGpu" in t["name"]], d["tests"])
        self.assertFalse([t for t in d["tests"] if t.get("status") == "failed" and t["score"] == 0
                          and t["max_score"] > 0 and "Gpu" in t["name"]])
        line = [t for t in d["tests"] if "not judged" in t["name"]]
        self.assertEqual(len(line), 1)
        self.assertEqual((line[0]["score"], line[0]["max_score"]), (0, 0))
        self.assertNotIn("status", line[0])
        self.assertGreater(d["score"], 0)

    def test_graded_mode_without_a_gpu_gives_no_score_and_exits_non_zero(self):
        p, d = self.platform("--tier", "all", "--graded")
        self.assertEqual(p.returncode, bs.NOT_GRADED_EXIT, p.stderr)
        self.assertNotIn("score", d)                # Gradescope: an autograder failure, never a 0
        self.assertFalse((self.root / "results" / "results.json").exists())   # the run shows as failed
        self.assertEqual(d["tests"], [])
        self.assertIn("no GPU on this machine", d["output"])

    def test_a_grader_that_cannot_run_here_gives_no_score(self):
        root = self.tmp / "nojudge"
        (root / "submission").mkdir(parents=True)
        (root / "submission" / "kernel.cu").write_text("// FAKE-JUDGE: solved\n")
        p = subprocess.run([sys.executable, str(PLATFORM), "gradescope", "--root", str(root), "--lab", "05",
                            "--judge", str(self.tmp / "no-such-judge")], capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertFalse((root / "results" / "results.json").exists())      # the run shows as failed
        d = json.loads((root / "results" / GRADESCOPE_NOT_GRADED_FILE).read_text())
        self.assertNotIn("score", d)
        self.assertIn("no-such-judge does not exist", d["output"])

    def test_hidden_instructor_checks_make_the_score_visible_only_once_published(self):
        r = result("s", "kernel.cu")
        inst = Verdict("Lab05InstructorChecks.Something", "cpu", "passed", "", 5, 20.0, 20.0)
        r.verdicts.append(inst)
        d = bp.gradescope_results([r], "after_published")
        self.assertEqual(d["visibility"], "after_published")
        self.assertEqual(d["score"], 30.0)
        shown = [t for t in d["tests"] if t["visibility"] == "visible"]
        self.assertEqual(sum(t["score"] for t in shown), 10.0)
        self.assertNotIn("30", d["output"])
        d = bp.gradescope_results([result("s", "kernel.cu")], "after_published")
        self.assertEqual(d["visibility"], "visible")          # no hidden check: the score is shown at once


class ARerunAfterRescoreWithOtherPointsSaysHowManyItRescored(Tmp):
    def test_the_count_is_the_true_one(self):
        subs = self.students({"alice": "solved", "bob": "stub"})
        out = self.tmp / "out"
        self.assertEqual(self.grade(subs, out).returncode, 0)
        points = self.tmp / "points"
        points.mkdir()
        w = (ROOT / "grader" / "points" / "weights.toml").read_text()
        m = re.search(r"(?m)^predictions\s*=\s*([0-9.]+)", w)
        (points / "weights.toml").write_text(w.replace(m.group(0), f"predictions = {float(m.group(1)) * 3}"))
        before = read_csv(out / "results.csv")
        p = self.grade(subs, out, "--rescore", "--points-dir", points)
        self.assertIn("2 re-scored", p.stdout)
        self.assertNotEqual(read_csv(out / "results.csv"), before)
        after = read_csv(out / "results.csv")
        p = self.grade(subs, out)                    # no --points-dir: the table kept in OUT, nothing changes
        self.assertIn("2 unchanged and reused, 0 re-scored", p.stdout, p.stdout)
        self.assertEqual(read_csv(out / "results.csv"), after)
        p = self.grade(subs, out, "--rescore")       # the course's points again: every score changes back
        self.assertIn("2 re-scored", p.stdout)
        self.assertEqual(read_csv(out / "results.csv"), before)
        p = self.grade(subs, out)
        self.assertIn("2 unchanged and reused, 0 re-scored", p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
