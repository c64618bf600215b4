"""The LMS formats (banklab.grading.lms, issue 48 item 5): one class a format behind one interface,
registered in LMS_FORMATS, which write_lms_files, check_import_files and lms_of_run all read.
Checked as data, one check over every format (CuTe's swizzle tests: one generic check, cases as
data): each format's files match its own glob and carry its ID columns; a row without an id is
warned of with that format's fix, a row with one is not; a format added to the table is written
and checked with no other change; README's table of LMS files names exactly the table's formats.

  python3 -m unittest -v test_lms_formats
"""

import re
import shutil
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from batch_common import ROOT, read_csv  # noqa: E402
from banklab.grading import lms as blms   # noqa: E402
from banklab.grading.csvfile import write_csv   # noqa: E402
from banklab.grading.identity import identity_of   # noqa: E402
from banklab.grading.result import LabResult, Verdict   # noqa: E402


def result(student: str, lab: str = "05", points: float = 7.0) -> LabResult:
    v = Verdict(f"Lab{lab}Predictions.Q1", "cpu", "passed", "", points)
    r = LabResult(student, lab, "kernel.cu", "0" * 64, "cpu", [v])
    v.max_points, v.points = 10.0, points
    return r


#: Identities that give every format its ids (Canvas ID and login, Moodle's participant, a SIS id),
#: and one that gives none of them (a folder's name only).
WITH_IDS = {"ada": {"source": "blackboard", "id": "2001", "sis_id": "s1", "login": "ada", "name": "Ada Byron"}}
WITHOUT = {"bob": {"source": "folder"}}
MOODLE_IDS = {("ada", lab): {"source": "moodle", "id": "77", "name": "Ada Byron"} for lab in ("04", "05")}


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-lms-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, students: dict, lab_ids: dict | None = None) -> list[Path]:
        out = self.tmp / f"out{len(list(self.tmp.iterdir()))}"
        out.mkdir()
        return blms.write_lms_files([result(st, lab) for st in students for lab in ("04", "05")],
                                    students, out, lab_ids=lab_ids)


class EveryFormatWritesItsOwnFiles(Tmp):
    def test_each_formats_files_match_its_glob_and_carry_its_id_columns(self):
        written = self.write(WITH_IDS, MOODLE_IDS)
        out = written[0].parent
        self.assertEqual(sorted(p.name for p in out.iterdir()), sorted(p.name for p in written))
        for fmt in blms.LMS_FORMATS:
            with self.subTest(fmt.name):
                mine = sorted(out.glob(fmt.files))
                self.assertTrue(mine, f"{fmt.name} wrote no {fmt.files}")
                for path in mine:
                    rows = [r for r in read_csv(path) if "Points Possible" not in " ".join(r.values())]
                    self.assertEqual(len(rows), 1, path.name)
                    self.assertTrue(set(fmt.id_columns) <= set(rows[0]), (path.name, fmt.id_columns))
                    self.assertTrue(any(rows[0][c].strip() for c in fmt.id_columns), (path.name, rows[0]))
        self.assertEqual(sum(len(list(out.glob(f.files))) for f in blms.LMS_FORMATS), len(written),
                         "a file no format's glob names")

    def test_a_formats_score_is_its_share_of_the_points_possible(self):
        out = self.write(WITH_IDS, MOODLE_IDS)[0].parent
        self.assertEqual(read_csv(out / "lms.csv")[1]["banklab lab 05"], "70")
        self.assertEqual(read_csv(out / "lms-moodle-lab04.csv")[0]["Grade"], "70")


class AMissingIdIsWarnedOfPerFormat(Tmp):
    def test_a_row_without_ids_is_named_with_its_formats_fix(self):
        out = self.write(WITHOUT)[0].parent
        warned = blms.check_import_files(out)
        for fmt in blms.LMS_FORMATS:
            with self.subTest(fmt.name):
                mine = [w for w in warned if f"so {fmt.name} cannot match" in w]
                self.assertEqual(len(mine), len(list(out.glob(fmt.files))), warned)
                self.assertTrue(all(fmt.fix in w for w in mine))

    def test_rows_with_ids_are_not_warned_of(self):
        out = self.write(WITH_IDS, MOODLE_IDS)[0].parent
        self.assertEqual(blms.check_import_files(out), [])

    def test_only_the_lms_of_the_run_is_warned_of(self):
        out = self.write(WITHOUT)[0].parent
        for fmt in blms.LMS_FORMATS:
            with self.subTest(fmt.name):
                used = blms.lms_of_run({"x": {"source": fmt.source}}, None)
                self.assertEqual(used, {fmt.name})
                self.assertTrue(all(f"so {fmt.name} cannot match" in w for w in blms.check_import_files(out, used)))

    def test_a_roster_row_tells_its_lms_by_its_first_key(self):
        self.assertEqual(blms.lms_of_run({}, [{"participant": "5", "id": "9"}]), {"Moodle"})
        self.assertEqual(blms.lms_of_run({}, [{"id": "9", "login": "ada"}]), {"Canvas"})
        self.assertEqual(blms.lms_of_run({}, [{"login": "ada"}]), {"Blackboard"})
        self.assertEqual(blms.lms_of_run({}, [{"name": "Ada"}]), set())


class TinyLms(blms.LmsFormat):
    """A format only this test knows: one file, one ID column."""
    name, source, roster_key = "Tiny", "tiny", "tiny_id"
    files = "lms-tiny.csv"
    id_columns = ("Tiny ID",)
    fix = "give the tiny LMS its ids"

    def write(self, scores, out):
        write_csv(out / self.files, ["Tiny ID", "Score"],
                  [[identity_of(scores.ids, st).get("tiny", ""), scores.score(st, "05")] for st in scores.students()])
        return [out / self.files]


class ANewFormatIsOneEntryOfTheTable(Tmp):
    def test_a_format_added_to_the_table_is_written_and_checked(self):
        with mock.patch.object(blms, "LMS_FORMATS", blms.LMS_FORMATS + (TinyLms(),)):
            written = self.write(WITHOUT)
            self.assertIn("lms-tiny.csv", [p.name for p in written])
            warned = blms.check_import_files(written[0].parent, {"Tiny"})
            self.assertEqual(len(warned), 1, warned)
            self.assertIn("give the tiny LMS its ids", warned[0])
            self.assertEqual(blms.lms_of_run({"x": {"source": "tiny"}}, None), {"Tiny"})
        self.assertNotIn("lms-tiny.csv", [p.name for p in self.write(WITHOUT)])


class ReadmeNamesEveryFormat(unittest.TestCase):
    def test_readmes_table_of_lms_files_is_the_tables_formats(self):
        rows = re.findall(r"^\| `(lms[^`]*\.csv)` \| (\w+) \|", (ROOT / "README.md").read_text(), re.M)
        self.assertEqual({(f.replace("NN", "*"), lms) for f, lms in rows},
                         {(f.files, f.name) for f in blms.LMS_FORMATS})


if __name__ == "__main__":
    unittest.main()
