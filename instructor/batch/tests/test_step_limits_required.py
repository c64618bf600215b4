"""Grading that counts needs whole-step limits (issue 45, "Limits that hold where the grading
runs"): every tool that grades someone else's file starts the judge with --require-step-limits
(banklab.grading.invocation.REQUIRE_STEP_LIMITS, passed in banklab.grading.judging, the one place),
and where the judge can make no cgroup per step its refusal (a Build fault) leaves the lab NOT
GRADED, never a number: grade-class locally and in a Slurm task (exit 4, a blank LMS cell,
not-graded.csv, the task retried), Gradescope (no results.json: the run shows as failed; the
reason in not-graded.json) and PrairieLearn (gradable false, no score).

With the judge's test double (fake_judge.py: FAKE_JUDGE_NO_CGROUP=1 is a machine without step
cgroups, FAKE_JUDGE_ENV_LOG records each judge's flags) and Slurm's (fake_slurm.py). The control:
the same runs where the judge has its cgroups are graded. The real judge's refusal, as a normal
user on cgroup v1: grader/tests/test_step_limits.py and instructor/batch/entry_points.py.

  python3 -m unittest -v test_step_limits_required
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from banklab.grading import status as bs    # noqa: E402
from banklab.grading.platforms import GRADESCOPE_NOT_GRADED_FILE  # noqa: E402
from batch_common import FAKE, GRADE_CLASS, PLATFORM, fake_slurm_env, read_csv  # noqa: E402

REFUSAL = "the judge can make no cgroup per step here"
SLURM = ["--engine", "slurm", "--slurm-poll", "0.5", "--slurm-shard", "1", "--slurm-retries", "1"]


class EveryGraderRefusesWithoutStepLimits(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-step-limits-"))
        self.tmp.chmod(0o755)
        self.log = self.tmp / "judges.jsonl"

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def env(self, no_cgroup: bool, base: dict | None = None) -> dict:
        env = dict(base or os.environ, FAKE_JUDGE_ENV_LOG=str(self.log), PYTHONDONTWRITEBYTECODE="1")
        env.pop("FAKE_JUDGE_NO_CGROUP", None)
        if no_cgroup:
            env["FAKE_JUDGE_NO_CGROUP"] = "1"
        return env

    def judges_were_told(self):
        lines = [json.loads(l) for l in self.log.read_text().splitlines()]
        self.assertTrue(lines, "no judge ran")
        self.assertEqual({l["require_step_limits"] for l in lines}, {True},
                         "a grader started a judge without --require-step-limits")

    def grade_class(self, no_cgroup: bool, *args, env=None):
        subs = self.tmp / f"subs-{no_cgroup}"
        (subs / "alice").mkdir(parents=True)
        (subs / "alice" / "kernel.cu").write_text("// FAKE-JUDGE: solved\n")
        out = self.tmp / f"out-{no_cgroup}"
        p = subprocess.run([sys.executable, str(GRADE_CLASS), str(subs), "--out", str(out), "--lab", "05",
                            "--judge", str(FAKE), "--timeout", "60", "--tier", "cpu", *args],
                           capture_output=True, text=True, timeout=300, env=self.env(no_cgroup, env))
        return p, out

    def assert_class_not_graded(self, p, out):
        self.assertEqual(p.returncode, bs.NOT_GRADED_EXIT, p.stdout + p.stderr)
        self.assertIn("alice lab 05", p.stderr)
        self.assertIn(REFUSAL, p.stderr)
        row = read_csv(out / "results.csv")[0]
        self.assertEqual((row["points"], row["complete"]), ("", "not graded"))
        self.assertEqual(read_csv(out / "lms.csv")[1]["banklab lab 05"], "", "a refusal is a blank, never a 0")
        self.assertEqual({r["student"] for r in read_csv(out / "not-graded.csv")}, {"alice"})
        self.judges_were_told()

    def test_grade_class_locally(self):
        p, out = self.grade_class(True)
        self.assert_class_not_graded(p, out)
        self.assertEqual(p.stderr.count("grade-class: the judge can make no cgroup per step here"), 1,
                         "said once at the start, before the labs' own lines")
        self.assertIn("systemd-run --user --scope -p Delegate=yes", p.stderr)

    def test_grade_class_in_a_slurm_task(self):
        p, out = self.grade_class(True, *SLURM, env=fake_slurm_env(self.tmp))
        self.assert_class_not_graded(p, out)
        status = read_csv(out / "slurm" / "status.csv")[0]
        self.assertEqual(status["status"], "not graded")
        self.assertIn(REFUSAL, status["why"])
        self.assertRegex(p.stdout, r"ended FAILED .* without grading alice lab 05: submitting it again")

    def test_the_control_where_the_judge_has_its_cgroups_is_graded(self):
        for args, env in (((), None), (SLURM, fake_slurm_env(self.tmp))):
            with self.subTest(engine="slurm" if args else "local"):
                shutil.rmtree(self.tmp / "subs-False", ignore_errors=True)
                shutil.rmtree(self.tmp / "out-False", ignore_errors=True)
                p, out = self.grade_class(False, *args, env=env)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                self.assertNotIn(REFUSAL, p.stderr)
                self.assertGreater(float(read_csv(out / "results.csv")[0]["points"]), 0)
                self.judges_were_told()

    def platform(self, which: str, no_cgroup: bool):
        root = self.tmp / f"{which}-{no_cgroup}"
        sub = "submission" if which == "gradescope" else "student"
        (root / sub).mkdir(parents=True)
        (root / sub / "kernel.cu").write_text("// FAKE-JUDGE: solved\n")
        if which == "prairielearn":      # the question's variant (its server.py's params)
            (root / "data").mkdir()
            (root / "data" / "data.json").write_text(json.dumps({"params": {"banklab_lab": "05", "banklab_variant": 0}}))
        p = subprocess.run([sys.executable, str(PLATFORM), which, "--root", str(root), "--lab", "05",
                            "--judge", str(FAKE)], capture_output=True, text=True, timeout=300,
                           env=self.env(no_cgroup))
        return p, root / "results"

    def test_gradescope(self):
        p, res = self.platform("gradescope", True)
        self.assertEqual(p.returncode, bs.NOT_GRADED_EXIT, p.stdout + p.stderr)
        self.assertFalse((res / "results.json").exists(), "a results.json without a score is a 0 on Gradescope")
        d = json.loads((res / GRADESCOPE_NOT_GRADED_FILE).read_text())
        self.assertNotIn("score", d)
        self.assertIn(REFUSAL, d["output"])
        self.judges_were_told()
        p, res = self.platform("gradescope", False)          # the control
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertGreater(json.loads((res / "results.json").read_text())["score"], 0)

    def test_prairielearn(self):
        p, res = self.platform("prairielearn", True)
        self.assertEqual(p.returncode, bs.NOT_GRADED_EXIT, p.stdout + p.stderr)
        d = json.loads((res / "results.json").read_text())
        self.assertIs(d["gradable"], False, "not gradable: PrairieLearn counts no attempt and no points")
        self.assertNotIn("score", d)
        self.assertIn(REFUSAL, json.dumps(d))
        self.judges_were_told()
        p, res = self.platform("prairielearn", False)        # the control
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        d = json.loads((res / "results.json").read_text())
        self.assertIs(d["gradable"], True)
        self.assertGreater(d["score"], 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
