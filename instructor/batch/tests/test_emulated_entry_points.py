"""Grading where there is no GPU (issue 47), with the real judge ($BANKLAB_JUDGE) on a machine
without one: lab 00's solution and its untouched stub, `--tier all`, through every entry point
that grades a class or a platform's submission: grade-class (local, and its Slurm tasks on a test
double of Slurm that runs them here), Gradescope's and PrairieLearn's adapter (grade-platform on
fake roots), and graded mode with and without --emulate-gpu. The platforms' default grade
(no --tier) is the GPU tier, graded, on the emulator here (--tier all --graded --emulate-gpu);
their cpu-only setting (--tier cpu) still grades the CPU tier alone. A result kept by grade-class
is reused only on the device it was judged on: one judged on the emulator is judged again where the
emulator may not judge (BANKLAB_EMULATE=0), and the other way round.

What is expected is not copied from a run: the lab's GPU tests are the judge's own list
(`banklab-judge list`); every GPU verdict is the emulator's (`"emulated": true`); the solution passes
every GPU test the emulator judges and its timing tests are "not judged (needs a GPU)", never
failed, so it earns the lab's maximum less their points (the points table's defaults); the stub
fails the traced test (the objective group's); and each report says which tests were emulated.
Lab 00 because it is the fastest lab (three emulated GPU tests).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from banklab.lab import labs as banklab_labs   # noqa: E402
from banklab.grading import invocation          # noqa: E402
from banklab.grading import points as bpt        # noqa: E402
from banklab.grading import status as bs         # noqa: E402
from banklab.grading.result import EMULATOR_TIMING_SKIP, LabResult   # noqa: E402
from batch_common import GRADE_CLASS, PLATFORM, ROOT, fake_slurm_env, read_csv   # noqa: E402

JUDGE = os.environ.get("BANKLAB_JUDGE")
LAB = "00"
SLURM = ["--engine", "slurm", "--slurm-poll", "0.5", "--slurm-shard", "1"]


def gpu_present() -> bool:
    return any(Path(p).exists() for p in ("/dev/nvidia0", "/dev/nvidiactl", "/proc/driver/nvidia/gpus"))


@unittest.skipUnless(JUDGE, "BANKLAB_JUDGE is not set: the real judge is not built")
@unittest.skipUnless((ROOT / "solutions").is_dir(), "no solutions/ (a student release)")
@unittest.skipIf(gpu_present(), "this machine has a GPU: the GPU tier is judged on it, not on the emulator")
class EmulatedGradingThroughEveryEntryPoint(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-emulated-"))
        cls.tmp.chmod(0o755)   # run as root, the judge's probe runs as nobody and must reach it
        folder = banklab_labs.find_labs(ROOT)[LAB].folder
        cls.kernels = {"ada": (ROOT / "solutions" / folder / "kernel.cu").read_bytes(),   # the solution
                       "bob": (ROOT / "labs" / folder / "kernel.cu").read_bytes()}        # the untouched stub
        subs = cls.tmp / "subs"
        for who, src in cls.kernels.items():
            (subs / who).mkdir(parents=True)
            (subs / who / "kernel.cu").write_bytes(src)
        cls.env = {k: v for k, v in os.environ.items() if k != "BANKLAB_EMULATE"}   # the default: no GPU, emulate
        cls.table = bpt.load_points(ROOT, LAB)
        cls.gpu = [t for t, tier in invocation.list_tests(Path(JUDGE), LAB) if tier == "gpu"]
        cls.traced = [t for t in cls.gpu if cls.table.group_of(t) == "objective"]

        def grade_class(out, *args, env=None):
            return subprocess.run([sys.executable, str(GRADE_CLASS), str(subs), "--out", str(cls.tmp / out), "--lab", LAB,
                                   "--tier", "all", "-j", "2", "--judge", JUDGE, *args], capture_output=True, text=True,
                                  timeout=1500, env=env or cls.env)
        cls.local = grade_class("local")
        slurm_env = fake_slurm_env(cls.tmp)
        slurm_env.pop("BANKLAB_EMULATE", None)
        cls.slurm = grade_class("slurm", *SLURM, env=slurm_env)
        cls.graded = grade_class("graded", "--graded")
        cls.platform = {}
        # The platforms' default (no --tier): the GPU tier, graded, here on the emulator; then their
        # cpu-only setting (--tier cpu, BANKLAB_GRADE_ARGS); then the default where the emulator may not
        # judge (BANKLAB_EMULATE=0, a machine without a GPU): graded mode, so not graded, never a score.
        runs = [(plat, who, setting) for plat in ("gradescope", "prairielearn") for who in cls.kernels
                for setting in ("default", "cpu")] + [("gradescope", "ada", "no-emulator")]
        for plat, who, setting in runs:
            sub = {"gradescope": "submission", "prairielearn": "student"}[plat]
            root = cls.tmp / f"{plat}-{who}-{setting}"
            (root / sub).mkdir(parents=True)
            (root / sub / "kernel.cu").write_bytes(cls.kernels[who])
            if plat == "prairielearn":      # the question's data: its lab and the variant (lab 00's as written)
                (root / "data").mkdir()
                (root / "data" / "data.json").write_text(json.dumps({"params": {"banklab_lab": LAB,
                                                                               "banklab_variant": 0}}))
            p = subprocess.run([sys.executable, str(PLATFORM), plat, "--root", str(root), "--lab", LAB, "--judge", JUDGE]
                               + (["--tier", "cpu"] if setting == "cpu" else []), capture_output=True, text=True,
                               timeout=1500, env=dict(cls.env, BANKLAB_EMULATE="0") if setting == "no-emulator" else cls.env)
            f = root / "results" / "results.json"
            cls.platform[plat, who, setting] = (p, json.loads(f.read_text()) if f.is_file() else None)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def result(self, out: str, who: str) -> LabResult:
        return LabResult.from_json(json.loads((self.tmp / out / "results" / who / f"lab{LAB}.json").read_text()))

    def check_emulated(self, r: LabResult, solution: bool):
        """Every GPU verdict the emulator's; timing skipped, never failed; the solution passes the rest
        (its points: the maximum less the timing tests'), the stub fails the traced test."""
        gpu = {v.test: v for v in r.verdicts if v.tier == "gpu"}
        self.assertEqual(sorted(gpu), sorted(self.gpu))
        self.assertTrue(all(v.emulated for v in gpu.values()), [(v.test, v.emulated) for v in gpu.values()])
        timing = [v for v in gpu.values() if v.status == "skipped"]
        self.assertTrue(timing, "lab 00 has timing tests, which the emulator cannot judge")
        for v in timing:
            self.assertTrue(v.message.startswith(EMULATOR_TIMING_SKIP), v.message)   # the judge's words, Python's rule
            self.assertTrue(v.timing_on_emulator)
        judged = [v for v in gpu.values() if v.status != "skipped"]
        self.assertEqual(sorted(v.test for v in r.emulated), sorted(v.test for v in judged))
        self.assertTrue(self.traced and set(self.traced) <= {v.test for v in judged})
        if solution:
            self.assertEqual([v.test for v in judged if v.status != "passed"], [])
            self.assertAlmostEqual(r.points, r.max_points - sum(v.max_points for v in timing), places=3)
            self.assertTrue(all(v.points == v.max_points > 0 for v in judged if v.test in self.traced))
        else:
            for t in self.traced:
                self.assertEqual(gpu[t].status, "failed", gpu[t].message)
                self.assertIn("wavefronts", gpu[t].message)
        self.assertFalse(r.complete)       # timing not judged: the grade says so
        self.assertIn("timing needs a GPU", r.incomplete_line())

    def check_class(self, out: str, p: subprocess.CompletedProcess):
        self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-3000:])
        for who in self.kernels:
            self.check_emulated(self.result(out, who), who == "ada")
        book = {r["student"]: r for r in read_csv(self.tmp / out / "gradebook.csv")}
        results = {r["student"]: r for r in read_csv(self.tmp / out / "results.csv")}
        for who in self.kernels:
            r = self.result(out, who)
            self.assertEqual(book[who][f"lab{LAB} emulated"], str(len(r.emulated)))
            self.assertEqual(results[who]["emulated_tests"], ";".join(v.test for v in r.emulated))
            self.assertIn(r.emulated_line(), (self.tmp / out / "feedback" / f"{who}.md").read_text())
        self.assertLessEqual(set(self.traced), set(results["bob"]["failed_tests"].split(";")))

    def test_grade_class_judges_the_gpu_tier_on_the_emulator(self):
        self.check_class("local", self.local)

    def test_a_slurm_task_judges_it_on_the_emulator_too(self):
        self.check_class("slurm", self.slurm)

    def test_graded_mode_needs_a_gpu_unless_the_instructor_lets_the_emulator_stand_in(self):
        p = self.graded
        self.assertEqual(p.returncode, 4, p.stdout[-2000:] + p.stderr[-3000:])
        self.assertIn("--emulate-gpu", p.stderr)
        self.assertIn("ada lab 00: not graded: no GPU on this machine", p.stderr)
        emu = subprocess.run([sys.executable, str(GRADE_CLASS), str(self.tmp / "subs"), "--out", str(self.tmp / "graded"),
                              "--lab", LAB, "--tier", "all", "--graded", "--emulate-gpu", "-j", "2", "--judge", JUDGE],
                             capture_output=True, text=True, timeout=1500, env=self.env)
        self.assertEqual(emu.returncode, 0, emu.stdout[-2000:] + emu.stderr[-3000:])
        for who in self.kernels:
            r = self.result("graded", who)
            self.assertEqual(r.not_graded, "")
            self.check_emulated(r, who == "ada")
            self.assertAlmostEqual(r.points, self.result("local", who).points, places=3)
        self.assertEqual(read_csv(self.tmp / "graded" / "not-graded.csv"), [])

    def test_gradescope_marks_the_emulated_tests_and_has_no_failed_line_for_timing(self):
        for who in self.kernels:
            p, d = self.platform["gradescope", who, "default"]
            self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-3000:])
            names = {t["name"]: t for t in d["tests"]}
            for t in self.gpu:
                line = names.get(f"lab{LAB} {t}")
                if line is None:            # not judged: in the one "not judged here" line, never failed
                    continue
                self.assertEqual(line.get("tags"), ["emulated"], line)
                self.assertIn("judged on the emulator", line["output"])
            missing = [t for t in self.gpu if f"lab{LAB} {t}" not in names]
            self.assertTrue(missing)
            self.assertTrue(any("not judged here" in n for n in names))
            self.assertIn("were judged on the emulator", d["output"])
            self.assertAlmostEqual(d["score"], sum(t["score"] for t in d["tests"]), places=2)
            traced = [names[f"lab{LAB} {t}"] for t in self.traced]
            self.assertEqual({t["status"] for t in traced}, {"passed" if who == "ada" else "failed"})

    def test_prairielearn_marks_the_emulated_tests_and_scores_the_judged_ones(self):
        for who in self.kernels:
            p, d = self.platform["prairielearn", who, "default"]
            self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-3000:])
            self.assertTrue(d["gradable"])
            self.assertIn("(GPU tier on the emulator)", d["message"])
            words = {t["name"].split(" ", 1)[1]: t["message"] for t in d["tests"]}
            for t in self.traced:
                self.assertEqual(words[t], ("passed" if who == "ada" else "FAILED") + " (on the emulator)")
            self.assertIn("not judged (needs a GPU)", words.values())
            self.assertAlmostEqual(d["score"], d["points"] / d["max_points"], places=5)

    def test_the_platforms_default_is_graded_mode(self):
        # Where the emulator may not stand in and there is no GPU, the default grade is a fault (graded
        # mode needs the GPU tier judged): no results.json, not a 0; on a GPU host it is judged there.
        p, d = self.platform["gradescope", "ada", "no-emulator"]
        self.assertEqual(p.returncode, bs.NOT_GRADED_EXIT, p.stdout[-2000:] + p.stderr[-3000:])
        self.assertIsNone(d, "graded mode without a GPU wrote a score")
        self.assertIn("NOT GRADED", p.stderr)

    def test_the_cpu_only_setting_still_grades_the_cpu_tier_alone(self):
        listed = invocation.list_tests(Path(JUDGE), LAB)
        alloc = self.table.allocate(t for t, _ in listed)
        cpu_points = sum(alloc[t] for t, tier in listed if tier == "cpu")
        for who in self.kernels:
            p, d = self.platform["gradescope", who, "cpu"]
            self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-3000:])
            self.assertFalse([t for t in d["tests"] if "emulated" in (t.get("tags") or [])], d["tests"])
            self.assertFalse([t for t in self.gpu if f"lab{LAB} {t}" in {x["name"] for x in d["tests"]}])
            self.assertIn("Incomplete grade", d["output"])
            self.assertNotIn("judged on the emulator", d["output"])
            if who == "ada":
                self.assertAlmostEqual(d["score"], cpu_points, places=2)
            p, d = self.platform["prairielearn", who, "cpu"]
            self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-3000:])
            self.assertTrue(d["gradable"])
            self.assertNotIn("on the emulator", json.dumps(d))
            self.assertIn("incomplete", d["message"])

    def test_a_kept_result_is_reused_only_on_the_device_it_was_judged_on(self):
        out = self.tmp / "devices"
        shutil.copytree(self.tmp / "local", out)        # the emulated grade of the class, kept

        def again(**env):
            p = subprocess.run([sys.executable, str(GRADE_CLASS), str(self.tmp / "subs"), "--out", str(out), "--lab", LAB,
                                "--tier", "all", "-j", "2", "--judge", JUDGE], capture_output=True, text=True,
                               timeout=1500, env=dict(self.env, **env))
            self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-3000:])
            return p.stdout
        said = again()                                   # the same device: reused
        self.assertIn("0 graded, 2 unchanged and reused", said)
        said = again(BANKLAB_EMULATE="0")                # no GPU and no emulator: judged again, not emulated
        self.assertIn("2 graded, 0 unchanged and reused", said)
        for who in self.kernels:
            gpu = [v for v in self.result("devices", who).verdicts if v.tier == "gpu"]
            self.assertEqual(sorted(v.test for v in gpu), sorted(self.gpu))
            self.assertFalse([v.test for v in gpu if v.emulated or v.status != "skipped"])
        said = again()                                   # the emulator again: never the GPU-less results
        self.assertIn("2 graded, 0 unchanged and reused", said)
        for who in self.kernels:
            self.check_emulated(self.result("devices", who), who == "ada")


if __name__ == "__main__":
    unittest.main(verbosity=2)
