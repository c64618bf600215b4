"""A Slurm task whose GPU cannot be used is requeued, never a grade (issue 46, item 6; test
batch.AGpuThatCannotBeUsedIsRequeued). On the GPU machine, bench/device_slurm_gpu.sh checks it on a
real Slurm with a real GPU (docs/perf/slurm_gpu_tier_h200.md); here, without a GPU, with the test
doubles: fake_slurm.py gives each array's tasks the GPU $FAKE_SLURM_GPUS names for it (as Slurm's
gres sets CUDA_VISIBLE_DEVICES), and fake_judge.py's GPU check finds only $FAKE_JUDGE_USABLE_GPU
usable. `--tier all --graded`:

- the first task's GPU cannot be used, the retry's can: the submission is submitted again and
  graded by the retry alone (its GPU tests judged), exit 0;
- no task's GPU can be used: submitted again, then not graded (blank in the gradebook and every LMS
  file, named in status.csv with the judge's reason), exit NOT_GRADED_EXIT; with
  --slurm-retries 0, not graded after the one task.

  python3 -m unittest -v test_gpu_requeue
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
from batch_common import FAKE, GRADE_CLASS, fake_slurm_env, read_csv  # noqa: E402

BROKEN = "GPU-00000000-0000-0000-0000-00000000dead"   # a GPU CUDA cannot open
USABLE = "GPU-6f1c0a4e-0000-4a3b-9c1d-0000000000a1"


class Run(unittest.TestCase):
    GPUS: list[str] = []
    RETRIES = 1

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-gpu-requeue-"))
        subs = cls.tmp / "subs"
        (subs / "ada").mkdir(parents=True)
        (subs / "ada" / "kernel.cu").write_text("// FAKE-JUDGE: solved\n")
        cls.out, cls.log = cls.tmp / "out", cls.tmp / "judge-env.jsonl"
        env = dict(fake_slurm_env(cls.tmp), FAKE_SLURM_GPUS=",".join(cls.GPUS), FAKE_JUDGE_USABLE_GPU=USABLE,
                   FAKE_JUDGE_ENV_LOG=str(cls.log))
        env.pop("CUDA_VISIBLE_DEVICES", None)
        cls.p = subprocess.run([sys.executable, str(GRADE_CLASS), str(subs), "--out", str(cls.out), "--lab", "05",
                                "--judge", str(FAKE), "--timeout", "60", "--tier", "all", "--graded",
                                "--engine", "slurm", "--slurm-poll", "0.5", "--slurm-retries", str(cls.RETRIES)],
                               capture_output=True, text=True, timeout=300, env=env)
        cls.said = cls.p.stdout + cls.p.stderr
        cls.judged = [json.loads(l)["cuda"] for l in cls.log.read_text().splitlines()] if cls.log.is_file() else []
        cls.result = json.loads((cls.out / "results" / "ada" / "lab05.json").read_text())
        cls.book = read_csv(cls.out / "gradebook.csv")[0]
        cls.lms = next(r for r in read_csv(cls.out / "lms.csv") if r["Student"] == "ada")
        cls.status = read_csv(cls.out / "slurm" / "status.csv")[0]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def gpu_verdicts(self):
        return {v["status"] for v in self.result["verdicts"] if v["tier"] == "gpu"}

    def lab_cell(self):
        return self.book[next(c for c in self.book if c.startswith("lab05 ("))]


class AGpuThatCannotBeUsedThenOneThatCanIsGradedByTheRetry(Run):
    GPUS = [BROKEN, USABLE]

    def test_the_task_is_submitted_again_and_the_run_exits_zero(self):
        self.assertEqual(self.p.returncode, 0, self.said)
        self.assertRegex(self.p.stdout, r"ended FAILED .* without grading ada lab 05: submitting it again")
        self.assertEqual(self.judged, [BROKEN, USABLE])       # one judge on each task's GPU

    def test_the_grade_is_the_retrys_with_its_gpu_tests_judged(self):
        self.assertEqual(self.gpu_verdicts(), {"passed"})
        self.assertEqual(self.status["status"], "graded")
        self.assertEqual(self.book["lab05 complete"], "yes")
        self.assertEqual(float(self.lab_cell()), self.result["max_points"])
        self.assertEqual(float(self.lms["banklab lab 05"]), 100.0)


class NoTaskWithAUsableGpuIsNeverAGrade(Run):
    GPUS = [BROKEN]

    def test_it_is_submitted_again_then_reported_not_graded(self):
        self.assertEqual(self.p.returncode, bs.NOT_GRADED_EXIT, self.said)
        self.assertIn("submitting it again", self.p.stdout)
        self.assertEqual(self.judged, [BROKEN, BROKEN])
        self.assertEqual(self.status["status"], "not graded")
        self.assertIn("no GPU on this machine", self.status["why"])
        self.assertIn("ada lab 05", self.p.stderr)

    def test_no_number_anywhere(self):
        self.assertEqual(self.gpu_verdicts(), {"fault"})
        self.assertEqual((self.lab_cell(), self.book["lab05 complete"]), ("", "not graded"))
        self.assertEqual(self.lms["banklab lab 05"], "")


class WithoutRetriesOneTaskWithoutAUsableGpuIsNotGraded(Run):
    GPUS = [BROKEN, USABLE]
    RETRIES = 0

    def test_not_graded_after_the_one_task_never_a_grade(self):
        self.assertEqual(self.p.returncode, bs.NOT_GRADED_EXIT, self.said)
        self.assertNotIn("submitting it again", self.p.stdout)
        self.assertEqual(self.judged, [BROKEN])
        self.assertEqual((self.lab_cell(), self.book["lab05 complete"]), ("", "not graded"))
        self.assertEqual(self.lms["banklab lab 05"], "")


if __name__ == "__main__":
    unittest.main()
