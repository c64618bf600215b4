"""LMS files right across labs and runs into one --out (issue 46, items 3-5), with the judge's
test double: Moodle's participant ids are per assignment, so each lab's worksheet keeps the ids of
its own export; the points table each lab was scored with is kept in --out, another one is refused
unless the run says --rescore, and a run for another lab leaves each lab's scores as they were.

  python3 -m unittest -v test_lms_across_runs
"""

import json
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from batch_common import FAKE, GRADE_CLASS, ROOT, read_csv  # noqa: E402

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



class PointsTablesAreKept(Tmp):
    def points_dir(self, name: str, factor: float) -> Path:
        w = (ROOT / "grader" / "points" / "weights.toml").read_text()
        m = re.search(r"(?m)^predictions\s*=\s*([0-9.]+)", w)
        return put(self.tmp / name / "weights.toml",
                   w.replace(m.group(0), f"predictions = {float(m.group(1)) * factor}")).parent

    def rows(self, lab: str) -> list[dict]:
        return [r for r in read_csv(self.out / "results.csv") if r["lab"] == lab]

    def test_each_lab_keeps_its_table_and_another_is_only_taken_with_rescore(self):
        subs = self.tmp / "subs"
        put(subs / "alice" / "kernel.cu", SOLVED)
        put(subs / "bob" / "kernel.cu", STUB)
        self.grade(subs, "05")
        self.grade(subs, "01")
        lab01, lab05 = self.rows("01"), self.rows("05")
        self.assertEqual((len(lab01), len(lab05)), (2, 2))
        self.assertTrue((self.out / "points" / "lab05.json").is_file())
        p3 = self.points_dir("p3", 3)
        # Lab 05 re-scored with P: lab 01's results keep their table.
        r = self.grade(subs, "05", "--rescore", "--points-dir", p3)
        self.assertIn("re-scored lab(s) 05 with", r.stdout)
        rescored05 = self.rows("05")
        self.assertNotEqual(rescored05, lab05)
        self.assertEqual(self.rows("01"), lab01)
        # A later run for lab 01 without --points-dir leaves lab 05 as P scored it.
        r = self.grade(subs, "01")
        self.assertIn("2 unchanged and reused, 0 re-scored", r.stdout)
        self.assertEqual(self.rows("05"), rescored05)
        book = {b["student"]: b for b in read_csv(self.out / "gradebook.csv")}
        col05 = next(k for k in book["alice"] if k.startswith("lab05 ("))
        self.assertEqual(float(book["alice"][col05]), float(next(x for x in rescored05 if x["student"] == "alice")["points"]))
        # Another table for lab 05 without --rescore: refused, nothing changed; the kept one: reused.
        before = (self.out / "gradebook.csv").read_text()
        r = self.grade(subs, "05", "--points-dir", self.points_dir("p5", 5), ok=(2,))
        self.assertIn("refused: --points-dir", r.stderr)
        self.assertIn("lab(s) 05 another points table", r.stderr)
        self.assertIn("--rescore", r.stderr)
        self.assertEqual((self.out / "gradebook.csv").read_text(), before)
        r = self.grade(subs, "05", "--points-dir", p3)
        self.assertIn("2 unchanged and reused, 0 re-scored", r.stdout)
        # Without --points-dir lab 05 keeps P's table, and says the course's differs; --rescore takes the course's.
        r = self.grade(subs, "05")
        self.assertIn("2 unchanged and reused, 0 re-scored", r.stdout)
        self.assertIn("lab 05 is scored with the table its results were scored with", r.stderr)
        self.assertEqual(self.rows("05"), rescored05)
        self.grade(subs, "05", "--rescore")
        self.assertEqual(self.rows("05"), lab05)
        self.assertEqual(self.rows("01"), lab01)



