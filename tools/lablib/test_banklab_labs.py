"""Tests of what a lab is (tools/lablib/banklab_labs.py) and of tools/labs-check, which must fail
when a lab's files disagree with its description: each rule is broken in a copy of the course and
labs-check must name the file; the real tree must pass.

  python3 -m unittest discover -s tools/lablib -p 'test_*.py' -v
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
sys.path.insert(0, str(HERE))
import banklab_labs as bl   # noqa: E402

LABS_CHECK = ROOT / "tools" / "labs-check"


def labs_check(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(LABS_CHECK), "--root", str(root), *args],
                          capture_output=True, text=True, timeout=120)


class LabNumbers(unittest.TestCase):
    def test_every_form_of_a_lab_number_is_read_by_one_parser(self):
        for text in ("05", "lab05", "Lab05", "Lab05Layout.TileIndexIsInBounds", "Lab05OnGpu.TracedX",
                     "05_swizzle", "labs/05_swizzle/kernel.cu", "/x/solutions/05_swizzle/README.md",
                     "labs/05_swizzle/test.cu", "labs/05_swizzle/lab.toml", "solutions/05_swizzle/cases/bad/x.patch"):
            with self.subTest(text=text):
                self.assertEqual(bl.lab_number(text), "05")

    def test_what_is_not_a_lab_number_gives_none(self):
        for text in ("", "kernel.cu", "lab5", "050_x", "junit-lab05.xml", "Lab", "labs/"):
            with self.subTest(text=text):
                self.assertIsNone(bl.lab_number(text))

    def test_a_path_belongs_to_the_lab_of_its_folder(self):
        lab = bl.lab_of_path(ROOT / "labs" / "05_swizzle" / "kernel.cu", ROOT)
        self.assertEqual((lab.number, lab.folder), ("05", "05_swizzle"))
        self.assertEqual(lab.stub, ROOT / "labs" / "05_swizzle" / "kernel.cu")
        self.assertEqual(lab.test, ROOT / "grader" / "lab05_test.cu")
        self.assertIsNone(bl.lab_of_path("common/include/banklab/model.hpp", ROOT))


class FindingLabs(unittest.TestCase):
    def test_every_lab_folder_of_the_course_is_a_lab_with_a_valid_description(self):
        labs, problems = bl.survey(ROOT)
        self.assertEqual(problems, [])
        folders = sorted(d.name for d in (ROOT / "labs").iterdir() if (d / "kernel.cu").is_file())
        self.assertEqual([lab.folder for lab in labs.values()], folders)
        for n, lab in labs.items():
            self.assertEqual(lab.description["lab"], n)
            self.assertTrue(lab.title and lab.summary and lab.namespace and lab.gates)

    def test_a_description_that_does_not_parse_is_an_error_not_a_missing_lab(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            (root / "labs" / "05_swizzle").mkdir(parents=True)
            (root / "labs" / "05_swizzle" / "kernel.cu").write_text("")
            (root / "grader").mkdir()
            (root / "grader" / "lab05.toml").write_text('lab = "05"\nfolder = "05_swizzle"\ntitle = \n')
            with self.assertRaisesRegex(bl.DescriptionError, "lab05.toml"):
                bl.find_labs(root)

    def test_a_table_header_above_the_judges_keys_is_refused(self):
        text = (ROOT / "grader" / "lab05.toml").read_text()
        text = re.sub(r"^points\.gates = ", "[points]\ngates = ", text, flags=re.M)
        text = text.replace("# ---- judge ----", '# ---- judge ----\nconstants = ["TILE_DIM"]', 1)
        data = __import__("tomllib").loads(text)
        problems = bl.validate_description(data, Path("labs/05_swizzle/lab.toml"))
        self.assertTrue(any("[points] has an unknown key" in p for p in problems), problems)


class LabsCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-labs-check-"))
        cls.base = cls.tmp / "base"
        cls.base.mkdir()
        for d in ("labs", "solutions", "instructor", "grader/selftest/bad", "grader/selftest/alternatives", "cmake"):
            if (ROOT / d).is_dir():
                shutil.copytree(ROOT / d, cls.base / d)
        for pat in ("grader/lab*.toml", "grader/lab*_test.cu", "grader/lab*_probe.cu"):
            for f in ROOT.glob(pat):
                shutil.copy2(f, cls.base / "grader" / f.name)
        for f in ("CMakePresets.json", "README.md", "docs/claims.md"):
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
                         [[n, lab.folder] for n, lab in bl.find_labs(ROOT).items()])

    def test_a_lab_folder_without_a_description_fails(self):
        root = self.copy()
        (root / "grader" / "lab03.toml").unlink()
        self.fails(root, "labs/03_vector_lds/: no description labs/03_vector_lds/lab.toml")

    def test_a_description_without_its_folder_fails(self):
        root = self.copy()
        self.edit(root / "grader" / "lab03.toml", 'folder = "03_vector_lds"', 'folder = "03_vector_loads"')
        self.fails(root, 'labs/03_vector_lds/lab.toml: folder = "03_vector_loads" but labs/03_vector_loads/kernel.cu does not exist')

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
        self.edit(root / "grader" / "lab02.toml", 'name = "kStubTableLoad"', 'name = "kStubTableLoads"')
        out = self.fails(root, "labs/02_broadcast/kernel.cu: namespace predict defines",
                         "solutions/02_broadcast/kernel.cu: namespace predict defines")
        self.assertIn("kStubTableLoads", out)

    def test_a_kernel_in_another_namespace_fails(self):
        root = self.copy()
        self.edit(root / "grader" / "lab04.toml", 'namespace = "lab04"', 'namespace = "lab4"')
        self.fails(root, "labs/04_padding/kernel.cu: no `namespace lab4 {`")

    def test_a_gate_that_names_no_test_fails(self):
        root = self.copy()
        self.edit(root / "grader" / "lab01.toml", "Lab01Layout.", "Lab01Layuot.")
        self.fails(root, "labs/01_32way_conflict/lab.toml: points.gates names 'Lab01Layuot.")

    def test_a_gate_may_name_a_generated_question_test(self):
        root = self.copy()
        lab = bl.find_labs(root)["05"]
        test = lab.questions[0]["test"]
        self.edit(root / "grader" / "lab05.toml", "points.gates = [",
                  f'points.gates = ["Lab05Predictions.{test}", ')
        r = labs_check(root)
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_an_instruction_the_probe_does_not_report_fails(self):
        root = self.copy()
        lab = bl.find_labs(root)["05"]
        name = lab.instructions[0]["name"]
        self.edit(root / "grader" / "lab05.toml", f'name = "{name}"', 'name = "no_such_instruction"')
        self.fails(root, "labs/05_swizzle/probe.cu: defines no `access_no_such_instruction(...)`")

    def test_a_launcher_kernel_cu_does_not_define_fails(self):
        root = self.copy()
        lab = bl.find_labs(root)["06"]
        name = lab.launches[0]["launcher"]
        self.edit(root / "grader" / "lab06.toml", f'launcher = "{name}"', 'launcher = "no_such_launcher"')
        self.fails(root, "labs/06_ldmatrix/kernel.cu: defines no launcher `no_such_launcher(...)`")

    def test_a_readme_row_that_differs_from_the_summary_fails_and_write_regenerates_it(self):
        root = self.copy()
        self.edit(root / "grader" / "lab02.toml", 'summary = "', 'summary = "NEW: ')
        self.fails(root, "README.md: the lab table differs from the descriptions")
        r = labs_check(root, "--write")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("| NEW: ", (root / "README.md").read_text())

    def test_a_new_last_lab_makes_the_readmes_lab_ranges_stale_and_write_fixes_them(self):
        root = self.copy()
        shutil.copytree(root / "labs" / "06_ldmatrix", root / "labs" / "07_more")
        shutil.copytree(root / "solutions" / "06_ldmatrix", root / "solutions" / "07_more")
        for suffix in ("_test.cu", "_probe.cu"):
            shutil.copy2(root / "grader" / f"lab06{suffix}", root / "grader" / f"lab07{suffix}")
        text = (root / "grader" / "lab06.toml").read_text().replace('lab = "06"', 'lab = "07"') \
            .replace('folder = "06_ldmatrix"', 'folder = "07_more"').replace("Lab06", "Lab07")
        (root / "grader" / "lab07.toml").write_text(text)
        self.edit(root / "grader" / "lab07_test.cu", "Lab06", "Lab07", -1)
        out = self.fails(root, "README.md: the first command should say (any lab: lab00 ... lab07)",
                         "CMakePresets.json: testPresets lab07 is missing", "README.md: the lab table differs")
        self.assertNotIn("lab07.toml", out.replace("README.md", ""))   # the new lab's own files agree
        r = labs_check(root, "--write")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("(any lab: lab00 ... lab07)", (root / "README.md").read_text())

    def test_a_description_cmake_reads_differently_fails(self):
        root = self.copy()
        # A TOML literal string: Python reads it, banklab_find_labs only reads "..." strings.
        self.edit(root / "grader" / "lab03.toml", 'folder = "03_vector_lds"', "folder = '03_vector_lds'")
        self.fails(root, "cmake/BanklabLab.cmake: banklab_find_labs finds")


if __name__ == "__main__":
    unittest.main()
