#!/usr/bin/env python3
"""Unit tests of materialize.py and expect.py (python3 -m unittest, standard library only).

Run: python3 grader/selftest/test_selftest_tools.py   (or python3 -m unittest discover -s grader/selftest)
"""

from __future__ import annotations

import glob
import io
import json
import os
import tempfile
import textwrap
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

import expect  # noqa: E402
import materialize  # noqa: E402

STUB = "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n"


def run_main(module, argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = module.main(argv)
    return code, out.getvalue(), err.getvalue()


class TempTree(unittest.TestCase):
    """A temporary tree with labs/05_swizzle/kernel.cu = STUB and the three case folders."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.lab = os.path.join(self.root, "labs", "05_swizzle")
        os.makedirs(self.lab)
        self.write("labs/05_swizzle/kernel.cu", STUB)
        for d in ("cheats", "alternatives/05_swizzle", "bad/05_swizzle"):
            os.makedirs(os.path.join(self.root, "selftest", d))

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def materialize(self, case_rel, text, lab_dir=None):
        case = self.write(case_rel, text)
        out = os.path.join(self.root, "out", "kernel.cu")
        code, _, err = run_main(materialize, ["--case", case, "--lab-dir", lab_dir or self.lab, "--out", out])
        result = None
        if code == 0:
            with open(out, encoding="utf-8") as f:
                result = f.read()
        return code, result, err


PATCH_2_TO_TWO = textwrap.dedent("""\
    // EXPECT_FAIL: Lab05Layout.X
    --- a/kernel.cu
    +++ b/kernel.cu
    @@ -1,4 +1,4 @@
     line 1
    -line 2
    +line TWO
     line 3
     line 4
    """)


class MaterializeTest(TempTree):
    def test_an_exact_patch_replaces_the_named_line(self):
        code, out, _ = self.materialize("solutions/05_swizzle/cases/bad/a.patch", PATCH_2_TO_TWO)
        self.assertEqual(code, 0)
        self.assertEqual(out, STUB.replace("line 2\n", "line TWO\n"))

    def test_two_hunks_apply_with_the_shift_of_the_first(self):
        patch = textwrap.dedent("""\
            --- a/kernel.cu
            +++ b/kernel.cu
            @@ -1,3 +1,4 @@
             line 1
            +inserted
             line 2
             line 3
            @@ -6,3 +7,2 @@
             line 6
            -line 7
             line 8
            """)
        code, out, err = self.materialize("solutions/05_swizzle/cases/alternatives/a.patch", patch)
        self.assertEqual(code, 0, err)
        self.assertEqual(out, "line 1\ninserted\nline 2\nline 3\nline 4\nline 5\nline 6\nline 8\n")

    def test_a_patch_whose_context_no_longer_matches_fails_loudly(self):
        code, out, err = self.materialize("solutions/05_swizzle/cases/bad/a.patch", PATCH_2_TO_TWO.replace(" line 3", " line 3 (old)"))
        self.assertEqual(code, 2)
        self.assertIsNone(out)
        self.assertIn("stale", err)
        self.assertIn("line 3", err)

    def test_a_hunk_at_the_wrong_line_is_not_searched_for(self):
        code, _, err = self.materialize("solutions/05_swizzle/cases/bad/a.patch", PATCH_2_TO_TWO.replace("@@ -1,4 +1,4 @@", "@@ -2,4 +2,4 @@"))
        self.assertEqual(code, 2)
        self.assertIn("does not match", err)

    def test_a_hunk_whose_line_counts_disagree_with_its_header_fails(self):
        code, _, err = self.materialize("solutions/05_swizzle/cases/bad/a.patch", PATCH_2_TO_TWO.replace("@@ -1,4 +1,4 @@", "@@ -1,5 +1,5 @@"))
        self.assertEqual(code, 2)
        self.assertIn("hunk", err)

    def test_a_case_without_a_diff_fails(self):
        code, _, err = self.materialize("solutions/05_swizzle/cases/bad/a.patch", "// EXPECT_FAIL: Lab05Layout.X\n")
        self.assertEqual(code, 2)
        self.assertIn("no unified diff", err)

    def test_a_patch_of_two_files_fails(self):
        two = PATCH_2_TO_TWO + PATCH_2_TO_TWO.split("\n", 1)[1]
        code, _, err = self.materialize("solutions/05_swizzle/cases/bad/a.patch", two)
        self.assertEqual(code, 2)
        self.assertIn("second file", err)

    def test_a_patch_past_the_end_of_the_file_fails(self):
        code, _, err = self.materialize("solutions/05_swizzle/cases/bad/a.patch", PATCH_2_TO_TWO.replace("@@ -1,4 +1,4 @@", "@@ -7,4 +7,4 @@"))
        self.assertEqual(code, 2)

    def test_an_appended_cheat_follows_the_whole_stub(self):
        cheat = "// APPLIES: all\n// MODE: append\nint cheat;\n"
        code, out, _ = self.materialize("selftest/cheats/c.cu", cheat)
        self.assertEqual(code, 0)
        self.assertTrue(out.startswith(STUB))
        self.assertTrue(out.endswith(cheat))

    def test_a_prepended_cheat_comes_before_the_stub(self):
        cheat = "// APPLIES: 05\n// MODE: prepend\n#define X 1\n"
        code, out, _ = self.materialize("selftest/cheats/c.cu", cheat)
        self.assertEqual(code, 0)
        self.assertIn(cheat, out)
        self.assertTrue(out.endswith(STUB))
        self.assertLess(out.index("#define X 1"), out.index("line 1"))

    def test_a_cheat_in_patch_mode_applies_its_diff(self):
        cheat = "// APPLIES: 05\n// MODE: patch\n" + PATCH_2_TO_TWO.split("\n", 1)[1]
        code, out, _ = self.materialize("selftest/cheats/c.cu", cheat)
        self.assertEqual(code, 0)
        self.assertIn("line TWO", out)

    def test_a_cheat_for_another_lab_is_refused(self):
        code, _, err = self.materialize("selftest/cheats/c.cu", "// APPLIES: 02 04\n// MODE: append\nint x;\n")
        self.assertEqual(code, 2)
        self.assertIn("not 05", err)

    def test_an_applies_line_naming_no_lab_is_refused(self):
        code, _, err = self.materialize("selftest/cheats/c.cu", "// APPLIES: 05 lab6\n// MODE: append\nint x;\n")
        self.assertEqual(code, 2)
        self.assertIn("APPLIES must be", err)

    def test_an_applies_line_may_name_labs_as_lab_numbers_or_with_commas(self):
        code, out, _ = self.materialize("selftest/cheats/c.cu", "// APPLIES: lab02, 05\n// MODE: append\nint x;\n")
        self.assertEqual(code, 0)
        self.assertIn("int x;", out)

    def test_an_unknown_mode_is_refused(self):
        code, _, err = self.materialize("selftest/cheats/c.cu", "// APPLIES: all\n// MODE: sideways\nint x;\n")
        self.assertEqual(code, 2)
        self.assertIn("MODE", err)

    def test_a_patch_of_another_labs_folder_is_refused(self):
        os.makedirs(os.path.join(self.root, "labs", "04_padding"))
        self.write("labs/04_padding/kernel.cu", STUB)
        code, _, err = self.materialize("solutions/05_swizzle/cases/bad/a.patch", PATCH_2_TO_TWO,
                                        lab_dir=os.path.join(self.root, "labs", "04_padding"))
        self.assertEqual(code, 2)
        self.assertIn("not 04", err)

    def test_a_labs_patch_cheat_applies_to_its_solution_not_to_the_stub_it_is_graded_with(self):
        self.write("solutions/05_swizzle/kernel.cu", STUB.replace("line 2\n", "line SOLVED\n"))
        cheat = "// Cheat: the solution plus a payload.\n// TIER: gpu\n" + textwrap.dedent("""\
            --- a/solutions/05_swizzle/kernel.cu
            +++ b/solutions/05_swizzle/kernel.cu
            @@ -1,3 +1,4 @@
             line 1
             line SOLVED
            +payload
             line 3
            """)
        code, out, err = self.materialize("solutions/05_swizzle/cases/cheats/c.patch", cheat)   # --lab-dir: the stub
        self.assertEqual(code, 0, err)
        self.assertEqual(out, STUB.replace("line 2\n", "line SOLVED\npayload\n"))
        case = materialize.load_case(os.path.join(self.root, "solutions/05_swizzle/cases/cheats/c.patch"))
        self.assertEqual((case.kind, case.mode, case.applies), ("cheat", "patch", ["05"]))

    def test_a_patch_cheat_with_a_mode_line_or_outside_a_labs_cases_is_refused(self):
        self.write("solutions/05_swizzle/kernel.cu", STUB)
        body = PATCH_2_TO_TWO.split("\n", 1)[1]
        for rel, text in (("solutions/05_swizzle/cases/cheats/c.patch", "// MODE: append\n" + body),
                          ("selftest/cheats/c.patch", "// APPLIES: 05\n" + body)):
            with self.subTest(case=rel):
                code, out, err = self.materialize(rel, text)
                self.assertEqual(code, 2)
                self.assertIsNone(out)
                self.assertIn("a .patch case is a diff against its lab's solution", err)

    def test_missing_newline_markers_are_accepted(self):
        patch = PATCH_2_TO_TWO + "\\ No newline at end of file\n"
        code, out, err = self.materialize("solutions/05_swizzle/cases/bad/a.patch", patch)
        self.assertEqual(code, 0, err)


class RepositoryCasesTest(unittest.TestCase):
    """Every case in the repository applies to what it names (so a stale case fails here)."""

    def test_every_known_bad_and_alternative_patch_applies_to_its_solution(self):
        labs = materialize.banklab_labs.find_labs(ROOT)
        cases = [(lab, c) for lab in labs.values() for kind in ("bad", "alternatives") for c in lab.cases(kind)]
        self.assertGreaterEqual(len(cases), 36)
        for lab, case_path in cases:
            with self.subTest(case=os.path.relpath(case_path, ROOT)):
                self.assertEqual(materialize.lab_of_case_path(str(case_path)), lab.number)
                case = materialize.load_case(str(case_path))
                self.assertEqual(case.applies, [lab.number])
                text = materialize.materialize(case, str(lab.solution_dir))
                self.assertNotEqual(text, lab.solution.read_text(encoding="utf-8"), "the patch changes nothing")

    def test_every_variant_of_a_lab_keeps_a_valid_alternative(self):
        """Each lab with variants has an alternative marked `// VARIANTS: every` that applies to every
        variant (CTest judges it as each: labNN.alt.NAME.variantK); a lab without one is named."""
        import variant_case  # noqa: PLC0415  (it imports banklab's variants: the other tests here need none)
        self.assertEqual(variant_case.missing_every_variant_alternative(ROOT), [])
        marked = [p for p, k in variant_case.cases(ROOT) if k == 1 and "/alternatives/" in p]
        self.assertGreaterEqual(len(marked), 8)

    def test_every_known_bad_patch_names_the_test_it_must_fail(self):
        for lab in materialize.banklab_labs.find_labs(ROOT).values():
            for case_path in lab.cases("bad"):
                with self.subTest(case=case_path.name):
                    case = materialize.load_case(str(case_path))
                    names = case.headers.get("EXPECT_FAIL", [])
                    self.assertTrue(names)
                    for n in names:
                        self.assertRegex(n, rf"^L{lab.label[1:]}[A-Za-z]+\.[A-Za-z0-9_]+$")

    def test_every_cheat_applies_to_the_stub_of_every_lab_it_names(self):
        found = materialize.banklab_labs.find_labs(ROOT)
        own = {str(c): lab.number for lab in found.values()
               for c in lab.cases("cheats")}
        cheats = sorted(glob.glob(os.path.join(HERE, "cheats", "*.cu"))) + list(own)
        self.assertGreaterEqual(len(cheats), 20)
        labs = {n: lab.folder for n, lab in found.items()}   # {"05": "05_swizzle"}
        for case_path in cheats:
            case = materialize.load_case(case_path)
            if case_path in own:    # a lab's own cheat is for its lab alone
                self.assertEqual(case.applies, [own[case_path]], case_path)
            self.assertIn(case.mode, materialize.MODES)
            expect_line = case.first("EXPECT") or "no-full-pass"
            self.assertIn(expect_line.split()[0].rstrip(":"), ("no-full-pass", "build-fails"))
            if expect_line.startswith("build-fails"):
                self.assertGreater(len(expect_line.split()), 1, f"{case_path}: EXPECT: build-fails needs its reason")
            build = case.first("BUILD")
            if build is not None:
                self.assertRegex(build, r"^may-fail\W+\w", f"{case_path}: BUILD: may-fail needs its reason")
            applied = 0
            for num, lab in labs.items():
                if not case.applies_to(num):
                    continue
                with self.subTest(case=os.path.basename(case_path), lab=lab):
                    materialize.materialize(case, os.path.join(ROOT, "labs", lab))
                    applied += 1
            self.assertGreater(applied, 0, case_path)
            if case.patches_solution:   # a lab's cheat of its solution: it changes the solution
                lab = found[own[case_path]]
                text = materialize.materialize(case, os.path.join(ROOT, "labs", lab.folder))
                self.assertNotEqual(text, lab.solution.read_text(encoding="utf-8"), f"{case_path} changes nothing")


def verdict(test, status="failed", tier=None, checks=5, message="msg"):
    if tier is None:
        tier = "gpu" if "OnGpu" in test else "cpu"
    return {"schema": "banklab.verdict.v1", "lab": "05", "test": test, "tier": tier, "status": status,
            "checks": checks, "seconds": 0.01, "message": message}


def grade(*verdicts):
    return {"schema": "banklab.grade.v1", "lab": "05", "source": "kernel.cu", "source_sha256": "x",
            "verdicts": list(verdicts)}


CPU_A = "Lab05Layout.ColumnReadsOfTheTileAreConflictFree"
CPU_B = "Lab05Predictions.SwizzledColumnReadTakesThePredictedWavefronts"
CPU_C = "Lab05Layout.TileIndexIsInBoundsAndOneToOne"
GPU_A = "Lab05OnGpu.TransposeIsCorrectFor1024x1024"


class ExpectTest(TempTree):
    def check(self, case_rel, case_text, grade_obj, stub_obj=None, extra=()):
        case = self.write(case_rel, case_text)
        g = self.write("g.json", json.dumps(grade_obj))
        argv = ["--case", case, "--verdicts", g]
        if stub_obj is not None:
            argv += ["--stub-verdicts", self.write("s.json", json.dumps(stub_obj))]
        code, out, err = run_main(expect, argv + list(extra))
        return code, out + err

    BAD = "// EXPECT_FAIL: " + CPU_A + "\n" + PATCH_2_TO_TWO.split("\n", 1)[1]
    CHEAT = "// APPLIES: all\n// MODE: append\n// MARKER: CHEAT-MARK\nint x;\n"
    GPU_CHEAT = "// APPLIES: 05\n// MODE: append\n// TIER: gpu\n// GPU_EVIDENCE: " + GPU_A + ": msg\nint x;\n"
    ALT = PATCH_2_TO_TWO.split("\n", 1)[1]
    STUB_GRADE = grade(verdict(CPU_A), verdict(CPU_B), verdict(CPU_C, "passed"), verdict(GPU_A, "skipped"))

    # -- known-bad
    def test_a_known_bad_case_holds_when_its_named_test_failed(self):
        code, out = self.check("solutions/05_swizzle/cases/bad/a.patch", self.BAD, grade(verdict(CPU_A), verdict(CPU_C, "passed")))
        self.assertEqual(code, 0, out)

    def test_a_known_bad_case_fails_when_its_named_test_passed(self):
        code, out = self.check("solutions/05_swizzle/cases/bad/a.patch", self.BAD, grade(verdict(CPU_A, "passed"), verdict(CPU_C)))
        self.assertEqual(code, 1)
        self.assertIn(CPU_A, out)

    def test_a_known_bad_case_fails_when_its_named_test_is_missing(self):
        code, out = self.check("solutions/05_swizzle/cases/bad/a.patch", self.BAD, grade(verdict(CPU_C)))
        self.assertEqual(code, 1)
        self.assertIn("no verdict", out)

    def test_a_known_bad_case_that_did_not_build_proves_nothing(self):
        code, out = self.check("solutions/05_swizzle/cases/bad/a.patch", self.BAD,
                               grade(verdict("Lab05.Build", message="error: x"), verdict(CPU_A)))
        self.assertEqual(code, 1)
        self.assertIn("did not build", out)

    def test_a_known_bad_gpu_case_without_a_gpu_is_skipped(self):
        bad = self.BAD.replace(CPU_A, GPU_A)
        code, out = self.check("solutions/05_swizzle/cases/bad/a.patch", bad, grade(verdict(GPU_A, "skipped"), verdict(CPU_C, "passed")))
        self.assertEqual(code, 77, out)

    def test_a_known_bad_gpu_case_skipped_in_graded_mode_fails(self):
        bad = self.BAD.replace(CPU_A, GPU_A)
        code, _ = self.check("solutions/05_swizzle/cases/bad/a.patch", bad, grade(verdict(GPU_A, "skipped")), extra=["--graded"])
        self.assertEqual(code, 1)

    # -- alternatives
    def test_an_alternative_holds_when_every_test_passed_and_gpu_tests_skipped(self):
        code, out = self.check("solutions/05_swizzle/cases/alternatives/a.patch", self.ALT,
                               grade(verdict(CPU_A, "passed"), verdict(GPU_A, "skipped")))
        self.assertEqual(code, 0, out)

    def test_an_alternative_fails_when_a_test_failed(self):
        code, out = self.check("solutions/05_swizzle/cases/alternatives/a.patch", self.ALT,
                               grade(verdict(CPU_A, "passed"), verdict(CPU_B, message="prediction wrong")))
        self.assertEqual(code, 1)
        self.assertIn(CPU_B, out)
        self.assertIn("prediction wrong", out)

    def test_an_alternative_fails_when_a_cpu_test_skipped(self):
        code, _ = self.check("solutions/05_swizzle/cases/alternatives/a.patch", self.ALT,
                             grade(verdict(CPU_A, "passed"), verdict(CPU_B, "skipped")))
        self.assertEqual(code, 1)

    def test_an_alternative_with_a_gpu_test_skipped_fails_in_graded_mode(self):
        code, _ = self.check("solutions/05_swizzle/cases/alternatives/a.patch", self.ALT,
                             grade(verdict(CPU_A, "passed"), verdict(GPU_A, "skipped")), extra=["--graded"])
        self.assertEqual(code, 1)

    def test_a_pass_with_zero_checks_is_not_evidence(self):
        code, out = self.check("solutions/05_swizzle/cases/alternatives/a.patch", self.ALT,
                               grade(verdict(CPU_A, "passed", checks=0)))
        self.assertEqual(code, 1)
        self.assertIn("zero checks", out)

    # -- cheats
    def test_a_cheat_holds_when_every_test_the_stub_fails_still_fails(self):
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, self.STUB_GRADE, self.STUB_GRADE)
        self.assertEqual(code, 0, out)

    def test_a_cheat_fails_when_a_test_the_stub_fails_passes(self):
        g = grade(verdict(CPU_A, "passed"), verdict(CPU_B), verdict(CPU_C, "passed"), verdict(GPU_A, "skipped"))
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, g, self.STUB_GRADE)
        self.assertEqual(code, 1)
        self.assertIn(CPU_A, out)

    def test_a_cheat_fails_when_a_test_the_stub_fails_is_skipped(self):
        g = grade(verdict(CPU_A, "skipped"), verdict(CPU_B), verdict(CPU_C, "passed"), verdict(GPU_A, "skipped"))
        code, _ = self.check("selftest/cheats/c.cu", self.CHEAT, g, self.STUB_GRADE)
        self.assertEqual(code, 1)

    def test_a_cheat_fails_when_a_test_skipped_for_the_stub_passes(self):
        g = grade(verdict(CPU_A), verdict(CPU_B), verdict(CPU_C, "passed"), verdict(GPU_A, "passed"))
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, g, self.STUB_GRADE)
        self.assertEqual(code, 1)
        self.assertIn("could not have run", out)

    def test_a_cheat_fails_when_tests_vanish_from_the_grade(self):
        g = grade(verdict(CPU_B), verdict(CPU_C, "passed"), verdict(GPU_A, "skipped"))
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, g, self.STUB_GRADE)
        self.assertEqual(code, 1)
        self.assertIn("lacks", out)

    def test_a_cheat_fails_when_its_output_reaches_a_verdict(self):
        g = grade(verdict(CPU_A), verdict(CPU_B, message="x CHEAT-MARK y"), verdict(CPU_C, "passed"), verdict(GPU_A, "skipped"))
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, g, self.STUB_GRADE)
        self.assertEqual(code, 1)
        self.assertIn("CHEAT-MARK", out)

    def test_a_cheat_that_passes_everything_fails_even_without_stub_verdicts(self):
        g = grade(verdict(CPU_A, "passed"), verdict(CPU_B, "passed"))
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, g)
        self.assertEqual(code, 1)
        self.assertIn("full pass", out)

    def test_a_cheat_that_makes_its_own_build_a_fault_fails(self):
        # Issue 45: a file must not make itself "not graded" (the stub's build passed here).
        stub = grade(verdict("Lab05.Build", "passed"), verdict(CPU_A), verdict(CPU_B), verdict(CPU_C, "passed"),
                     verdict(GPU_A, "skipped"))
        g = grade(verdict("Lab05.Build", "fault", message="the judge's sandbox could not run your file's probe"),
                  verdict(CPU_A), verdict(CPU_B), verdict(CPU_C), verdict(GPU_A, "skipped"))
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, g, stub)
        self.assertEqual(code, 1, out)
        self.assertIn("must not make itself not graded", out)
        build_fails = "// APPLIES: all\n// MODE: append\n// EXPECT: build-fails: why\nint x;\n"
        code, out = self.check("selftest/cheats/c.cu", build_fails, g, stub)
        self.assertEqual(code, 1, out)
        # where the stub's build is a fault too, the machine cannot build: not this cheat's doing
        stub_fault = grade(verdict("Lab05.Build", "fault"), verdict(CPU_A), verdict(CPU_B), verdict(CPU_C),
                           verdict(GPU_A, "skipped"))
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, g, stub_fault)
        self.assertNotIn("must not make itself not graded", out)

    def test_a_cheat_refused_at_build_holds_and_says_so(self):
        g = grade(verdict("Lab05.Build", message="error: x"), verdict(CPU_A), verdict(CPU_B), verdict(CPU_C), verdict(GPU_A))
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, g)
        self.assertEqual(code, 0, out)
        self.assertIn("refused at build", out)

    def test_a_cheat_refused_at_build_with_a_passed_test_fails(self):
        g = grade(verdict("Lab05.Build"), verdict(CPU_A, "passed"), verdict(CPU_B))
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, g)
        self.assertEqual(code, 1)
        self.assertIn("did not build, yet", out)

    def test_a_build_fails_cheat_needs_its_reason(self):
        cheat = "// APPLIES: all\n// MODE: append\n// EXPECT: build-fails\nint x;\n"
        code, out = self.check("selftest/cheats/c.cu", cheat, grade(verdict("Lab05.Build"), verdict(CPU_A)))
        self.assertEqual(code, 1)
        self.assertIn("reason", out)

    def test_a_cheat_that_did_not_compile_proves_nothing_without_a_reason(self):
        g = grade(verdict("Lab05.Build", message="your file does not compile (its probe, nvcc: exit 2)."), verdict(CPU_A))
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, g)
        self.assertEqual(code, 1)
        self.assertIn("never ran", out)
        cheat = "// APPLIES: all\n// MODE: append\n// BUILD: may-fail: a second main cannot link\nint x;\n"
        code, out = self.check("selftest/cheats/c.cu", cheat, g)
        self.assertEqual(code, 0, out)

    PAYLOAD_CHEAT = "// APPLIES: all\n// MODE: append\n// PAYLOAD: PAYLOAD-RAN\nint x;\n"

    def test_a_payload_must_be_in_the_probe_log(self):
        g = grade(verdict(CPU_A), verdict(CPU_B), verdict(CPU_C, "passed"), verdict(GPU_A, "skipped"))
        log = self.write("probe.log", "== stdout ==\nPAYLOAD-RAN\n")
        code, out = self.check("selftest/cheats/c.cu", self.PAYLOAD_CHEAT, g, self.STUB_GRADE, extra=["--probe-log", log])
        self.assertEqual(code, 0, out)
        empty = self.write("empty.log", "== stdout ==\n")
        code, out = self.check("selftest/cheats/c.cu", self.PAYLOAD_CHEAT, g, self.STUB_GRADE, extra=["--probe-log", empty])
        self.assertEqual(code, 1)
        self.assertIn("never ran", out)

    def test_a_payload_that_did_not_compile_fails_even_with_may_fail(self):
        cheat = self.PAYLOAD_CHEAT.replace("// PAYLOAD", "// BUILD: may-fail: whatever\n// PAYLOAD")
        g = grade(verdict("Lab05.Build", message="your file does not compile (its probe, nvcc: exit 2)."), verdict(CPU_A))
        code, out = self.check("selftest/cheats/c.cu", cheat, g, extra=["--probe-log", self.write("p.log", "")])
        self.assertEqual(code, 1)
        self.assertIn("never ran", out)

    def test_a_payload_in_a_verdict_fails(self):
        g = grade(verdict(CPU_A, message="PAYLOAD-RAN"), verdict(CPU_B), verdict(CPU_C, "passed"), verdict(GPU_A, "skipped"))
        log = self.write("probe2.log", "PAYLOAD-RAN\n")
        code, out = self.check("selftest/cheats/c.cu", self.PAYLOAD_CHEAT, g, self.STUB_GRADE, extra=["--probe-log", log])
        self.assertEqual(code, 1)
        self.assertIn("reached a verdict", out)

    def test_a_build_fails_cheat_needs_a_build_failure(self):
        cheat = "// APPLIES: all\n// MODE: append\n// EXPECT: build-fails: the point\nint x;\n"
        code, _ = self.check("selftest/cheats/c.cu", cheat, grade(verdict(CPU_A)))
        self.assertEqual(code, 1)
        code, out = self.check("selftest/cheats/c.cu", cheat, grade(verdict("Lab05.Build"), verdict(CPU_A)))
        self.assertEqual(code, 0, out)

    def test_a_gpu_cheat_holds_when_a_gpu_test_failed(self):
        g = grade(verdict(CPU_A, "passed"), verdict(GPU_A))
        code, out = self.check("selftest/cheats/c.cu", self.GPU_CHEAT, g)
        self.assertEqual(code, 0, out)

    def test_a_gpu_cheat_needs_evidence_that_its_payload_ran(self):
        g = grade(verdict(CPU_A, "passed"), verdict(GPU_A, message="an unrelated failure"))
        code, out = self.check("selftest/cheats/c.cu", self.GPU_CHEAT, g)
        self.assertEqual(code, 1, out)
        self.assertIn("no evidence", out)
        bare = self.GPU_CHEAT.replace("// GPU_EVIDENCE: " + GPU_A + ": msg\n", "")
        code, out = self.check("selftest/cheats/c.cu", bare, grade(verdict(CPU_A, "passed"), verdict(GPU_A)))
        self.assertEqual(code, 1, out)
        self.assertIn("GPU_EVIDENCE", out)

    def test_on_the_emulator_a_timing_evidence_line_gives_way_to_a_judged_one(self):
        timing = "Lab05OnGpu.TransposeMeetsTheKernelTimingTarget"
        untimed = dict(verdict(timing, "skipped", message="needs a GPU: this test times kernels, and the emulator ..."),
                       emulated=True)
        two = self.GPU_CHEAT.replace("// TIER: gpu\n", "// TIER: gpu\n// GPU_EVIDENCE: " + timing + ": slower than\n")
        # the traced-style line holds, the timing line names a test the emulator did not time: holds
        g = grade(verdict(CPU_A, "passed"), dict(verdict(GPU_A), emulated=True), untimed)
        code, out = self.check("selftest/cheats/c.cu", two, g)
        self.assertEqual(code, 0, out)
        # the judged line does not hold: the timing line does not stand in for it
        g = grade(verdict(CPU_A, "passed"), dict(verdict(GPU_A, message="unrelated"), emulated=True), untimed)
        code, out = self.check("selftest/cheats/c.cu", two, g)
        self.assertEqual(code, 1, out)
        self.assertIn("no evidence", out)
        # only timing lines: nothing on the emulator shows the payload ran
        only = two.replace("// GPU_EVIDENCE: " + GPU_A + ": msg\n", "")
        g = grade(verdict(CPU_A, "passed"), dict(verdict(GPU_A), emulated=True), untimed)
        code, out = self.check("selftest/cheats/c.cu", only, g)
        self.assertEqual(code, 1, out)
        self.assertIn("does not time", out)
        # on a GPU (no `emulated`) a skipped timing test is checked like any line: it fails
        g = grade(verdict(CPU_A, "passed"), verdict(GPU_A), verdict(timing, "skipped"))
        code, out = self.check("selftest/cheats/c.cu", two, g)
        self.assertEqual(code, 1, out)

    def test_emu_evidence_stands_in_for_gpu_evidence_on_the_emulator_only(self):
        case = self.GPU_CHEAT.replace("// TIER: gpu\n", "// TIER: gpu\n// EMU_EVIDENCE: " + GPU_A + ": other path\n")
        emu = grade(verdict(CPU_A, "passed"), dict(verdict(GPU_A, message="took the other path"), emulated=True))
        self.assertEqual(self.check("selftest/cheats/c.cu", case, emu)[0], 0)
        emu = grade(verdict(CPU_A, "passed"), dict(verdict(GPU_A, message="msg"), emulated=True))
        self.assertEqual(self.check("selftest/cheats/c.cu", case, emu)[0], 1)  # GPU_EVIDENCE is not read there
        gpu = grade(verdict(CPU_A, "passed"), verdict(GPU_A, message="took the other path"))
        self.assertEqual(self.check("selftest/cheats/c.cu", case, gpu)[0], 1)  # on a GPU, GPU_EVIDENCE is
        gpu = grade(verdict(CPU_A, "passed"), verdict(GPU_A, message="msg"))
        self.assertEqual(self.check("selftest/cheats/c.cu", case, gpu)[0], 0)

    def test_a_gpu_cheat_that_did_not_build_fails_unless_its_header_allows_it(self):
        g = grade(verdict("Lab05.Build", message="error: x"), verdict(CPU_A), verdict(GPU_A))
        code, out = self.check("selftest/cheats/c.cu", self.GPU_CHEAT, g)
        self.assertEqual(code, 1, out)
        self.assertIn("did not build proves nothing", out)
        may = self.GPU_CHEAT.replace("// TIER: gpu\n", "// TIER: gpu\n// BUILD: may-fail\n")
        code, out = self.check("selftest/cheats/c.cu", may, g)
        self.assertEqual(code, 0, out)

    def test_a_gpu_cheat_without_a_gpu_is_skipped(self):
        g = grade(verdict(CPU_A, "passed"), verdict(GPU_A, "skipped"))
        code, out = self.check("selftest/cheats/c.cu", self.GPU_CHEAT, g)
        self.assertEqual(code, 77, out)

    def test_a_gpu_cheat_whose_gpu_tests_skip_on_a_gpu_machine_fails(self):
        g = grade(verdict(CPU_A, "passed"), verdict(GPU_A, "skipped"))
        for flag in ("--gpu", "--graded"):
            code, out = self.check("selftest/cheats/c.cu", self.GPU_CHEAT, g, extra=[flag])
            self.assertEqual(code, 1, flag)

    def test_a_gpu_cheat_whose_gpu_tests_pass_fails(self):
        g = grade(verdict(CPU_A, "passed"), verdict(GPU_A, "passed"))
        code, out = self.check("selftest/cheats/c.cu", self.GPU_CHEAT, g)
        self.assertEqual(code, 1)
        self.assertIn("full pass", out)

    # -- form
    def test_a_grade_without_verdicts_fails(self):
        code, out = self.check("selftest/cheats/c.cu", self.CHEAT, grade())
        self.assertEqual(code, 1)
        self.assertIn("no verdicts", out)

    def test_a_grade_of_another_schema_fails(self):
        g = grade(verdict(CPU_A))
        g["schema"] = "something.else"
        code, _ = self.check("solutions/05_swizzle/cases/bad/a.patch", self.BAD, g)
        self.assertEqual(code, 1)

    def test_a_verdict_with_an_unknown_status_fails(self):
        code, out = self.check("solutions/05_swizzle/cases/bad/a.patch", self.BAD, grade(verdict(CPU_A, "ok")))
        self.assertEqual(code, 1)
        self.assertIn("status", out)

    def test_an_unreadable_grade_is_an_error(self):
        case = self.write("solutions/05_swizzle/cases/bad/a.patch", self.BAD)
        g = self.write("g.json", "{not json")
        code, _, err = run_main(expect, ["--case", case, "--verdicts", g])
        self.assertEqual(code, 2)
        self.assertIn("unreadable", err)

    def test_the_grade_must_be_of_the_materialized_source(self):
        src = self.write("kernel.cu", "int x;\n")
        code, out = self.check("solutions/05_swizzle/cases/bad/a.patch", self.BAD, grade(verdict(CPU_A)), extra=["--source", src])
        self.assertEqual(code, 1)
        self.assertIn("another file", out)


if __name__ == "__main__":
    unittest.main()
