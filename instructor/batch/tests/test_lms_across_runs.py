"""LMS files right across labs and runs into one --out (issue 46, items 3-5), with the judge's
test double: Moodle's participant ids are per assignment, so each lab's worksheet keeps the ids of
its own export.

  python3 -m unittest -v test_lms_across_runs
"""

import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from batch_common import FAKE, GRADE_CLASS, read_csv  # noqa: E402

SOLVED = "// FAKE-JUDGE: solved\n"
STUB = "// FAKE-JUDGE: stub\n"


def put(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-across-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.out = self.tmp / "out"

    def grade(self, subs: Path, lab: str, *args, ok=(0,)):
        p = subprocess.run([sys.executable, str(GRADE_CLASS), str(subs), "--out", str(self.out), "--lab", lab,
                            "--judge", str(FAKE), "--timeout", "60", *map(str, args)],
                           capture_output=True, text=True, timeout=600)
        self.assertIn(p.returncode, ok, p.stdout + p.stderr)
        return p


class MoodleIdsArePerLab(Tmp):
    def export(self, name: str, ids: dict[str, str]) -> Path:
        subs = self.tmp / name
        for person, pid in ids.items():
            put(subs / f"{person}_{pid}_assignsubmission_file_" / "kernel.cu", SOLVED)
        return subs

    def sheet(self, lab: str) -> dict[str, str]:
        return {r["Full name"]: r["Identifier"] for r in read_csv(self.out / f"lms-moodle-lab{lab}.csv")}

    def test_a_second_lab_leaves_the_first_labs_participant_ids(self):
        self.grade(self.export("lab05", {"Alice Adams": "2000101", "Bob Brown": "2000102"}), "05")
        self.assertEqual(self.sheet("05"), {"Alice Adams": "Participant 2000101", "Bob Brown": "Participant 2000102"})
        self.grade(self.export("lab01", {"Alice Adams": "3000501", "Bob Brown": "3000502"}), "01")
        self.assertEqual(self.sheet("01"), {"Alice Adams": "Participant 3000501", "Bob Brown": "Participant 3000502"})
        self.assertEqual(self.sheet("05"), {"Alice Adams": "Participant 2000101", "Bob Brown": "Participant 2000102"})
        # Lab 05 graded again from its own export: its ids as before, lab 01's untouched.
        self.grade(self.export("lab05", {"Alice Adams": "2000101", "Bob Brown": "2000102"}), "05")
        self.assertEqual(self.sheet("05")["Bob Brown"], "Participant 2000102")
        self.assertEqual(self.sheet("01")["Bob Brown"], "Participant 3000502")

    def test_a_student_only_in_the_second_export_gets_that_labs_id_and_no_row_in_the_first(self):
        self.grade(self.export("lab05", {"Alice Adams": "2000101"}), "05")
        self.grade(self.export("lab01", {"Alice Adams": "3000501", "Carol Clark": "3000503"}), "01")
        self.assertEqual(self.sheet("05"), {"Alice Adams": "Participant 2000101"})
        self.assertEqual(self.sheet("01")["Carol Clark"], "Participant 3000503")


if __name__ == "__main__":
    unittest.main(verbosity=2)
