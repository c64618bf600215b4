#!/usr/bin/env python3
"""grade's tests in as few processes as isolation allows give the records each test gets in a
process of its own (issue 33; grader/judge/process_groups.cpp), on the real judge, without a GPU:
lab 05's stub graded (its GPU tests faults) and lab 02's solution plain (its GPU tests skipped: with
BANKLAB_EMULATE=0, not on the emulator), --tier all, grouped and with BANKLAB_JUDGE_ONE_TEST_PER_PROCESS=1;
and `test` with several tests.

  test_grouped.py --judge build/dev/grader/banklab-judge --root .
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ARGS = None


def grade(lab, source, work, alone, graded):
    # BANKLAB_EMULATE=0: the GPU tests skip without a GPU (by default they would run on the emulator).
    env = {k: v for k, v in os.environ.items() if k != "BANKLAB_JUDGE_ONE_TEST_PER_PROCESS"}
    env["BANKLAB_EMULATE"] = "0"
    if alone:
        env["BANKLAB_JUDGE_ONE_TEST_PER_PROCESS"] = "1"
    out = work + ".json"
    r = subprocess.run([ARGS.judge, "grade", "--lab", lab, "--source", source, "--work", work, "--json", out,
                        "--tier", "all"] + (["--graded"] if graded else []),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout
    verdicts = json.loads(Path(out).read_text())["verdicts"]
    processes = sorted(p.name for p in Path(work, "logs").glob("*.process.log"))
    return [{k: v for k, v in x.items() if k != "seconds"} for x in verdicts], processes


class GroupedOrAlone(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="banklab-grouped-")
        os.chmod(cls.tmp, 0o755)
        cls.root = Path(ARGS.root)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def both(self, lab, folder, kind, graded):
        src = str(self.root / kind / folder / "kernel.cu")
        name = f"{lab}-{kind}"
        grouped, gp = grade(lab, src, os.path.join(self.tmp, name + "-grouped"), False, graded)
        alone, ap = grade(lab, src, os.path.join(self.tmp, name + "-alone"), True, graded)
        self.assertEqual(grouped, alone)
        tests = [v["test"] for v in grouped if not v["test"].endswith(".Build")]
        # The switch is real: every test in a process of its own, or a process per kind of test.
        self.assertEqual(ap, sorted(t + ".process.log" for t in tests))
        self.assertEqual(gp, ["cpu.process.log", "gpu.process.log", "traced.process.log"])
        return grouped

    def test_a_graded_stub_gets_the_same_records_grouped_and_alone(self):
        v = self.both("05", "05_swizzle", "labs", True)
        statuses = {x["status"] for x in v}
        self.assertIn("fault", statuses)   # its GPU tests, here without a GPU
        self.assertIn("failed", statuses)  # the stub's own failures
        self.assertIn("passed", statuses)

    def test_a_solution_gets_the_same_records_grouped_and_alone(self):
        v = self.both("02", "02_broadcast", "solutions", False)
        self.assertEqual({x["status"] for x in v if x["tier"] == "cpu"}, {"passed"})
        self.assertEqual({x["status"] for x in v if x["tier"] == "gpu"}, {"skipped"})

    def test_test_takes_several_tests_and_writes_a_record_and_a_log_for_each(self):
        work = os.path.join(self.tmp, "02-solutions-grouped")
        if not os.path.isdir(work):
            self.both("02", "02_broadcast", "solutions", False)
        listed = subprocess.run([ARGS.judge, "list", "--lab", "02"], capture_output=True, text=True).stdout.split("\n")
        cpu = [line.split()[1] for line in listed if line.endswith(" cpu")]
        results, logs = os.path.join(self.tmp, "several"), os.path.join(self.tmp, "several-logs")
        r = subprocess.run([ARGS.judge, "test", "--lab", "02", "--work", work, "--results", results, "--logs", logs,
                            "--tests", ",".join(cpu[:3]), "--test", cpu[3], "--test", "Lab02Layout.NoSuchTest"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        self.assertEqual(r.returncode, 1, r.stdout)  # one record failed: the unknown test
        for t in cpu[:4]:
            rec = json.loads(Path(results, "lab02", t + ".json").read_text())
            self.assertEqual((rec["test"], rec["status"]), (t, "passed"))
            log = Path(logs, t + ".log").read_text()
            self.assertTrue(log.startswith(f"[ RUN      ] {t}\n"), log)  # its own output only
            self.assertIn(f"banklab-judge [ PASSED ] lab02.{t} ", log)
        rec = json.loads(Path(results, "lab02", "Lab02Layout.NoSuchTest.json").read_text())
        self.assertEqual(rec["message"], "lab 02 has no test Lab02Layout.NoSuchTest")
        r = subprocess.run([ARGS.judge, "test", "--lab", "02", "--work", work, "--results", results,
                            "--tests", ",".join(cpu[:2])], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout)  # every one passed
        # The tracer slows every kernel of its process: a traced test never shares one with a timed test.
        r = subprocess.run([ARGS.judge, "test", "--lab", "02", "--work", work, "--results", results,
                            "--test", "Lab02OnGpu.TracedSharedAccessesAreConflictFree",
                            "--test", "Lab02OnGpu.EvaluationMeetsTheKernelTimingTarget"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn("cannot share a process", r.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--root", required=True)
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
