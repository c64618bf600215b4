"""grade-class --engine slurm on a real Slurm cluster (test batch.GradingAClassOnSlurm).

CI starts a single-node cluster from Debian's packages first (instructor/batch/tests/slurm-single-node,
called by .ci/run). Where no Slurm controller answers, the tests that need one are skipped and
the run exits 77 (CTest: skipped, with the reason printed), never red; the tests that need no
cluster (sbatch missing, a flag the engine sets itself) run everywhere.

With the real judge ($BANKLAB_JUDGE), a small class of lab 05 (solutions and stubs, a folder, a
Canvas file, a folder without a kernel) is graded on the CPU tier by both engines, and every file
the gradebook is made of must be equal. The stub carries issue 30's cheats (a daemon that rewrites
grades, TIOCSTI into the terminal, reads what its ancestors' command lines name): in each engine's
probe log (--keep-work) each payload ran and got nothing, and the stub's grade is the stub's. With the test double (tests/fake_judge.py, fast): a task
that is killed is submitted once more and then reported by name, never a silent 0; a re-run
submits nothing that is graded; a refused job says sbatch's reason; the two-stage flow shows the
queued GPU tier as pending and keeps the CPU tier of the earlier run.

  python3 instructor/batch/tests/test_slurm.py
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
GRADE_CLASS = HERE.parent / "grade-class"
from banklab.grading import judging   # noqa: E402
from banklab.grading import status as bs    # noqa: E402
FAKE = HERE / "fake_judge.py"
JUDGE = os.environ.get("BANKLAB_JUDGE")
LAB, LAB_DIR = "05", "05_swizzle"
CHEATS = ROOT / "grader" / "selftest" / "cheats"
#: Issue 30's cheats appended to bob's stub: each payload's line and what it must say it got.
CHEATED = {"daemon_rewrites_grades_and_classmates": ("BANKLAB-PAYLOAD-RESULTS-DAEMON ran as uid ", r"uid [1-9]\d*$"),
           "pushes_a_command_into_the_terminal": ("BANKLAB-PAYLOAD-TIOCSTI ran: ", r"TIOCSTI failed"),
           "reads_what_its_ancestors_name": ("BANKLAB-PAYLOAD-READS-ANCESTORS ran: ", r", 0 files read$")}


def slurm_problem() -> str:
    """Why no Slurm cluster can take a job from here ("" when one can)."""
    for cmd in ("sbatch", "squeue", "sinfo", "scontrol", "scancel"):
        if not shutil.which(cmd):
            return f"`{cmd}` is not installed (Debian: apt-get install slurm-client; CI starts a " \
                   "cluster with instructor/batch/tests/slurm-single-node)"
    try:
        r = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "sinfo did not answer in 20 s"
    if r.returncode != 0:
        said = " | ".join(l.strip() for l in r.stderr.splitlines() if l.strip())
        return f"no Slurm controller answers (sinfo: {said[-300:]})"
    states = r.stdout.split()
    if not any(s.startswith(("idle", "mix", "alloc")) for s in states):
        return f"no Slurm node is up (sinfo: {' '.join(states) or 'no node'})"
    return ""


PROBLEM = slurm_problem()
needs_slurm = unittest.skipIf(bool(PROBLEM), f"no Slurm here: {PROBLEM}")


def grade(subs, out, *args, env=None, timeout=900):
    cmd = [sys.executable, str(GRADE_CLASS), str(subs), "--out", str(out), "--lab", LAB] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def slurm(*args):
    return ["--engine", "slurm", "--slurm-poll", "1", "--slurm-shard", "2"] + list(args)


def table(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


class Tmp(unittest.TestCase):
    @classmethod
    def make_tmp(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-slurm-"))
        cls.tmp.chmod(0o755)       # as root, the judge's probe runs as another user and must reach it

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)


def fake_class(subs: Path, marks: dict[str, str]) -> None:
    for student, mark in marks.items():
        (subs / student).mkdir(parents=True, exist_ok=True)
        (subs / student / "kernel.cu").write_text(f"// FAKE-JUDGE: {mark}\n")


class WithoutACluster(Tmp):
    """What needs no cluster: the engine says what is missing before it grades anything."""

    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        fake_class(cls.tmp / "subs", {"alice": "solved"})

    def test_without_sbatch_the_engine_says_what_to_do_and_grades_nothing(self):
        env = dict(os.environ, PATH=str(self.tmp / "empty-path"))
        p = grade(self.tmp / "subs", self.tmp / "out1", "--judge", str(FAKE), "--engine", "slurm", env=env)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("needs Slurm's `sbatch`, which is not on PATH", p.stderr)
        self.assertIn("--engine local", p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        self.assertFalse(list((self.tmp / "out1").glob("results/*/*.json")))

    def task(self, shard, judge_id=None, judge=FAKE):
        """What an array's task runs on its node: grade-class with --slurm-task RUN_DIR."""
        run = Path(tempfile.mkdtemp(dir=self.tmp))
        if judge_id is None:
            judge_id = judging.judge_identity(FAKE, ROOT)
        (run / "manifest.json").write_text(json.dumps({"judge_id": judge_id, "shards": [shard]}))
        env = dict(os.environ, SLURM_ARRAY_TASK_ID="0")
        return grade(self.tmp / "subs", self.tmp / "out3", "--judge", str(judge), "--engine", "slurm",
                     "--slurm-task", str(run), env=env)

    def test_a_task_on_a_node_without_the_judge_grades_nothing_and_says_why(self):
        p = self.task([], judge=self.tmp / "no-judge")
        self.assertNotEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("no-judge does not exist", p.stderr)

    def test_a_task_on_a_node_with_another_judge_grades_nothing_and_says_why(self):
        p = self.task([], judge_id="0" * 64)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("differ from the ones the submitting machine hashed", p.stderr)

    def test_a_task_on_a_node_that_sees_other_submissions_grades_nothing_and_says_why(self):
        item = {"student": "zed", "lab": LAB, "rfile": str(self.tmp / "elsewhere" / "lab05.json"),
                "cache_key": "0" * 64}
        p = self.task([item])
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("1 submission(s) of this shard are not found here", p.stderr)
        self.assertFalse(list((self.tmp / "out3").glob("results/*/*.json")))

    def test_a_flag_the_engine_sets_itself_is_refused_by_name(self):
        p = grade(self.tmp / "subs", self.tmp / "out2", "--judge", str(FAKE), "--engine", "slurm",
                  "--slurm-arg=--array=0-3")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("--slurm-arg --array", p.stderr)