class NothingGradableIsNotJudgedAnywhere(Tmp):
    """A PDF alone and two .cu files: nothing of the lab was judged, so every output says "not
    judged" (blank where a number would go), never 0, FAILED or complete; a real 0 stays a 0."""

    def test_every_output_says_not_judged(self):
        subs = self.tmp / "subs"
        put(subs / "alice" / "kernel.cu", SOLVED)
        put(subs / "bob" / "report.pdf", "%PDF-1.4\n")
        put(subs / "carol" / "a.cu", SOLVED)
        put(subs / "carol" / "b.cu", SOLVED)
        put(subs / "dave" / "kernel.cu", "// FAKE-JUDGE: nocompile\n")
        for graded in ((), ("--tier", "all", "--graded")):
            with self.subTest(graded=graded):
                shutil.rmtree(self.out, ignore_errors=True)
                p = self.grade(subs, "05", *graded, ok=(0, 4))
                lines = {ln.split()[0]: ln for ln in p.stdout.splitlines() if " lab 05 " in ln}
                for who in ("bob", "carol"):
                    self.assertRegex(lines[who], r"lab 05  not judged: ")
                    self.assertNotRegex(lines[who], r" 0 / |failed")
                book = {b["student"]: b for b in read_csv(self.out / "gradebook.csv")}
                col = next(k for k in book["alice"] if k.startswith("lab05 ("))
                for who in ("bob", "carol"):
                    self.assertEqual((book[who][col], book[who]["lab05 complete"]), ("", "not judged"))
                    self.assertIn("05", book[who]["incomplete labs"].split())
                    self.assertEqual(book[who]["total"], "")          # no lab of theirs was judged
                res = {r["student"]: r for r in read_csv(self.out / "results.csv")}
                for who in ("bob", "carol"):
                    self.assertEqual((res[who]["points"], res[who]["complete"], res[who]["failed_tests"]),
                                     ("", "not judged", ""))
                    md = (self.out / "feedback" / f"{who}.md").read_text()
                    html = (self.out / "feedback" / f"{who}.html").read_text()
                    for text in (md, html):
                        self.assertIn("not judged", text)
                        self.assertNotIn("FAILED", text)
                        self.assertNotRegex(text, r"Total: 0 / ")
                if graded:      # no GPU here: dave's file is not graded (a fault), never "not judged"
                    self.assertEqual(res["dave"]["complete"], "not graded")
                    continue
                self.assertNotEqual(res["dave"]["points"], "")        # a file that does not compile: judged
                self.assertIn("FAILED", (self.out / "feedback" / "dave.md").read_text())



class RosterStudentsWhoHandedInNothingAreListed(Tmp):
    def test_listed_counted_and_blank_with_their_ids_and_names_from_the_roster(self):
        subs = self.tmp / "canvas"
        put(subs / "adamsalice_1001_51001_kernel.cu", SOLVED)
        put(subs / "clarkcarol_LATE_1003_51003_kernel.cu", STUB)
        roster = put(self.tmp / "roster.csv", "Student,ID,SIS User ID,SIS Login ID,Section\n"
                     "\"Adams, Alice\",1001,S1001,aadams,A\n\"Brown, Bob\",1002,S1002,bbrown,A\n"
                     "\"Clark, Carol\",1003,S1003,cclark,B\n")
        self.grade(subs, "05", "--roster", roster)
        book = {b["student"]: b for b in read_csv(self.out / "gradebook.csv")}
        self.assertEqual(set(book), {"adamsalice", "clarkcarol", "Bob Brown"})      # no one twice
        col = next(k for k in book["adamsalice"] if k.startswith("lab05 ("))
        self.assertEqual(book["Bob Brown"][col], "")
        # Names from the roster: the row with the export's Canvas ID names "adamsalice" Alice Adams.
        self.assertEqual((book["adamsalice"]["name"], book["clarkcarol"]["name"]), ("Alice Adams", "Carol Clark"))
        self.assertTrue((self.out / "feedback" / "adamsalice.md").read_text().startswith("# Feedback for Alice Adams\n"))
        self.assertIn("<h1>Feedback for Alice Adams</h1>", (self.out / "feedback" / "adamsalice.html").read_text())
        status = {r["student"]: r["status"] for r in read_csv(self.out / "not-graded.csv")}
        self.assertEqual(status, {"Bob Brown": "nothing handed in"})
        counts = json.loads((self.out / "summary.json").read_text())["labs"]["05"]
        self.assertEqual((counts["students"], counts["submissions"], counts["nothing_handed_in"]), (3, 2, 1))
        self.assertIn("nothing handed in", (self.out / "summary.md").read_text())
        lms = {r["Student"]: r for r in read_csv(self.out / "lms.csv")[1:]}
        self.assertEqual((lms["Bob Brown"]["ID"], lms["Bob Brown"]["SIS Login ID"], lms["Bob Brown"]["banklab lab 05"]),
                         ("1002", "bbrown", ""))
        # Without a roster nobody is invented.
        shutil.rmtree(self.out)
        self.grade(subs, "05")
        self.assertEqual({b["student"] for b in read_csv(self.out / "gradebook.csv")}, {"adamsalice", "clarkcarol"})
        self.assertNotIn("name", read_csv(self.out / "gradebook.csv")[0])      # no roster: no other name



