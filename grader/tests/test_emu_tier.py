#!/usr/bin/env python3
"""The GPU tier without a GPU (issue 47; docs/dev/EMULATOR.md, "One harness, two devices"): the
judge's own GPU tests of a lab whose description says [gpu] emulated = true (labs/NN_name/judge/
test.cu, unchanged), run on the emulator where BANKLAB_EMULATE=1, through the judge's emulated twin
(banklab-judge-labNN-emu), on a machine without a GPU (CI):

- the lab's solution passes every GPU test but the timing tests, which skip ("needs a GPU"), and
  every GPU record says `"emulated": true`;
- the stub fails the traced test with the H200's figure: the wavefronts its walk takes on the GPU,
  as the GPU_EVIDENCE line of the lab's cheat marked `// STUB_WALK: yes` (its traced launch runs the
  stub's walk) states them (one home for the figure: that case's header);
- the lab's known-bad GPU cases and GPU-tier cheats marked `// EMULATED: ci` (solutions/NN_name/
  cases, run by the selftest's own run_case.py and expect.py) fail as on the GPU: the test they name
  fails, with the evidence their GPU_EVIDENCE lines hold (the H200's words and figures). Which cases
  those are is their headers' say, and only theirs (docs/dev/EMULATOR.md's table: every GPU-tier
  case's emulated outcome, measured);
- every valid alternative of the lab (solutions/NN_name/cases/alternatives, run_case.py --kind
  alternative) passes every GPU test but timing on the emulator, as on the H200: the grader must not
  fail the innocent where there is no GPU either.

  test_emu_tier.py --judge build/selftest/grader/banklab-judge-lab00 --root . --lab 00
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

from banklab.lab import labs as banklab_labs

ARGS = None
#: A case's folder under cases/ and the kind run_case.py judges it as.
CASE_KINDS = (("bad", "bad"), ("cheats", "cheat"))

SKIP = 77
#: The emulated twin's words for a timing test it runs but does not time (emulation.cpp, timing_needs_a_gpu).
TIMING_SKIP = "needs a GPU: this test times kernels"


def emulating():
    env = dict(os.environ)
    env["BANKLAB_EMULATE"] = "1"
    env.pop("BANKLAB_JUDGE_ONE_TEST_PER_PROCESS", None)
    return env


def grade(source, work):
    out = os.path.join(work, "grade.json")
    r = subprocess.run([ARGS.judge, "grade", "--lab", ARGS.lab, "--source", source, "--work", work, "--json", out,
                        "--tier", "gpu"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=emulating(), timeout=600)
    assert r.returncode == 0, r.stdout
    return {v["test"]: v for v in json.loads(Path(out).read_text())["verdicts"]}


def headers(case, key):
    """The values of the case's `// KEY: value` header lines: the comment lines above its code or
    diff (grader/selftest/README.md)."""
    values = []
    for line in Path(case).read_text().splitlines():
        if line.strip() and not line.startswith("//"):
            break
        if line.startswith(f"// {key}:"):
            values.append(line.split(":", 1)[1].strip())
    return values


def evidence(case, test):
    """The text of the case's `// GPU_EVIDENCE: test: TEXT` line."""
    for value in headers(case, "GPU_EVIDENCE"):
        if value.split(":", 1)[0].strip() == test:
            return value.split(":", 1)[1].strip()
    raise AssertionError(f"{case} has no GPU_EVIDENCE line for {test}")


def emulated_cases(lab):
    """[(kind, path)]: the lab's cases whose header says `// EMULATED: ci`, in Lab.cases()'s order."""
    return [(kind, path) for folder, kind in CASE_KINDS for path in lab.cases(folder)
            if "ci" in headers(path, "EMULATED")]


def stub_walk(lab):
    """The lab's one cheat marked `// STUB_WALK: yes`: its traced GPU_EVIDENCE is the stub's figure."""
    marked = [p for p in lab.cases("cheats") if "yes" in headers(p, "STUB_WALK")]
    assert len(marked) == 1, f"lab {lab.number}: {len(marked)} cheats say STUB_WALK: yes (one must): {marked}"
    return marked[0]


