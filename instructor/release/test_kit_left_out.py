#!/usr/bin/env python3
"""The kit's release rule can fail, and does not fail the innocent (CTest:
release.KitCheckCatchesWhatIsPlantedInARelease).

  python3 -m unittest -v test_kit_left_out        (in instructor/release/)

One student release is written (instructor/make-release) and checked clean by kit_left_out.py;
each case copies it and plants one thing: a file of the kit, a line that runs the kit by its path,
a Python path to the kit in parts. The innocent lines are paths that only look like the kit's: the
instructor's grader checkout that grade.yml runs (grader/instructor/platforms/...), the
instructor-only pages (docs/instructor/), an instructor-only check's name. A course whose
instructor-only.txt forgets the room fails too.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
COURSE = HERE.parents[1]
import kit_left_out  # noqa: E402  (run in this folder: python3 -m unittest puts it first on the path)


class KitLeftOut(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-kit-rule-"))
        cls.release = cls.tmp / "release"
        subprocess.run([sys.executable, COURSE / "instructor" / "make-release", cls.release], check=True,
                       stdout=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def planted(self, rel: str, text: str | None = None, copy_of: str | None = None) -> list[str]:
        copy = self.tmp / f"copy-{self._testMethodName}"
        shutil.copytree(self.release, copy)
        dst = copy / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if copy_of:
            shutil.copy2(COURSE / copy_of, dst)
        else:
            dst.write_text((dst.read_text() if dst.is_file() else "") + text + "\n")
        return kit_left_out.check(copy, COURSE)

    def test_the_release_holds_no_file_of_the_kit_and_names_none(self):
        self.assertEqual(kit_left_out.check(self.release, COURSE), [])
        self.assertFalse((self.release / "instructor").exists())

    def test_a_file_of_the_kit_in_the_release_is_caught(self):
        bad = self.planted("instructor/batch/grade-class", copy_of="instructor/batch/grade-class")
        self.assertTrue(any("instructor/batch/grade-class: a file of the kit" in b for b in bad), bad)

    def test_a_line_that_runs_the_kit_is_caught(self):
        bad = self.planted("README.md", "Grade a class: instructor/batch/grade-class EXPORT --out grades")
        self.assertTrue(any(b.startswith("README.md:") and "instructor/batch" in b for b in bad), bad)

    def test_a_python_path_to_the_kit_in_parts_is_caught(self):
        bad = self.planted("grader/run_summary.py", 'X = ROOT / "instructor" / "platforms" / "grade-platform"')
        self.assertTrue(any(b.startswith("grader/run_summary.py:") for b in bad), bad)

    def test_paths_that_only_look_like_the_kit_pass(self):
        bad = self.planted(".github/workflows/grade.yml",
                           "# bash grader/instructor/platforms/install-grader.sh; docs/instructor/index.md; "
                           "solutions/04_padding/instructor_edge_tiles_test.cu; the instructor's batch grader")
        self.assertEqual(bad, [])

    def test_a_list_that_forgets_the_kit_is_caught(self):
        course = self.tmp / "course"
        (course / "instructor" / "release").mkdir(parents=True)
        (course / "instructor" / "release" / "instructor-only.txt").write_text("solutions/\n")
        subprocess.run(["git", "init", "-q", str(course)], check=True)
        subprocess.run(["git", "-C", str(course), "add", "-A"], check=True)
        bad = kit_left_out.check(self.release, course)
        self.assertTrue(any("does not leave instructor/ out" in b for b in bad), bad)


if __name__ == "__main__":
    unittest.main()