@needs_slurm
@unittest.skipUnless(JUDGE, "BANKLAB_JUDGE is not set: the real judge is not built")
@unittest.skipUnless((ROOT / "solutions").is_dir(), "no solutions/ (a student release)")
class TheRealJudgeOnSlurmGivesTheLocalGradebook(Tmp):
    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        subs = cls.tmp / "subs"
        sol = (ROOT / "solutions" / LAB_DIR / "kernel.cu").read_text()
        stub = (ROOT / "labs" / LAB_DIR / "kernel.cu").read_text()
        cheated = stub + "".join("\n" + (CHEATS / f"{c}.cu").read_text() for c in CHEATED)
        files = {"Ada Lovelace/kernel.cu": sol, "bob/labs/05_swizzle/kernel.cu": cheated,
                 "carol_1234_5678_kernel.cu": sol, "dan/notes.txt": "no kernel"}
        for rel, text in files.items():
            (subs / rel).parent.mkdir(parents=True, exist_ok=True)
            (subs / rel).write_text(text)
        common = ["--judge", JUDGE, "--tier", "cpu", "--timeout", "600", "--keep-work"]
        cls.local = grade(subs, cls.tmp / "local", *common, "-j", "2")
        cls.slurm = grade(subs, cls.tmp / "slurm", *common, *slurm())
        cls.again = grade(subs, cls.tmp / "slurm", *common, *slurm())

    def test_both_engines_exit_zero(self):
        self.assertEqual(self.local.returncode, 0, self.local.stderr[-3000:])
        self.assertEqual(self.slurm.returncode, 0, self.slurm.stdout[-3000:] + self.slurm.stderr[-3000:])
        self.assertRegex(self.slurm.stdout, r"slurm: submitted job \d+: 3 submission\(s\) in 2 task\(s\)")

    def test_the_gradebook_and_the_lms_export_are_the_local_engines(self):
        for name in ("gradebook.csv", "lms.csv", "results.csv"):
            self.assertEqual(table(self.tmp / "slurm" / name), table(self.tmp / "local" / name), name)
        book = {r[0]: r for r in table(self.tmp / "local" / "gradebook.csv")[1:]}
        self.assertEqual(set(book), {"Ada Lovelace", "bob", "carol", "dan"})
        self.assertGreater(float(book["Ada Lovelace"][1]), float(book["bob"][1]))   # a real grade

    def test_every_result_feedback_and_platform_file_is_the_local_engines(self):
        def files(d):
            return sorted(p.relative_to(d) for p in d.rglob("*") if p.is_file())
        for sub in ("results", "feedback", "platforms"):
            local, slurm_ = self.tmp / "local" / sub, self.tmp / "slurm" / sub
            self.assertEqual(files(local), files(slurm_), sub)
            for rel in files(local):
                a, b = (local / rel).read_text(), (slurm_ / rel).read_text()
                if rel.suffix == ".json" and sub == "results":
                    a, b = json.loads(a), json.loads(b)
                    a.pop("seconds"), b.pop("seconds")
                self.assertEqual(a, b, f"{sub}/{rel}")

    def test_issue_30s_cheats_ran_in_each_engine_and_got_nothing(self):
        for engine in ("local", "slurm"):
            log = (self.tmp / engine / "work" / "bob" / f"lab{LAB}" / "judge" / "probe.log")
            text = log.read_text(errors="replace") if log.is_file() else ""
            for case, (payload, nothing) in CHEATED.items():
                with self.subTest(engine=engine, case=case):
                    line = next((l.strip() for l in text.splitlines() if payload in l), "")
                    self.assertTrue(line, f"{case}: its payload never ran in {log}: the case proves nothing")
                    self.assertRegex(line, nothing)
                    print(f"\n    {engine}: {line[:150]}", file=sys.stderr)
        book = {r[0]: r for r in table(self.tmp / "slurm" / "gradebook.csv")[1:]}
        stub_only = json.loads((self.tmp / "slurm" / "results" / "bob" / "lab05.json").read_text())
        self.assertTrue([v for v in stub_only["verdicts"] if v["status"] == "failed"], "the cheated stub passed all")
        self.assertLess(float(book["bob"][1]), float(book["Ada Lovelace"][1]))

    def test_a_rerun_submits_nothing_and_reuses_every_result(self):
        self.assertEqual(self.again.returncode, 0, self.again.stderr[-3000:])
        self.assertNotIn("submitted job", self.again.stdout)
        self.assertIn("0 graded, 4 unchanged and reused", self.again.stdout)