class WarningsOnlyForTheLmsOfTheRun(Tmp):
    def test_a_canvas_export_hears_nothing_of_moodle_or_blackboard(self):
        subs = self.tmp / "canvas"
        put(subs / "adamsalice_1001_51001_kernel.cu", SOLVED)
        put(subs / "brownbob_1002_51002_kernel.cu", STUB)
        p = self.grade(subs, "05")
        self.assertNotIn("lms-moodle-lab05.csv:", p.stderr)
        self.assertNotIn("lms-blackboard.csv:", p.stderr)
        self.assertTrue((self.out / "lms-moodle-lab05.csv").is_file())      # still written
        # Folders (no LMS seen): every file's missing ids are said, as before.
        put(self.tmp / "folders" / "aadams" / "kernel.cu", SOLVED)
        shutil.rmtree(self.out)
        p = self.grade(self.tmp / "folders", "05")
        for name in ("lms.csv:", "lms-moodle-lab05.csv:", "lms-blackboard.csv:"):
            self.assertIn(name, p.stderr)



class CanvasLatenessIsKeptAndShown(Tmp):
    def test_the_late_marker_reaches_the_gradebook_and_the_feedback_and_stays_with_its_lab(self):
        subs = self.tmp / "canvas05"
        put(subs / "adamsalice_1001_51001_kernel.cu", SOLVED)
        put(subs / "brownbob_LATE_1002_51002_kernel-1.cu", SOLVED)
        self.grade(subs, "05")
        book = {b["student"]: b for b in read_csv(self.out / "gradebook.csv")}
        self.assertEqual((book["brownbob"]["lab05 late"], book["adamsalice"]["lab05 late"]), ("late", ""))
        self.assertIn("Handed in late", (self.out / "feedback" / "brownbob.md").read_text())
        self.assertIn("Handed in late", (self.out / "feedback" / "brownbob.html").read_text())
        self.assertNotIn("Handed in late", (self.out / "feedback" / "adamsalice.md").read_text())
        col = next(k for k in book["brownbob"] if k.startswith("lab05 ("))
        self.assertEqual(book["brownbob"][col], book["adamsalice"][col])     # lateness changes no points
        # Lab 01 from an export where nobody is late: lab 05's marker stays, lab 01 has none.
        subs01 = self.tmp / "canvas01"
        put(subs01 / "adamsalice_1001_61001_kernel.cu", SOLVED)
        put(subs01 / "brownbob_1002_61002_kernel.cu", SOLVED)
        self.grade(subs01, "01")
        book = {b["student"]: b for b in read_csv(self.out / "gradebook.csv")}
        self.assertEqual(book["brownbob"]["lab05 late"], "late")
        self.assertNotIn("lab01 late", book["brownbob"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
