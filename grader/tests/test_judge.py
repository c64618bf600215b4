#!/usr/bin/env python3
"""The judge fails closed: banklab-judge's own behaviour, on the real judge (no GPU needed).

  test_judge.py --judge build/dev/grader/banklab-judge --root .
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ARGS = None


def judge(*args, timeout=300):
    return subprocess.run([ARGS.judge, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)


class TheJudge(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="banklab-judge-test-")
        os.chmod(cls.tmp, 0o755)
        cls.solution = os.path.join(ARGS.root, "solutions", "05_swizzle", "kernel.cu")
        cls.work = os.path.join(cls.tmp, "solved")
        r = judge("build", "--lab", "05", "--source", cls.solution, "--work", cls.work)
        assert r.returncode == 0, r.stdout

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def copy_work(self, name):
        dst = os.path.join(self.tmp, name)
        shutil.copytree(self.work, dst)
        return dst

    def test_a_passing_test_writes_a_verdict_with_checks(self):
        results = os.path.join(self.tmp, "results-pass")
        r = judge("test", "--lab", "05", "--work", self.work, "--test", "Lab05Layout.TileIndexIsInBoundsAndOneToOne",
                  "--results", results)
        self.assertEqual(r.returncode, 0, r.stdout)
        with open(os.path.join(results, "lab05", "Lab05Layout.TileIndexIsInBoundsAndOneToOne.json")) as f:
            v = json.load(f)
        self.assertEqual(v["status"], "passed")
        self.assertGreater(v["checks"], 0)

    def test_missing_answers_fail_every_test(self):
        work = os.path.join(self.tmp, "empty")
        os.makedirs(work)
        r = judge("test", "--lab", "05", "--work", work, "--test", "Lab05Layout.TileIndexIsInBoundsAndOneToOne")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not judged", r.stdout)

    def test_garbled_answers_fail(self):
        work = self.copy_work("garbled")
        path = os.path.join(work, "answers.txt")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text[: len(text) // 2])  # cut: no end record
        r = judge("test", "--lab", "05", "--work", work, "--test", "Lab05Layout.TileIndexIsInBoundsAndOneToOne")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not judged", r.stdout)

    def test_answers_with_a_forged_end_count_fail(self):
        work = self.copy_work("forged")
        path = os.path.join(work, "answers.txt")
        with open(path) as f:
            lines = f.read().splitlines()
        lines[-1] = "end 1"
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        r = judge("test", "--lab", "05", "--work", work, "--test", "Lab05Layout.TileIndexIsInBoundsAndOneToOne")
        self.assertEqual(r.returncode, 1)

    def test_an_unknown_test_fails(self):
        r = judge("test", "--lab", "05", "--work", self.work, "--test", "Lab05Layout.NoSuchTest")
        self.assertEqual(r.returncode, 1)

    def test_graded_mode_turns_a_gpu_test_that_cannot_run_into_a_failure(self):
        plain = judge("test", "--lab", "05", "--work", self.work, "--test", "Lab05OnGpu.TransposeIsCorrectFor1024x1024")
        if plain.returncode != 77:
            self.skipTest("a GPU is here: the GPU test runs")
        graded = judge("test", "--lab", "05", "--work", self.work, "--test", "Lab05OnGpu.TransposeIsCorrectFor1024x1024",
                       "--graded")
        self.assertEqual(graded.returncode, 1, graded.stdout)

    def test_a_changed_fatbin_is_not_loaded(self):
        # What the GPU tier loads must be what the build compiled: the hash check refuses it.
        work = self.copy_work("swapped")
        with open(os.path.join(work, "kernel.fatbin"), "ab") as f:
            f.write(b"\0")
        r = judge("build", "--lab", "05", "--source", self.solution, "--work", work)
        self.assertEqual(r.returncode, 0, r.stdout)  # the stamp no longer matches: rebuilt from source
        with open(os.path.join(work, "kernel.fatbin.sha256")) as f:
            recorded = f.read().strip()
        import hashlib
        with open(os.path.join(work, "kernel.fatbin"), "rb") as f:
            self.assertEqual(hashlib.sha256(f.read()).hexdigest(), recorded)

    @unittest.skipUnless(os.geteuid() == 0, "only a root judge runs the probe as nobody")
    def test_as_root_a_work_folder_nobody_can_reach_still_grades(self):
        hidden = os.path.join(self.tmp, "hidden")
        os.makedirs(hidden)
        os.chmod(hidden, 0o700)
        r = judge("build", "--lab", "05", "--source", self.solution, "--work", os.path.join(hidden, "w"))
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_a_file_that_does_not_compile_fails_its_build_with_the_compilers_message(self):
        bad = os.path.join(self.tmp, "bad.cu")
        with open(self.solution) as f, open(bad, "w") as g:
            g.write(f.read() + "\nthis is not C++;\n")
        r = judge("build", "--lab", "05", "--source", bad, "--work", os.path.join(self.tmp, "badwork"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("does not compile", r.stdout)
        self.assertIn(bad, r.stdout)  # the student's path, not the judge's copy


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--root", required=True)
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0], "-v", *rest])