@needs_slurm
class AKilledTaskIsRetriedThenReportedByName(Tmp):
    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.subs = cls.tmp / "subs"
        fake_class(cls.subs, {"alice": "solved", "bob": "stub", "mallory": "killtask"})
        cls.out = cls.tmp / "out"
        cls.first = grade(cls.subs, cls.out, "--judge", str(FAKE), *slurm())
        cls.head = table(cls.out / "gradebook.csv")[0]
        cls.book = {r[0]: r for r in table(cls.out / "gradebook.csv")[1:]}
        cls.status = {r[0]: r for r in table(cls.out / "slurm" / "status.csv")[1:]}
        cls.feedback = (cls.out / "feedback" / "mallory.md").read_text()
        cls.lms = {r[0]: r for r in table(cls.out / "lms.csv")[2:]}   # before the re-run rewrites it
        cls.result = json.loads((cls.out / "results" / "mallory" / "lab05.json").read_text())

    def test_the_killed_task_is_submitted_again_once(self):
        self.assertEqual(self.first.returncode, 4, self.first.stderr)      # a submission left not graded
        self.assertRegex(self.first.stdout, r"task \d+ of job \d+ ended CANCELLED .* without grading "
                                            r"mallory lab 05: submitting it again")
        self.assertEqual(len(re.findall(r"submitted job \d+", self.first.stdout)), 2)

    def test_it_is_then_reported_by_name_on_the_terminal_and_in_the_status_file(self):
        self.assertIn("1 submission(s) were NOT graded", self.first.stderr)
        self.assertRegex(self.first.stderr, r"mallory lab 05: task \d+ of job \d+ ended CANCELLED")
        self.assertEqual(self.status["mallory"][2], "not graded")
        self.assertTrue(Path(self.status["mallory"][6]).is_file())        # its task's log
        self.assertEqual({self.status[s][2] for s in ("alice", "bob")}, {"graded"})

    def test_the_gradebook_shows_it_incomplete_and_the_feedback_says_why_never_a_silent_zero(self):
        self.assertEqual(self.book["mallory"][1:3], ["", "not graded"])     # lab05: no number, not complete
        self.assertEqual(self.lms["mallory"][-1], "")                             # blank in the LMS file, never 0
        self.assertIn("05", self.book["mallory"][self.head.index("incomplete labs")])
        if "not judged" in self.head:        # the gradebook's column of what could not be judged
            self.assertIn("not graded yet (not a zero)", self.book["mallory"][self.head.index("not judged")])
        self.assertIn("ended CANCELLED 2 time(s) without a result: it is not graded yet (not a zero)",
                      self.feedback)
        r = self.result
        self.assertTrue(r["cache_key"].startswith("lost:"))
        self.assertFalse([v for v in r["verdicts"] if v["status"] != "skipped"])
        self.assertEqual(self.book["alice"][1], "40")            # the others are graded as ever

    def test_a_rerun_submits_only_the_submission_that_was_not_graded(self):
        (self.subs / "mallory" / "kernel.cu").write_text("// FAKE-JUDGE: solved\n")
        p = grade(self.subs, self.out, "--judge", str(FAKE), *slurm())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"submitted job \d+: 1 submission\(s\) in 1 task\(s\)")
        self.assertIn("1 graded, 2 unchanged and reused", p.stdout)
        book = {r[0]: r for r in table(self.out / "gradebook.csv")[1:]}
        self.assertEqual(book["mallory"][1], "40")


