"""Tests of what a lab is (python/banklab/lab/labs.py) and of instructor/labs-check, which must fail
when a lab's files disagree with its description: each rule is broken in a copy of the course and
labs-check must name the file; the real tree must pass.

  python3 -m unittest discover -s python/banklab/lab -p 'test_*.py' -v
"""

import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
from banklab.lab import labs as banklab_labs   # noqa: E402
from banklab.lab import schema  # noqa: E402

LABS_CHECK = ROOT / "instructor" / "labs-check"


def labs_check(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(LABS_CHECK), "--root", str(root), *args],
                          capture_output=True, text=True, timeout=120)


class LabNumbers(unittest.TestCase):
    def test_the_release_keeps_the_judge_files_out_of_the_students_folder(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            shutil.copytree(ROOT / "labs" / "05_swizzle", root / "labs" / "05_swizzle")
            self.assertEqual(banklab_labs.find_labs(root)["05"].test, root / "labs" / "05_swizzle" / "judge" / "test.cu")
            (root / "grader" / "labs").mkdir(parents=True)
            shutil.move(root / "labs" / "05_swizzle" / "judge", root / "grader" / "labs" / "05_swizzle")
            lab = banklab_labs.find_labs(root)["05"]
            self.assertEqual(lab.description_path, root / "grader" / "labs" / "05_swizzle" / "lab.toml")
            self.assertEqual(banklab_labs.folder_of(lab.probe), "05_swizzle")
            self.assertEqual(banklab_labs.folder_of(ROOT / "labs" / "05_swizzle" / "judge" / "lab.toml"), "05_swizzle")

    def test_every_form_of_a_lab_number_is_read_by_one_parser(self):
        for text in ("05", "lab05", "Lab05", "Lab05Layout.TileIndexIsInBounds", "Lab05OnGpu.TracedX",
                     "05_swizzle", "labs/05_swizzle/kernel.cu", "/x/solutions/05_swizzle/README.md",
                     "labs/05_swizzle/judge/test.cu", "labs/05_swizzle/judge/lab.toml", "solutions/05_swizzle/cases/bad/x.patch"):
            with self.subTest(text=text):
                self.assertEqual(banklab_labs.lab_number(text), "05")

    def test_what_is_not_a_lab_number_gives_none(self):
        for text in ("", "kernel.cu", "lab5", "050_x", "junit-lab05.xml", "Lab", "labs/"):
            with self.subTest(text=text):
                self.assertIsNone(banklab_labs.lab_number(text))

    def test_a_path_belongs_to_the_lab_of_its_folder(self):
        lab = banklab_labs.lab_of_path(ROOT / "labs" / "05_swizzle" / "kernel.cu", ROOT)
        self.assertEqual((lab.number, lab.folder), ("05", "05_swizzle"))
        self.assertEqual(lab.stub, ROOT / "labs" / "05_swizzle" / "kernel.cu")
        self.assertEqual(lab.test, ROOT / "labs" / "05_swizzle" / "judge" / "test.cu")
        self.assertEqual(lab.probe, ROOT / "labs" / "05_swizzle" / "judge" / "probe.cu")
        self.assertEqual(lab.answers_path, ROOT / "solutions" / "05_swizzle" / "answers.toml")
        self.assertEqual(lab.cases("bad")[0].parent, ROOT / "solutions" / "05_swizzle" / "cases" / "bad")
        self.assertIsNone(banklab_labs.lab_of_path("common/include/banklab/model.hpp", ROOT))


class FindingLabs(unittest.TestCase):
    def test_every_lab_folder_of_the_course_is_a_lab_with_a_valid_description(self):
        labs, problems = banklab_labs.survey(ROOT)
        self.assertEqual(problems, [])
        folders = sorted(d.name for d in (ROOT / "labs").iterdir() if (d / "kernel.cu").is_file())
        self.assertEqual([lab.folder for lab in labs.values()], folders)
        for n, lab in labs.items():
            self.assertNotIn("lab", lab.description)      # the number is the folder's
            self.assertEqual(lab.folder[:2], n)
            self.assertTrue(lab.title and lab.summary and lab.namespace and lab.gates)

    def test_a_description_that_does_not_parse_is_an_error_not_a_missing_lab(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            (root / "labs" / "05_swizzle" / "judge").mkdir(parents=True)
            (root / "labs" / "05_swizzle" / "kernel.cu").write_text("")
            (root / "labs" / "05_swizzle" / "judge" / "lab.toml").write_text('title = \n')
            with self.assertRaisesRegex(schema.DescriptionError, "05_swizzle/judge/lab.toml"):
                banklab_labs.find_labs(root)

    def test_a_table_header_above_the_judges_keys_is_refused(self):
        text = banklab_labs.find_labs(ROOT)["05"].description_path.read_text()
        text = re.sub(r"^points\.gates = ", "[points]\ngates = ", text, flags=re.M)
        text = text.replace("# ---- judge ----", '# ---- judge ----\nconstants = ["TILE_DIM"]', 1)
        data = __import__("tomllib").loads(text)
        problems = banklab_labs.validate_description(data, Path("labs/05_swizzle/judge/lab.toml"))
        self.assertTrue(any("[points]: unknown key" in p for p in problems), problems)

    def test_the_lab_list_checks_the_whole_description_as_the_generator_does(self):
        # One validator (banklab.lab.description.check over banklab.lab.schema): an op the model
        # does not have, below the comment line that once split two validators, is refused here too.
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            shutil.copytree(ROOT / "labs" / "05_swizzle", root / "labs" / "05_swizzle")
            toml = root / "labs" / "05_swizzle" / "judge" / "lab.toml"
            toml.write_text(toml.read_text().replace('op = "st"\nwidth = 4', 'op = "sts"\nwidth = 4', 1))
            with self.assertRaisesRegex(schema.DescriptionError, r"05_swizzle/judge/lab.toml: \[\[instructions\]\] "
                                        r"#1 \(row_write\): key 'op' = 'sts'"):
                banklab_labs.find_labs(root)
            self.assertEqual(banklab_labs.find_labs(ROOT)["05"].description, __import__("tomllib").loads(
                banklab_labs.find_labs(ROOT)["05"].description_path.read_text()))   # checked on a copy: as written


class LabsCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-labs-check-"))
        cls.base = cls.tmp / "base"
        cls.base.mkdir()
        for d in ("labs", "solutions", "instructor", "grader/selftest/cheats", "cmake", "python", "tools/trace/tests",
                  "common/include/banklab", "common/src"):
            if (ROOT / d).is_dir():
                shutil.copytree(ROOT / d, cls.base / d)
        for f in ("CMakePresets.json", "README.md", "docs/claims.md", "grader/selftest/README.md",
                  "common/data/ops.toml", "grader/judge/clean_text.toml"):   # the data banklab reads at import
            if (ROOT / f).is_file():
                (cls.base / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / f, cls.base / f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def copy(self) -> Path:
        root = Path(tempfile.mkdtemp(dir=self.tmp))
        shutil.rmtree(root)
        shutil.copytree(self.base, root)
        return root

    def edit(self, path: Path, old: str, new: str, count: int = 1) -> None:
        text = path.read_text()
        self.assertIn(old, text, f"{path}: the test's edit no longer applies")
        path.write_text(text.replace(old, new, count))

    def fails(self, root: Path, *want: str) -> str:
        r = labs_check(root)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        for w in want:
            self.assertIn(w, r.stdout)
        return r.stdout

    def test_the_course_passes(self):
        r = labs_check(ROOT)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = labs_check(self.base)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_list_prints_one_line_per_lab(self):
        r = labs_check(ROOT, "--list")
        self.assertEqual(r.returncode, 0)
        self.assertEqual([line.split() for line in r.stdout.splitlines()],
                         [[n, lab.folder] for n, lab in banklab_labs.find_labs(ROOT).items()])

    def desc(self, root: Path, n: str) -> Path:
        return banklab_labs.find_labs(root)[n].description_path

    def test_a_lab_folder_without_a_description_fails(self):
        root = self.copy()
        self.desc(root, "03").unlink()
        self.fails(root, "labs/03_vector_lds/: no description labs/03_vector_lds/judge/lab.toml")

    def test_a_lab_file_missing_from_the_lab_folder_fails(self):
        for name in ("judge/probe.cu", "judge/test.cu", "figures.txt"):
            with self.subTest(name=name):
                root = self.copy()
                (root / "labs" / "03_vector_lds" / name).unlink()
                self.fails(root, f"labs/03_vector_lds/{name} is missing")

    def test_a_solution_folder_without_its_answers_or_its_lab_fails(self):
        root = self.copy()
        (root / "solutions" / "03_vector_lds" / "answers.toml").unlink()
        shutil.copytree(root / "solutions" / "02_broadcast", root / "solutions" / "07_orphan")
        self.fails(root, "solutions/03_vector_lds/answers.toml is missing",
                   "solutions/07_orphan/ has no labs/07_orphan/")

    def test_a_question_without_an_answer_and_an_answer_without_a_question_fail(self):
        root = self.copy()
        lab = banklab_labs.find_labs(root)["04"]
        name = lab.questions[0]["name"]
        self.edit(lab.answers_path, f"[{name}]", "[kNoSuchQuestion]")
        self.fails(root, f"solutions/04_padding/answers.toml: no [{name}] table",
                   "solutions/04_padding/answers.toml: [kNoSuchQuestion] answers no question")

    def test_an_answer_with_both_an_access_and_a_value_fails(self):
        root = self.copy()
        lab = banklab_labs.find_labs(root)["04"]
        name = lab.questions[0]["name"]
        self.edit(lab.answers_path, f"[{name}]\n", f"[{name}]\nvalue = \"1\"\n")
        self.fails(root, f"solutions/04_padding/answers.toml: [{name}] must hold exactly one of `access` and `value`")

    def test_a_known_bad_case_naming_another_labs_or_no_test_fails(self):
        root = self.copy()
        case = banklab_labs.find_labs(root)["04"].cases("bad")[0]
        text = case.read_text()
        test = re.search(r"EXPECT_FAIL:\s*(\S+)", text).group(1)
        case.write_text(text.replace(test, test.replace("Lab04", "Lab05")))
        self.fails(root, f"{case.relative_to(root).as_posix()}: its EXPECT_FAIL line must name a test of lab 04")

    def test_a_test_suite_of_another_lab_in_test_cu_fails(self):
        root = self.copy()
        self.edit(root / "labs" / "03_vector_lds" / "judge" / "test.cu", "TEST(Lab03", "TEST(Lab13")
        self.fails(root, "labs/03_vector_lds/judge/test.cu: test suite Lab13")

    def test_a_stray_folder_in_cases_and_a_labs_cheat_for_another_lab_fail(self):
        root = self.copy()
        (root / "solutions" / "04_padding" / "cases" / "good").mkdir()
        cheat = sorted((root / "solutions" / "04_padding" / "cases" / "cheats").glob("*.patch"))[0]
        cheat.write_text("// APPLIES: 05\n" + cheat.read_text())
        self.fails(root, "solutions/04_padding/cases/good: cases/ holds only the folders",
                   f"{cheat.relative_to(root).as_posix()}: a lab's own cheat applies to its folder's lab")

    def test_predict_constants_out_of_the_descriptions_order_fail_in_the_stub_and_in_the_solution(self):
        for where in ("labs", "solutions"):
            with self.subTest(where=where):
                root = self.copy()
                k = root / where / "05_swizzle" / "kernel.cu"
                text = k.read_text()
                a, b = "kUnswizzledColumnReadWavefronts", "kSwizzledColumnReadWavefronts"
                k.write_text(text.replace(a, "TMP_NAME").replace(b, a).replace("TMP_NAME", b))
                self.fails(root, f"{where}/05_swizzle/kernel.cu: namespace predict defines")

    def test_a_question_missing_from_kernel_cu_fails(self):
        root = self.copy()
        desc = self.desc(root, "02")
        self.edit(desc, 'name = "kStubTableLoad"', 'name = "kStubTableLoads"')
        self.edit(desc, 'asked = ["kStubTableLoad"]', 'asked = ["kStubTableLoads"]')   # its Layout test's
        self.edit(desc, 'kStubTableLoad = "', 'kStubTableLoads = "', 2)   # its variants' what and hint
        self.edit(root / "solutions" / "02_broadcast" / "variants.toml", "[kStubTableLoad]", "[kStubTableLoads]")
        out = self.fails(root, "labs/02_broadcast/kernel.cu: namespace predict defines",
                         "solutions/02_broadcast/kernel.cu: namespace predict defines")
        self.assertIn("kStubTableLoads", out)

    def test_a_kernel_in_another_namespace_fails(self):
        root = self.copy()
        self.edit(self.desc(root, "04"), 'namespace = "lab04"', 'namespace = "lab4"')
        self.fails(root, "labs/04_padding/kernel.cu: no `namespace lab4 {`")

    def test_a_gate_that_names_no_test_fails(self):
        root = self.copy()
        self.edit(self.desc(root, "01"), "Lab01Layout.", "Lab01Layuot.")
        self.fails(root, "labs/01_32way_conflict/judge/lab.toml: points.gates names 'Lab01Layuot.")

    def test_a_gate_may_name_a_generated_question_test(self):
        root = self.copy()
        lab = banklab_labs.find_labs(root)["05"]
        test = lab.questions[0]["test"]
        self.edit(self.desc(root, "05"), "points.gates = [",
                  f'points.gates = ["Lab05Predictions.{test}", ')
        r = labs_check(root)
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_an_instruction_the_probe_does_not_report_fails(self):
        root = self.copy()
        lab = banklab_labs.find_labs(root)["05"]
        name = lab.instructions[0]["name"]
        self.edit(self.desc(root, "05"), f'name = "{name}"', 'name = "no_such_instruction"')
        self.fails(root, "labs/05_swizzle/judge/probe.cu: defines no `access_no_such_instruction(...)`")

    def test_a_launcher_kernel_cu_does_not_define_fails(self):
        root = self.copy()
        lab = banklab_labs.find_labs(root)["06"]
        name = lab.launches[0]["launcher"]
        self.edit(self.desc(root, "06"), f'launcher = "{name}"', 'launcher = "no_such_launcher"')
        self.fails(root, "labs/06_ldmatrix/kernel.cu: defines no launcher `no_such_launcher(...)`")

    def test_a_readme_row_that_differs_from_the_summary_fails_and_write_regenerates_it(self):
        root = self.copy()
        self.edit(self.desc(root, "02"), 'summary = "', 'summary = "NEW: ')
        self.fails(root, "README.md: the lab table differs from the descriptions")
        r = labs_check(root, "--write")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("| NEW: ", (root / "README.md").read_text())

    def test_a_new_last_lab_makes_the_generated_lists_stale_and_write_fixes_them(self):
        # A new lab as the course makes one: both folders copied, the namespace and suites renamed,
        # and every other form of its number (lab 06, 06_ldmatrix, --lab 06, its cheats' _06: what
        # foreign_refs.py flags when left). Lab 06 copied to the number after the course's last lab.
        root = self.copy()
        last = max(banklab_labs.find_labs(root))
        new = f"{int(last) + 1:02d}"
        for side in ("labs", "solutions"):
            shutil.copytree(root / side / "06_ldmatrix", root / side / f"{new}_more")
            for f in sorted((root / side / f"{new}_more").rglob("*")):
                if f.is_file():
                    text = f.read_text().replace("lab06", f"lab{new}").replace("Lab06", f"Lab{new}")
                    text = re.sub(r"\b([Ll])ab 06\b", rf"\g<1>ab {new}", text).replace("06_ldmatrix", f"{new}_more")
                    f.unlink()
                    f.with_name(re.sub(r"_06$", f"_{new}", f.stem) + f.suffix).write_text(text.replace("--lab 06", f"--lab {new}"))
        out = self.fails(root, f"README.md: the first command should say (any lab: lab00 ... lab{new})",
                         f"CMakePresets.json: testPresets lab{new} is missing", "README.md: the lab table differs",
                         "README.md: the points-outcomes table has rows for labs",
                         "grader/selftest/README.md: the tables of cases differ",
                         "tools/trace/tests/lab_driver_labs.inc does not match the labs' descriptions")
        own = [line for line in out.splitlines() if re.match(rf"\s+(labs|solutions)/{new}_more/", line)]
        self.assertEqual(own, [])   # the new lab's own files agree
        # Without a judge, --write regenerates every list but the points row, and says so.
        r = labs_check(root, "--write", "--judge", str(root / "no-such-judge"))
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn(f"no points row for lab(s) {new}", r.stdout)
        self.assertEqual([line for line in r.stdout.splitlines() if line.startswith("  ")],
                         [line for line in r.stdout.splitlines() if "points" in line and line.startswith("  ")])
        self.assertIn(f"(any lab: lab00 ... lab{new})", (root / "README.md").read_text())
        self.assertIn(f"solutions/{new}_more/cases/bad/", (root / "grader" / "selftest" / "README.md").read_text())
        self.assertIn(f'"{new}_more/kernel.cu"', (root / "tools" / "trace" / "tests" / "lab_driver_labs.inc").read_text())
        # With a row for it (what points-outcomes writes), the course passes again.
        readme = (root / "README.md").read_text()
        row = next(line for line in readme.splitlines() if line.startswith(f"| {last} | "))
        (root / "README.md").write_text(readme.replace(row + "\n", row + "\n" + row.replace(f"| {last} |", f"| {new} |") + "\n"))
        r = labs_check(root)
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_a_case_description_edited_makes_the_selftest_table_stale_and_write_fixes_it(self):
        root = self.copy()
        case = banklab_labs.find_labs(root)["02"].cases("alternatives")[0]
        text = case.read_text()
        case.write_text(text.replace("\n", " A NEW WORD.\n", 1))
        self.fails(root, "grader/selftest/README.md: the tables of cases differ")
        r = labs_check(root, "--write")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("A NEW WORD.", (root / "grader" / "selftest" / "README.md").read_text())

if __name__ == "__main__":
    unittest.main()
