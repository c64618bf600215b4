#!/usr/bin/env python3
"""The GPU tier without a GPU (issue 47; docs/dev/EMULATOR.md, "One harness, two devices"): the
judge's own GPU tests of a lab, 00 to 05 (labs/NN_name/judge/test.cu, unchanged), run on the emulator where
BANKLAB_EMULATE=1, through the judge's emulated twin (banklab-judge-labNN-emu), on a machine
without a GPU (CI):

- the lab's solution passes every GPU test but the timing tests, which skip ("needs a GPU"), and
  every GPU record says `"emulated": true`;
- the stub fails the traced test with the H200's figure: the wavefronts its walk takes on the GPU,
  as the GPU_EVIDENCE line of the lab's cheat that runs the stub's walk in the traced launch states
  them (one home for the figure: that case's header);
- the lab's known-bad GPU cases and GPU-tier cheats (solutions/NN_name/cases, run by the selftest's
  own run_case.py and expect.py) fail as on the GPU: the test they name fails, with the evidence
  their GPU_EVIDENCE lines hold (the H200's words and figures).

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

ARGS = None

# Per lab: its folder, the cheat whose traced launch runs the stub's walk (its GPU_EVIDENCE line on
# the traced test is the stub's H200 figure), and the cases that must fail on the emulator as on the GPU.
LABS = {
    "00": {
        "folder": "00_bank_mapping",
        "stub_walk": "cheats/recognises_the_traced_launch_00.patch",
        "cases": [("bad", "bad/unwritten_odd_rows.patch"),
                  ("cheat", "cheats/recognises_the_traced_launch_00.patch")],
    },
    "01": {
        "folder": "01_32way_conflict",
        "stub_walk": "cheats/cuda_arch_host_differs_01.patch",
        "cases": [("bad", "bad/launches_one_block_too_many.patch"),
                  ("cheat", "cheats/kernel_writes_past_the_end_01.patch"),
                  ("cheat", "cheats/cuda_arch_host_differs_01.patch")],
    },
    # Labs 02 to 05: the cheat that keeps the stub's layout in its kernel (its traced figure is the
    # stub's), and a case of each kind that the emulator judges (docs/dev/EMULATOR.md's table).
    "02": {
        "folder": "02_broadcast",
        "stub_walk": "cheats/kernel_bypasses_access_functions_02.patch",
        "cases": [("cheat", "cheats/kernel_bypasses_access_functions_02.patch"),
                  ("cheat", "cheats/wrong_channel_judged_by_own_oracle_02.patch")],
    },
    "03": {
        "folder": "03_vector_lds",
        "stub_walk": "cheats/kernel_bypasses_access_functions_03.patch",
        "cases": [("bad", "bad/a_and_b_swapped.patch"),
                  ("cheat", "cheats/partial_warp_loads_hide_a_conflict_03.patch")],
    },
    "04": {
        "folder": "04_padding",
        "stub_walk": "cheats/kernel_bypasses_access_functions_04.patch",
        "cases": [("bad", "bad/unswapped_write_out.patch"),
                  ("cheat", "cheats/kernel_bypasses_access_functions_04.patch")],
    },
    "05": {
        "folder": "05_swizzle",
        "stub_walk": "cheats/kernel_bypasses_access_functions_05.patch",
        "cases": [("bad", "bad/read_bypasses_swizzle.patch"),
                  ("cheat", "cheats/cuda_arch_host_differs_05.patch")],
    },
}

SKIP = 77


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


def evidence(case, test):
    """The text of the case's `// GPU_EVIDENCE: test: TEXT` line."""
    for line in Path(case).read_text().splitlines():
        if line.startswith("// GPU_EVIDENCE:") and line.split(":", 2)[1].strip() == test:
            return line.split(":", 2)[2].strip()
    raise AssertionError(f"{case} has no GPU_EVIDENCE line for {test}")


class EmulatedGpuTier(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=f"banklab-emu-tier-{ARGS.lab}-")
        cls.lab = LABS[ARGS.lab]
        cls.root = Path(ARGS.root)
        cls.cases = cls.root / "solutions" / cls.lab["folder"] / "cases"

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def gpu_verdicts(self, source, name):
        v = grade(str(source), os.path.join(self.tmp, name))
        gpu = {t: x for t, x in v.items() if x.get("tier") == "gpu"}
        self.assertTrue(gpu, "the grade has no GPU test")
        for t, x in gpu.items():
            self.assertIs(x.get("emulated"), True, f"{t} is not marked emulated: {x}")
        return gpu

    def test_solution_passes_every_gpu_test_but_timing(self):
        gpu = self.gpu_verdicts(self.root / "solutions" / self.lab["folder"] / "kernel.cu", "solution")
        # Which tests time is the judge's rule (grader/judge/emulation.cpp, is_timed): here, every GPU
        # test passed or was skipped in its words, the correctness and traced checks passed, and some
        # tests did skip (the lab has timing tests).
        timing = "needs a GPU: this test times kernels"
        for t, x in gpu.items():
            skipped_for_timing = x["status"] == "skipped" and x["message"].startswith(timing)
            self.assertTrue(x["status"] == "passed" or skipped_for_timing, f"{t}: {x['message'][:2000]}")
            if "Correct" in t or "Traced" in t:
                self.assertEqual(x["status"], "passed", f"{t}: {x['message'][:2000]}")
        self.assertTrue(any(x["status"] == "skipped" for x in gpu.values()), sorted(gpu))
        self.assertTrue(any("Traced" in t for t in gpu), sorted(gpu))

    def test_stub_fails_the_traced_test_with_the_gpus_figure(self):
        gpu = self.gpu_verdicts(self.root / "labs" / self.lab["folder"] / "kernel.cu", "stub")
        traced = [t for t in gpu if "Traced" in t]
        self.assertEqual(len(traced), 1, sorted(gpu))
        x = gpu[traced[0]]
        self.assertEqual(x["status"], "failed", x)
        self.assertIn(evidence(self.cases / self.lab["stub_walk"], traced[0]), x["message"])
        self.assertIn("warp instructions take more than their minimum", x["message"])  # per line, as on the GPU

    def test_known_bad_cases_fail_as_on_the_gpu(self):
        for kind, case in self.lab["cases"]:
            with self.subTest(case=case):
                work = os.path.join(self.tmp, "case-" + Path(case).stem)
                r = subprocess.run([sys.executable, str(self.root / "grader" / "selftest" / "run_case.py"),
                                    "--judge", ARGS.judge, "--lab", ARGS.lab, "--folder", self.lab["folder"],
                                    "--root", str(self.root), "--work", work, "--kind", kind,
                                    "--case", str(self.cases / case), "--tier", "gpu"],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=emulating(),
                                   timeout=900)
                self.assertNotEqual(r.returncode, SKIP, "judged as without a GPU:\n" + r.stdout[-3000:])
                self.assertEqual(r.returncode, 0, r.stdout[-6000:])


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True, help="banklab-judge-labNN (its twin banklab-judge-labNN-emu beside it)")
    ap.add_argument("--root", required=True)
    ap.add_argument("--lab", required=True, choices=sorted(LABS))
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