@needs_slurm
class ATaskThatFailsIsSubmittedAgain(Tmp):
    """The first task finds another judge on its node (its manifest changed while the job was
    held, as a node with another build would see it): it grades nothing and fails; the retry grades."""

    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        fake_class(cls.tmp / "subs", {"alice": "solved"})
        cls.out = cls.tmp / "out"
        j = ["--judge", str(FAKE)] + slurm()
        cls.queued = grade(cls.tmp / "subs", cls.out, *j, "--slurm-no-wait", "--slurm-arg=--hold")
        cls.manifests = sorted(cls.out.glob("slurm/*/manifest.json"))
        for mf in cls.manifests:
            m = json.loads(mf.read_text())
            mf.write_text(json.dumps(dict(m, judge_id="0" * 64)))
        job = re.search(r"submitted job (\d+)", cls.queued.stdout)
        cls.collected = cls.grade_then_release(cls.tmp / "subs", cls.out, j, job.group(1) if job else "")

    @staticmethod
    def grade_then_release(subs, out, args, job_id):
        """The collecting run, with the held job released only once that run waits for it: released
        before, the job can fail and end before the run looks at the queue, which then submits anew
        (a race that the machine's load decided)."""
        cmd = [sys.executable, str(GRADE_CLASS), str(subs), "--out", str(out), "--lab", LAB] + list(args)
        with tempfile.TemporaryFile("w+") as err:       # a file: a full stderr pipe never blocks it
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
            lines = []
            for line in p.stdout:
                lines.append(line)
                if job_id and "already queued" in line:
                    subprocess.run(["scontrol", "release", job_id], capture_output=True, timeout=60)
            p.wait(timeout=900)
            err.seek(0)
            return subprocess.CompletedProcess(cmd, p.returncode, "".join(lines), err.read())

    def test_the_failed_task_says_why_in_its_log_and_the_retry_grades_the_submission(self):
        self.assertEqual(len(self.manifests), 1, self.queued.stdout + self.queued.stderr)
        self.assertEqual(self.collected.returncode, 0, self.collected.stderr)
        self.assertRegex(self.collected.stdout, r"ended FAILED .* without grading alice lab 05: submitting it again")
        log = next(self.manifests[0].parent.glob("task-0.out")).read_text()
        self.assertIn("differ from the ones the submitting machine hashed", log)
        self.assertNotIn("NOT graded", self.collected.stderr)
        book = {r[0]: r for r in table(self.out / "gradebook.csv")[1:]}
        self.assertEqual(book["alice"][1], "40")


