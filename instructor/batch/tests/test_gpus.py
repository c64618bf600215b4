"""Every GPU of the node (issue 33): grade-class spreads its judges over the GPUs it sees, each judge
started with CUDA_VISIBLE_DEVICES naming one GPU, -j N over G GPUs at most ceil(N / G) judges on
each at once; a Slurm task given several GPUs grades on all of them; with no GPU, or the CPU tier,
the judge's environment is left as it is. On this GPU-less machine, with a fake `nvidia-smi` on
PATH and the judge's test double (fake_judge.py, which records the environment it was started
with: FAKE_JUDGE_ENV_LOG).

  python3 -m unittest -v test_gpus
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
from banklab.grading import gpus as banklab_gpus    # noqa: E402
from batch_common import FAKE, GRADE_CLASS, fake_slurm_env  # noqa: E402

UUID_A = "GPU-6f1c0a4e-0000-4a3b-9c1d-00000000000a"
UUID_B = "GPU-6f1c0a4e-0000-4a3b-9c1d-00000000000b"
SMI_TWO = (f"GPU 0: NVIDIA H100 80GB HBM3 (UUID: {UUID_A})\n"
           f"GPU 1: NVIDIA H100 80GB HBM3 (UUID: {UUID_B})\n")
SMI_MIG = (f"GPU 0: NVIDIA A100-SXM4-40GB (UUID: {UUID_A})\n"
           "  MIG 3g.20gb     Device  0: (UUID: MIG-aaaa-1)\n"
           "  MIG 3g.20gb     Device  1: (UUID: MIG-aaaa-2)\n"
           f"GPU 1: NVIDIA A100-SXM4-40GB (UUID: {UUID_B})\n")


def max_at_once(runs: list[dict], gpu) -> int:
    """The most judges on `gpu` running at the same moment (from their start and end times)."""
    events = sorted([(r["start"], 1) for r in runs if r["cuda"] == gpu] +
                    [(r["end"], -1) for r in runs if r["cuda"] == gpu], key=lambda e: (e[0], e[1]))
    n = best = 0
    for _, d in events:
        n += d
        best = max(best, n)
    return best


class WhichGpusAreSeen(unittest.TestCase):
    def test_nvidia_smi_by_uuid_and_a_mig_gpu_by_its_instances(self):
        self.assertEqual(banklab_gpus.from_nvidia_smi(SMI_TWO), [UUID_A, UUID_B])
        self.assertEqual(banklab_gpus.from_nvidia_smi(SMI_MIG), ["MIG-aaaa-1", "MIG-aaaa-2", UUID_B])
        self.assertEqual(banklab_gpus.from_nvidia_smi("No devices were found\n"), [])

    def test_cuda_visible_devices_first_and_what_names_no_gpu(self):
        self.assertEqual(banklab_gpus.from_visible_devices("0,1"), ["0", "1"])
        self.assertEqual(banklab_gpus.from_visible_devices(f" {UUID_B} , 3"), [UUID_B, "3"])
        self.assertEqual(banklab_gpus.from_visible_devices("2,-1,3"), ["2"], "CUDA ignores what follows -1")
        for none in ("", "NoDevFiles", "-1"):
            self.assertEqual(banklab_gpus.from_visible_devices(none), [], none)
        # Set (as Slurm sets it for the task's GPUs): nvidia-smi, which lists the whole node, is not asked.
        self.assertEqual(banklab_gpus.discover({"CUDA_VISIBLE_DEVICES": "1", "PATH": "/nonexistent"}), ["1"])
        self.assertEqual(banklab_gpus.discover({"PATH": "/nonexistent"}), [], "no nvidia-smi: no GPU")

    def test_the_least_loaded_gpu_and_at_most_a_fair_share_on_each(self):
        pool = banklab_gpus.GpuPool(["a", "b"])
        got, at_once, lock = [], {"a": 0, "b": 0}, threading.Lock()
        most = {"a": 0, "b": 0}

        def judge(k):
            with pool.one() as g:
                with lock:
                    got.append(g)
                    at_once[g] += 1
                    most[g] = max(most[g], at_once[g])
                time.sleep(0.02 + 0.01 * (k % 3))
                with lock:
                    at_once[g] -= 1
        # -j 4: four workers, each grading every fourth submission
        workers = [threading.Thread(target=lambda w=w: [judge(i) for i in range(w, 24, 4)]) for w in range(4)]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
        self.assertEqual(len(got), 24)
        self.assertEqual(most, {"a": 2, "b": 2}, "-j 4 over 2 GPUs: two judges on each, never three")
        self.assertEqual(pool.running, [0, 0])
        one = banklab_gpus.GpuPool(["only"])
        with one.one() as g:
            self.assertIsNone(g, "one GPU: the environment is left as it is")


class Tmp(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-gpus-"))
        cls.tmp.chmod(0o755)
        cls.subs = cls.tmp / "subs"
        for i in range(8):
            (cls.subs / f"student{i}").mkdir(parents=True)
            (cls.subs / f"student{i}" / "kernel.cu").write_text(f"// FAKE-JUDGE: solved\n// {i}\n")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def env(self, smi: str | None, **extra) -> dict:
        """This environment, CUDA_VISIBLE_DEVICES removed, with a fake nvidia-smi printing `smi`
        (None: an nvidia-smi that fails, as on a machine without a driver)."""
        bin_ = Path(tempfile.mkdtemp(dir=self.tmp, prefix="bin-"))
        script = bin_ / "nvidia-smi"
        if smi is None:
            script.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the "
                              "NVIDIA driver.' >&2\nexit 9\n")
        else:
            (bin_ / "smi.txt").write_text(smi)
            script.write_text(f"#!/bin/sh\n[ \"$1\" = -L ] || exit 2\ncat '{bin_ / 'smi.txt'}'\n")
        script.chmod(0o755)
        env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
        env.update(PATH=f"{bin_}:{env['PATH']}", FAKE_JUDGE_ENV_LOG=str(bin_ / "judges.jsonl"),
                   FAKE_JUDGE_SECONDS="0.3", **extra)
        return env

    def grade(self, env: dict, *args) -> list[dict]:
        out = Path(tempfile.mkdtemp(dir=self.tmp, prefix="out-"))
        p = subprocess.run([sys.executable, str(GRADE_CLASS), str(self.subs), "--out", str(out), "--lab", "05",
                            "--judge", str(FAKE), "--timeout", "60", "--quiet", *args],
                           capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("8 graded", p.stdout)
        log = Path(env["FAKE_JUDGE_ENV_LOG"])
        runs = [json.loads(l) for l in log.read_text().splitlines()] if log.is_file() else []
        self.assertEqual(len(runs), 8, "one judge per submission, each recorded")
        return runs


class GradeClassSpreadsItsJudges(Tmp):
    def test_j4_over_two_gpus_gives_each_gpu_its_share(self):
        runs = self.grade(self.env(SMI_TWO), "-j", "4", "--tier", "all")
        given = sorted(str(r["cuda"]) for r in runs)
        self.assertEqual(given, [UUID_A] * 4 + [UUID_B] * 4, "each judge names one GPU, half of them each")
        for g in (UUID_A, UUID_B):
            self.assertEqual(max_at_once(runs, g), 2, f"-j 4 over 2 GPUs: 2 judges at once on {g}")

    def test_cuda_visible_devices_chooses_the_gpus(self):
        runs = self.grade(self.env(SMI_TWO, CUDA_VISIBLE_DEVICES="1,0"), "-j", "2", "--tier", "gpu")
        self.assertEqual(sorted(r["cuda"] for r in runs), ["0"] * 4 + ["1"] * 4)

    def test_no_gpu_and_the_cpu_tier_leave_the_environment_alone(self):
        runs = self.grade(self.env(None), "-j", "4", "--tier", "all")
        self.assertEqual({r["cuda"] for r in runs}, {None}, "no GPU: no CUDA_VISIBLE_DEVICES")
        runs = self.grade(self.env(SMI_TWO), "-j", "4", "--tier", "cpu")
        self.assertEqual({r["cuda"] for r in runs}, {None}, "the CPU tier uses no GPU")


class ASlurmTaskGivenTwoGpusUsesBoth(Tmp):
    def test_its_judges_spread_over_the_gpus_slurm_gave_it(self):
        # What Slurm sets in a task that asked for two GPUs (--gpus-per-task=2): CUDA_VISIBLE_DEVICES;
        # nvidia-smi fails here, so only that variable can have named them.
        slurm = fake_slurm_env(self.tmp)
        env = self.env(None, CUDA_VISIBLE_DEVICES="2,3", FAKE_SLURM_DIR=slurm["FAKE_SLURM_DIR"])
        env["PATH"] = slurm["PATH"].split(":")[0] + ":" + env["PATH"]
        one_task = ["--engine", "slurm", "--slurm-poll", "0.5", "--slurm-shard", "8"]
        runs = self.grade(env, "--tier", "all", "--slurm-arg=--gpus-per-task=2", *one_task)
        self.assertEqual(sorted(r["cuda"] for r in runs), ["2"] * 4 + ["3"] * 4)
        for g in ("2", "3"):
            self.assertEqual(max_at_once(runs, g), 1, f"one judge at a time on GPU {g} (one CPU given)")
        self.assertEqual(max_at_once([dict(r, cuda="any") for r in runs], "any"), 2,
                         "the task runs a judge on each of its two GPUs at once")
        task_log = next((self.tmp / "slurm-state").parent.glob("out-*/slurm/*/task-0.out")).read_text()
        self.assertIn("8 submission(s), 2 at a time", task_log)


if __name__ == "__main__":
    unittest.main()
