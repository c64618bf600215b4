#!/usr/bin/env python3
"""The line that ends every lab's run (grader/run_summary.py), on verdict records made here.

  test_run_summary.py --root ROOT      (CTest: judge.RunSummaryLine)

Records as the judge writes them (banklab.verdict.v1): a student's machine without a GPU (the
GPU tests skipped), GPU tests judged on the emulator (said so), the student release (predictions skipped, "graded by your instructor"), a
`fault` (not graded: REASON), a failed build, and missing evidence (no build record; a record
that does not read), each with the line it must give.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = ROOT / "grader" / "run_summary.py"


def record(test, tier, status, message=""):
    return {"schema": "banklab.verdict.v1", "lab": "05", "test": test, "tier": tier, "status": status,
            "checks": 1 if status != "skipped" else 0, "seconds": 0.1, "message": message}


class RunSummary(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.results = Path(self.tmp.name) / "results"
        self.lab = self.results / "lab05"
        self.lab.mkdir(parents=True)
        self.tests = []

    def tearDown(self):
        self.tmp.cleanup()

    def put(self, *recs):
        for r in recs:
            (self.lab / f"{r['test']}.json").write_text(json.dumps(r))
            if r["test"] != "Lab05.Build":
                self.tests.append(r["test"])

    def run_summary(self, *extra):
        tf = Path(self.tmp.name) / "lab05.tests"
        tf.write_text("\n".join(self.tests) + "\n")
        return subprocess.run([sys.executable, SUMMARY, "--lab", "05", "--results", self.results, "--tests", tf,
                               "--root", ARGS.root, *extra], capture_output=True, text=True, timeout=60)

    def test_no_gpu_on_a_students_machine(self):
        self.put(record("Lab05.Build", "cpu", "passed"),
                 record("Lab05Layout.TileIndexIsInBoundsAndOneToOne", "cpu", "passed"),
                 record("Lab05Layout.ColumnReadsOfTheTileAreConflictFree", "cpu", "failed", "not conflict-free"),
                 record("Lab05OnGpu.TransposeIsCorrect", "gpu", "skipped", "CUDA driver version is insufficient"),
                 record("Lab05OnGpu.TracedColumnReads", "gpu", "skipped", "no GPU"))
        r = self.run_summary()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        line = r.stdout.strip().splitlines()[-1]
        self.assertIn("lab05 judged: CPU tier 2 tests (1 passed, 1 failed)", line)
        self.assertIn("never runs your kernel", line)
        self.assertIn("not judged: 2 tests", line)
        self.assertIn("no GPU on this machine", line)
        self.assertRegex(line, r"not judged: 2 tests, [0-9.]+ of [0-9.]+ points: no GPU")
        self.assertNotIn("CUDA driver", line)

    def test_tests_judged_on_the_emulator_are_said(self):
        emulated = [record("Lab05OnGpu.TransposeIsCorrect", "gpu", "passed"),
                    record("Lab05OnGpu.TracedColumnReads", "gpu", "failed", "not conflict-free"),
                    record("Lab05OnGpu.TransposeMeetsTheKernelTimingTarget", "gpu", "skipped",
                           "needs a GPU: this test times kernels, and the emulator runs them but does not time them")]
        for r in emulated:
            r["emulated"] = True
        self.put(record("Lab05.Build", "cpu", "passed"), record("Lab05OnGpu.Float4TransposeIsCorrect", "gpu", "passed"),
                 *emulated)
        r = self.run_summary()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        line = r.stdout.strip().splitlines()[-1]
        self.assertIn("GPU tier 3 tests (2 passed, 1 failed; 2 on the emulator, not a GPU)", line)
        self.assertIn("not judged: 1 test", line)
        self.assertIn("needs a GPU: this test times kernels", line)
        self.assertNotIn("never runs your kernel", line)
        # a long reason is cut between words, and says so (the judge's own words: ".. runs th." before)
        long_why = "needs a GPU: this test times kernels, and the emulator (banklab emulator: sm_90 PTX run warp by warp on the CPU) runs them but does not time them"
        emulated[2]["message"] = long_why
        self.put(record("Lab05.Build", "cpu", "passed"), *emulated)
        line = self.run_summary().stdout.strip().splitlines()[-1]
        self.assertRegex(line, r"needs a GPU: this test times kernels, .* \.\.\.\.?$")
        cut = line.split("needs a GPU: ", 1)[1].removesuffix(".").removesuffix(" ...")
        self.assertTrue(long_why.split("needs a GPU: ", 1)[1].startswith(cut + " "), line)

    def test_the_release_says_the_instructor_checks_predictions(self):
        self.put(record("Lab05.Build", "cpu", "passed"),
                 record("Lab05Predictions.StoredColumnOfRow5Col3IsPredicted", "cpu", "skipped",
                        "this copy of the course has no answers (they stay with your instructor): ..."))
        line = self.run_summary().stdout.strip()
        self.assertIn("predictions checked by your instructor", line)

    def test_the_variant_graded_is_said_when_the_files_line_is_not_the_students(self):
        # In a student's release labNN.build writes the judge's word beside the records (variant.txt).
        said = ("graded as variant 4 (col = 9, chunk = 2), your own; this file carries no `// banklab variant:` "
                "line (the lab as written's file has none): ...")
        (self.lab / "variant.txt").write_text(said + "\n")
        self.put(record("Lab05.Build", "cpu", "passed"),
                 record("Lab05Layout.TileIndexIsInBoundsAndOneToOne", "cpu", "failed", "Float4TileKept"))
        line = self.run_summary().stdout.strip()
        self.assertIn("lab05 judged: CPU tier 1 test (0 passed, 1 failed); graded as variant 4 (col = 9, chunk = 2), "
                      "your own; this file carries no `// banklab variant:` line", line)
        # ... and with a build that failed.
        self.put(record("Lab05.Build", "cpu", "failed", "error: expected ';'"))
        self.assertIn("probe failed (see lab05.build); graded as variant 4", self.run_summary().stdout)
        # A word an earlier build left (the judge removes it when it has nothing to say) is not this run's.
        old = time.time() - 60
        os.utime(self.lab / "variant.txt", (old, old))
        self.assertNotIn("variant", self.run_summary().stdout)

    def test_a_fault_is_not_graded_with_its_reason(self):
        self.put(record("Lab05.Build", "cpu", "passed"),
                 record("Lab05OnGpu.TransposeIsCorrect", "gpu", "fault", "graded mode: the GPU cannot be used here"))
        r = self.run_summary()
        self.assertEqual(r.returncode, 0)
        self.assertIn("not graded: graded mode: the GPU cannot be used here", r.stdout)

    def test_a_failed_build_says_nothing_was_judged(self):
        self.put(record("Lab05.Build", "cpu", "failed", "error: expected ';'"))
        self.assertIn("nothing judged: your kernel.cu did not build", self.run_summary().stdout)

    def test_missing_evidence_fails(self):
        r = self.run_summary()
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("no build record", r.stdout)
        self.put(record("Lab05.Build", "cpu", "passed"))
        (self.lab / "Lab05Layout.X.json").write_text("{garbled")
        r = self.run_summary()
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("evidence missing", r.stdout)

    def test_records_of_an_earlier_run_do_not_count(self):
        self.put(record("Lab05Layout.Old", "cpu", "failed"))
        old = time.time() - 3600
        os.utime(self.lab / "Lab05Layout.Old.json", (old, old))
        self.put(record("Lab05.Build", "cpu", "passed"))
        line = self.run_summary().stdout
        self.assertIn("judged: no test", line)
        self.assertIn("1 test not run in this ctest run", line)

    def test_post_prints_one_line_per_lab_of_this_run(self):
        self.put(record("Lab05.Build", "cpu", "passed"), record("Lab05Layout.A", "cpu", "passed"))
        r = subprocess.run([sys.executable, SUMMARY, "--post", "--results", self.results, "--root", ARGS.root],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.stdout, "")     # no stamp: no ctest run of ours
        (self.results / ".ctest-start").touch()
        old = time.time() - 60
        os.utime(self.results / ".ctest-start", (old, old))
        r = subprocess.run([sys.executable, SUMMARY, "--post", "--results", self.results, "--root", ARGS.root],
                           capture_output=True, text=True, timeout=60)
        self.assertIn("lab05 judged: CPU tier 1 test (1 passed, 0 failed)", r.stdout)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(ROOT))
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0], *rest])