@needs_slurm
class ARefusedJobSaysWhy(Tmp):
    def setUp(self):
        self.make_tmp()
        fake_class(self.tmp / "subs", {"alice": "solved"})

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_an_unknown_partition_is_sbatchs_own_words_and_leaves_no_result(self):
        p = grade(self.tmp / "subs", self.tmp / "out", "--judge", str(FAKE), *slurm(),
                  "--slurm-arg=--partition=no-such-partition")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("sbatch refused the job array", p.stderr)
        self.assertIn("partition", p.stderr.split("the command was")[0].lower())
        self.assertNotIn("--gres", p.stderr)                    # the CPU tier asks for no GPU
        self.assertNotIn("Traceback", p.stderr)
        self.assertFalse(list((self.tmp / "out").glob("results/*/*.json")))

    def test_the_gpu_tiers_ask_for_one_gpu_per_task_by_default(self):
        cluster_gres = subprocess.run(["sinfo", "-h", "-o", "%G"], capture_output=True, text=True).stdout
        p = grade(self.tmp / "subs", self.tmp / "out", "--judge", str(FAKE), "--tier", "all", *slurm(),
                  "--slurm-no-wait", "--slurm-arg=--hold")
        if "gpu" in cluster_gres:        # a cluster with GPUs takes it: the job is queued, held
            m = re.search(r"submitted job (\d+)", p.stdout)
            self.assertTrue(m, p.stdout + p.stderr)
            shown = subprocess.run(["scontrol", "show", "job", m.group(1)], capture_output=True, text=True).stdout
            subprocess.run(["scancel", m.group(1)], capture_output=True)
            self.assertIn("gpu:1", shown)
        else:                            # one without (CI's) refuses it, and says so
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertIn("--gres=gpu:1", p.stderr.split("the command was")[1])