class EmulatedGpuTier(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"banklab-emu-tier-{ARGS.lab}-")
        cls.root = Path(ARGS.root)
        cls.lab = banklab_labs.find_labs(cls.root)[ARGS.lab]
        cls.stub_grade = None

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def stub_verdicts(self):
        """The stub's GPU grade, made once (the cheats are judged against it, as run_case.py does)."""
        if type(self).stub_grade is None:
            type(self).stub_grade = self.gpu_verdicts(self.lab.stub, "stub")
        return type(self).stub_grade

    def gpu_verdicts(self, source, name):
        v = grade(str(source), os.path.join(self.tmp, name))
        gpu = {t: x for t, x in v.items() if x.get("tier") == "gpu"}
        self.assertTrue(gpu, "the grade has no GPU test")
        for t, x in gpu.items():
            self.assertIs(x.get("emulated"), True, f"{t} is not marked emulated: {x}")
        return gpu

    def test_solution_passes_every_gpu_test_but_timing(self):
        self.assertTrue(self.lab.gpu_emulated, f"lab {self.lab.number}: its description does not say [gpu] emulated")
        gpu = self.gpu_verdicts(self.lab.solution, "solution")
        # Which tests time is the judge's rule (grader/judge/emulation.cpp, is_timed): here, every GPU
        # test passed or was skipped in its words, and the correctness and traced checks passed.
        for t, x in gpu.items():
            skipped_for_timing = x["status"] == "skipped" and x["message"].startswith(TIMING_SKIP)
            self.assertTrue(x["status"] == "passed" or skipped_for_timing, f"{t}: {x['message'][:2000]}")
            if "Correct" in t or "Traced" in t:
                self.assertEqual(x["status"], "passed", f"{t}: {x['message'][:2000]}")
        self.assertTrue(any("Traced" in t for t in gpu), sorted(gpu))

    def test_stub_fails_the_traced_test_with_the_gpus_figure(self):
        gpu = self.stub_verdicts()
        traced = [t for t in gpu if "Traced" in t]
        self.assertEqual(len(traced), 1, sorted(gpu))
        x = gpu[traced[0]]
        self.assertEqual(x["status"], "failed", x)
        self.assertIn(evidence(stub_walk(self.lab), traced[0]), x["message"])
        self.assertIn("warp instructions take more than their minimum", x["message"])  # per line, as on the GPU

    def test_known_bad_cases_fail_as_on_the_gpu(self):
        cases = emulated_cases(self.lab)
        self.assertTrue(cases, f"lab {self.lab.number}: no case says EMULATED: ci")
        self.stub_verdicts()
        stub_json = os.path.join(self.tmp, "stub", "grade.json")
        for kind, case in cases:
            with self.subTest(case=case.name):
                work = os.path.join(self.tmp, "case-" + case.stem)
                r = subprocess.run([sys.executable, str(self.root / "grader" / "selftest" / "run_case.py"),
                                    "--judge", ARGS.judge, "--lab", ARGS.lab, "--folder", self.lab.folder,
                                    "--root", str(self.root), "--work", work, "--kind", kind,
                                    "--case", str(case), "--tier", "gpu", "--stub-grade", stub_json],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=emulating(),
                                   timeout=900)
                last = [line for line in r.stdout.splitlines() if line.startswith(("OK ", "FAILED ", "SKIPPED "))]
                print(f"  {case.name}: {last[-1] if last else 'rc ' + str(r.returncode)}", flush=True)
                self.assertNotEqual(r.returncode, SKIP, "judged as without a GPU:\n" + r.stdout[-3000:])
                self.assertEqual(r.returncode, 0, r.stdout[-6000:])


    def test_valid_alternatives_pass_every_gpu_test_but_timing(self):
        alternatives = self.lab.cases("alternatives")
        self.assertTrue(alternatives, f"lab {self.lab.number}: no valid alternative")
        for case in alternatives:
            with self.subTest(case=case.name):
                work = os.path.join(self.tmp, "alt-" + case.stem)
                r = subprocess.run([sys.executable, str(self.root / "grader" / "selftest" / "run_case.py"),
                                    "--judge", ARGS.judge, "--lab", ARGS.lab, "--folder", self.lab.folder,
                                    "--root", str(self.root), "--work", work, "--kind", "alternative",
                                    "--case", str(case), "--tier", "gpu"],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=emulating(),
                                   timeout=900)
                last = [line for line in r.stdout.splitlines() if line.startswith(("OK ", "FAILED ", "SKIPPED "))]
                print(f"  {case.name}: {last[-1] if last else 'rc ' + str(r.returncode)}", flush=True)
                self.assertEqual(r.returncode, 0, r.stdout[-6000:])
                # run_case.py lets a GPU test skip; here only the timing tests may, and every record is the emulator's
                gpu = [v for v in json.loads(Path(work, "judge", "grade.json").read_text())["verdicts"]
                       if v.get("tier") == "gpu"]
                self.assertTrue(gpu, "no GPU test was graded")
                for v in gpu:
                    self.assertIs(v.get("emulated"), True, v["test"])
                    ok = v["status"] == "passed" or (v["status"] == "skipped" and v["message"].startswith(TIMING_SKIP))
                    self.assertTrue(ok, f"{v['test']} {v['status']}: {v['message'][:2000]}")
                self.assertTrue(any(v["status"] == "passed" and "Traced" in v["test"] for v in gpu),
                                "the traced test did not pass")


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True, help="banklab-judge-labNN (its twin banklab-judge-labNN-emu beside it)")
    ap.add_argument("--root", required=True)
    ap.add_argument("--lab", required=True, help="NN: a lab whose description says [gpu] emulated = true")
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
