"""Tests of python/banklab/lab/foreign_refs.py: a copy of a lab renamed half-way is flagged, every
real lab passes, and a mention of another lab where a lab may name it is let through.

  python3 python/banklab_run.py -m unittest python/tests/test_foreign_refs.py -v
"""

import re
import shutil
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
from banklab.lab import foreign_refs   # noqa: E402
from banklab.lab import labs as banklab_labs   # noqa: E402

HAS_SOLUTIONS = (ROOT / "solutions" / "04_padding").is_dir()


def copy_lab(root: Path, src: str, number: str, folder: str, whole: bool) -> None:
    """Lab `src` (e.g. "04_padding") copied as `folder` ("08_padding") in both of root's lab folders, by
    the documented recipe (docs/dev/LAB_CONTRACT.md): labNN and LabNN renamed; with `whole`, every
    other form of its number too (lab NN, Lab NN, NN_name, --lab NN, its cheats' _NN names)."""
    old = src[:2]
    for side in ("labs", "solutions"):
        shutil.copytree(ROOT / side / src, root / side / folder)
        for f in sorted((root / side / folder).rglob("*")):
            if not f.is_file():
                continue
            text = f.read_text().replace(f"lab{old}", f"lab{number}").replace(f"Lab{old}", f"Lab{number}")
            if whole:
                text = re.sub(rf"\b([Ll])ab {old}\b", rf"\g<1>ab {number}", text)
                text = text.replace(src, folder).replace(f"--lab {old}", f"--lab {number}")
                if f.parent.name == "cheats" and f.stem.endswith(f"_{old}"):
                    f.unlink()
                    f = f.with_name(f.stem[:-len(old)] + number + f.suffix)
            f.write_text(text)


class ForeignRefs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def check(self, number="08", folder="08_padding"):
        return foreign_refs.check(number, folder, [self.root / "labs" / folder, self.root / "solutions" / folder], self.root)

    def test_every_real_lab_passes(self):
        labs = banklab_labs.find_labs(ROOT)
        self.assertGreaterEqual(len(labs), 8)
        for n, lab in labs.items():
            with self.subTest(lab=lab.folder):
                self.assertEqual(foreign_refs.check(n, lab.folder, [lab.dir, lab.solution_dir], ROOT), [])

    @unittest.skipUnless(HAS_SOLUTIONS, "the course's solutions/ (the student release has none)")
    def test_a_copy_of_lab_04_renamed_by_the_recipe_is_flagged_in_every_file_that_still_names_04(self):
        copy_lab(self.root, "04_padding", "08", "08_padding", whole=False)
        out = self.check()
        flagged = {m.split(":")[0] for m in out}
        still = {f.relative_to(self.root).as_posix() for side in ("labs", "solutions")
                 for f in (self.root / side / "08_padding").rglob("*")
                 if f.is_file() and (re.search(r"(?<!\d)04(?!\d)", f.read_text()) or f.stem.endswith("_04"))}
        self.assertGreaterEqual(len(still), 20)
        self.assertEqual(flagged, still)
        for want in ("labs/08_padding/kernel.cu:1: names lab 04 before its own lab 08",
                     "labs/08_padding/README.md:1: names lab 04 before its own lab 08",
                     "runs or builds lab 04's judge", "a lab's files run their own judge: --lab 08",
                     "solutions/08_padding/answers.toml:1: names lab 04's own file",
                     "a lab's files name their own: 08_padding/", "rename it ..._08.patch"):
            self.assertTrue(any(want in m for m in out), f"{want!r} not in:\n" + "\n".join(out))

    @unittest.skipUnless(HAS_SOLUTIONS, "the course's solutions/ (the student release has none)")
    def test_the_copy_renamed_whole_passes(self):
        copy_lab(self.root, "04_padding", "08", "08_padding", whole=True)
        self.assertEqual(self.check(), [])

    def write(self, rel: str, text: str) -> None:
        p = self.root / "labs" / "08_padding" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)

    def test_another_lab_named_after_the_lab_itself_or_by_its_handout_passes(self):
        self.write("kernel.cu", "// Lab 08: the transpose of lab 04 again, as in lab 04's padding.\n")
        self.write("README.md", "# Lab 08\n\nBefore this lab: [Lab 04](../04_padding/README.md); its case\n"
                   "solutions/04_padding/cases/bad/pad_two.patch. Run --lab 08.\n")
        self.write("notes.txt", "no lab number at all: 04 rows, 32 banks\n")
        self.assertEqual(self.check(), [])

    def test_each_rule_alone(self):
        cases = {
            "title": ("kernel.cu", "// Lab 04: padding.\n// (lab 08 since the copy)\n", "names lab 04 before its own"),
            "title, one word": ("judge/test.cu", "TEST(Lab04Layout, X) {}\n", "names lab 04 before its own"),
            "command": ("README.md", "# Lab 08\n    banklab-judge test --lab 04\n", "runs or builds lab 04's judge"),
            "preset": ("README.md", "# Lab 08\n    cmake --preset lab04\n", "runs or builds lab 04's judge"),
            "own file": ("README.md", "# Lab 08\nEdit only `labs/04_padding/kernel.cu`.\n", "names lab 04's own file"),
            "diff header": ("x.patch", "// lab 08\n--- a/solutions/04_padding/kernel.cu\n", "names lab 04's own file"),
        }
        for what, (rel, text, want) in cases.items():
            with self.subTest(rule=what):
                shutil.rmtree(self.root / "labs", ignore_errors=True)
                self.write(rel, text)
                out = self.check()
                self.assertEqual(len(out), 1, out)
                self.assertIn(f"labs/08_padding/{rel}:", out[0])
                self.assertIn(want, out[0])

    def test_a_cheat_named_for_another_lab_is_flagged_and_other_cases_are_not(self):
        cases = self.root / "solutions" / "08_padding" / "cases"
        for rel in ("cheats/kernel_bypasses_access_functions_04.patch", "alternatives/odd_row_stride_33.patch",
                    "cheats/conflict_free_only_in_block_0_08.patch"):
            (cases / rel).parent.mkdir(parents=True, exist_ok=True)
            (cases / rel).write_text("// Cheat of lab 08.\n")
        out = self.check()
        self.assertEqual(len(out), 1, out)
        self.assertIn("kernel_bypasses_access_functions_04.patch: is a cheat of lab 08 named for lab 04", out[0])


if __name__ == "__main__":
    unittest.main()