@needs_slurm
class TheTwoStageFlowShowsTheGpuTierPending(Tmp):
    """Stage one: the CPU tier at once (as a platform does); stage two: the whole grade on Slurm,
    queued (held here) and collected later. The node has no GPU, so --gres=none."""

    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.subs = cls.tmp / "subs"
        fake_class(cls.subs, {"alice": "solved", "bob": "stub"})
        cls.out = cls.tmp / "out"
        j = ["--judge", str(FAKE)]
        cls.stage1 = grade(cls.subs, cls.out, *j, "--tier", "cpu")
        cls.cpu_book = table(cls.out / "gradebook.csv")
        stage2 = j + ["--tier", "all"] + slurm("--slurm-arg=--gres=none")
        cls.queued = grade(cls.subs, cls.out, *stage2, "--slurm-no-wait", "--slurm-arg=--hold")
        cls.pending_book = table(cls.out / "gradebook.csv")
        cls.pending_fb = (cls.out / "feedback" / "alice.md").read_text()
        cls.pending = json.loads((cls.out / "results" / "alice" / "lab05.json").read_text())
        # Collect: the rerun must find the array still queued (held), so it is released only once
        # the rerun has said so.
        m = re.search(r"submitted job (\d+)", cls.queued.stdout)
        cmd = [sys.executable, str(GRADE_CLASS), str(cls.subs), "--out", str(cls.out), "--lab", LAB] + stage2
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = proc.stdout.readline()
        if m:
            subprocess.run(["scontrol", "release", m.group(1)], capture_output=True, timeout=60)
        out, err = proc.communicate(timeout=600)
        cls.collected = subprocess.CompletedProcess(cmd, proc.returncode, first + out, err)

    def test_stage_two_queues_and_returns_at_once(self):
        self.assertEqual(self.stage1.returncode, 0, self.stage1.stderr)
        self.assertEqual(self.queued.returncode, bs.PENDING_EXIT, self.queued.stderr)   # queued: not graded yet
        self.assertIn("2 submission(s) pending", self.queued.stdout)
        self.assertIn("2 submission(s) are PENDING on the Slurm cluster", self.queued.stderr)

    def test_while_queued_the_cpu_points_stay_and_the_gpu_tests_are_pending_not_failed(self):
        self.assertEqual(self.pending_book, self.cpu_book)
        gpu = [v for v in self.pending["verdicts"] if v["tier"] == "gpu"]
        self.assertTrue(gpu)
        self.assertEqual({v["status"] for v in gpu}, {"skipped"})
        self.assertTrue(all(v["message"].startswith("not judged: pending:") for v in gpu))
        self.assertIn("tests not judged: pending: queued for grading", self.pending_fb)

    def test_a_rerun_waits_for_the_queued_array_instead_of_submitting_again(self):
        self.assertEqual(self.collected.returncode, 0, self.collected.stderr)
        self.assertIn("already queued in job(s)", self.collected.stdout)
        self.assertNotIn("submitted job", self.collected.stdout)
        r = json.loads((self.out / "results" / "alice" / "lab05.json").read_text())
        self.assertEqual(r["tier"], "all")
        self.assertFalse(r["cache_key"].startswith(("pending:", "lost:")))
        self.assertFalse([v for v in r["verdicts"] if "pending" in v["message"]])


class ATaskThatWouldGradeAnotherVariantRefuses(Tmp):
    """A task whose grade-class computes another cache key for a submission it sees (e.g. the course
    seed did not reach it, so another variant) grades nothing, exits 3 and names that cause; one
    that does not see the file names the shared paths. No cluster is needed: shard_of is called."""

    def refusal(self, key_here: str, same_file: bool) -> str:
        import contextlib
        import io
        from types import SimpleNamespace
        from banklab.grading import slurm_task
        self.make_tmp()
        self.addCleanup(shutil.rmtree, self.tmp, True)
        run = self.tmp / "run"
        run.mkdir()
        rfile = self.tmp / "results" / "alice" / "lab05.json"
        (run / "manifest.json").write_text(json.dumps({"judge_id": "J", "shards": [[{
            "student": "alice", "lab": "05", "rfile": str(rfile.resolve()), "cache_key": "variant 3 of 5"}]]}))
        job = ["alice", "05", "kernel.cu", "", rfile if same_file else self.tmp / "elsewhere.json", key_here]
        err = io.StringIO()
        os.environ["SLURM_ARRAY_TASK_ID"] = "0"
        try:
            with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as ex:
                slurm_task.shard_of(SimpleNamespace(slurm_task=str(run), tier="cpu"), [job], "J")
        finally:
            os.environ.pop("SLURM_ARRAY_TASK_ID", None)
        self.assertEqual(ex.exception.code, 3)
        return err.getvalue()

    def test_another_variant_here_is_named(self):
        why = self.refusal("variant 0 of 5", same_file=True)
        self.assertIn("another variant (the course seed", why)

    def test_a_file_not_seen_here_names_the_paths(self):
        why = self.refusal("variant 3 of 5", same_file=False)
        self.assertIn("at the same paths", why)
        self.assertNotIn("another variant", why)

if __name__ == "__main__":
    prog = unittest.main(exit=False, verbosity=2)
    ok = prog.result.wasSuccessful()
    if ok and PROBLEM:
        print(f"SKIPPED (exit 77): the Slurm tests need a cluster: {PROBLEM}")
        sys.exit(77)
    sys.exit(0 if ok else 1)
