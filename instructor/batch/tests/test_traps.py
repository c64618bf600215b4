"""The traps an instructor falls into (issue 23 item 5, issue 21 family 4), each with the export
shape that sets it off, graded by instructor/batch/grade-class with the TEST DOUBLE judge
(tests/fake_judge.py: these check what the batch grader does with uploads, names and verdicts):

- CsvInjection: every CSV the batch grader writes quotes a cell a spreadsheet would run;
- Archives: submission.zip, a zip with __MACOSX/, kernel.tar.gz, kernel.cu.txt grade like the bare
  kernel.cu; a zip bomb, a `..` entry, an absolute path, a link are refused by name; an upload
  the grader does not recognise is named in the gradebook;
- LmsExports: Moodle folders, Blackboard's files and receipts, Canvas's files, folders named by
  login or by name with a roster: each LMS file has one row per student and its ID columns;
- Rescoring: a weight change is refused without --rescore, which re-scores the stored verdicts
  without running the judge, and the LMS column's points possible does not move;
- Feedback: a hang's message leads with its cause; a stub's HTML keeps one picture per lab and
  every drawing as text (it was 930 KB for labs 04 and 05), a compiler's flood is cut;
- Packaging: the PrairieLearn image commands of instructor/platforms/prairielearn/README.md run as
  written (docker itself is a stand-in that checks the build context).

  python3 -m unittest discover -s instructor/batch/tests -p 'test_traps.py' -v
"""

import csv
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import unittest
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
from banklab.grading import judging   # noqa: E402
from banklab.grading import identity as bi   # noqa: E402
from banklab.grading import archives   # noqa: E402
from banklab.grading.result import LabResult, Verdict, fmt_points   # noqa: E402
from banklab.grading import reports as br   # noqa: E402
from banklab.grading import lms as blms   # noqa: E402
from banklab.grading import csvfile  # noqa: E402

FAKE = HERE / "fake_judge.py"
GRADE_CLASS = HERE.parent / "grade-class"
SOLVED = "// FAKE-JUDGE: solved\n"
STUB = "// FAKE-JUDGE: stub\n"
WEIGHTS = tomllib.loads((ROOT / "grader" / "points" / "weights.toml").read_text())["roles"]
CPU_SOLVED = WEIGHTS["predictions"] + WEIGHTS["layout"]       # a solved lab on the CPU tier


def grade_class(subs: Path, out: Path, *args, judge=FAKE, lab="05"):
    return subprocess.run([sys.executable, str(GRADE_CLASS), str(subs), "--out", str(out), "--lab", lab,
                           "-j", "2", "--timeout", "60", "--judge", str(judge), *map(str, args)],
                          capture_output=True, text=True, timeout=600)


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def put(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(data, bytes) else path.write_text)(data)
    return path


def make_zip(path: Path, entries: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, target)
    return path


def make_tar(path: Path, entries: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as t:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            t.addfile(info)
    return path


class Export(unittest.TestCase):
    """A temporary folder per test class: SUBS (the LMS export) and OUT (grade-class's)."""
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-traps-"))
        cls.tmp.chmod(0o755)
        cls.subs, cls.out = cls.tmp / "export", cls.tmp / "grades"
        cls.subs.mkdir()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)


# ----------------------------------------------------------------------------- family 4: CSV

# Folder names (a folder's name cannot hold "/": the issue's =HYPERLINK("http://...") comes in
# whole through Blackboard's receipt below, whose "Name:" line is the student's text).
FORMULA_NAMES = ['=HYPERLINK("http:x";"Mallory")', "+1+1", "-2+3", "@SUM(A1)", "\tTab start", "\rCR start",
                 "=cmd| calc!A0"]
MALLORY = '=HYPERLINK("http://x";"Mallory")'


class CsvInjection(Export):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for name in FORMULA_NAMES + ["Plain Name"]:
            put(cls.subs / name / "kernel.cu", SOLVED)
        put(cls.subs / "Tab Upload" / "=1+2.pdf", "not a kernel")   # a file name in the notes column
        put(cls.subs / "Lab 5_mallory_attempt_2026-11-20-10-30-45_kernel.cu", SOLVED)
        put(cls.subs / "Lab 5_mallory_attempt_2026-11-20-10-30-45.txt", f"Name: {MALLORY} (=mallory)\n")
        # "Plain Name" is a folder: its roster row is only proposed, and written once confirmed.
        cls.run_ = grade_class(cls.subs, cls.out, "--roster", put(cls.tmp / "roster.csv",
                               "Student,ID,SIS User ID,SIS Login ID,Section\nPlain Name,7,-7,@plain,=Sec\n"),
                               "--identities", put(cls.tmp / "confirmed.csv",
                                                   "student,ID,SIS User ID,login,name,confirm\nPlain Name,7,-7,@plain,,yes\n"))

    def test_grade_class_exits_zero(self):
        self.assertEqual(self.run_.returncode, 0, self.run_.stderr)

    def test_no_cell_of_any_csv_starts_a_formula_unless_it_is_a_number_the_grader_computed(self):
        files = sorted(self.out.glob("*.csv"))
        self.assertGreaterEqual({f.name for f in files},
                                {"gradebook.csv", "lms.csv", "results.csv", "lms-blackboard.csv", "lms-moodle-lab05.csv"})
        for f in files:
            with open(f, newline="", encoding="utf-8") as fh:
                for row in csv.reader(fh):
                    for cell in row:
                        with self.subTest(file=f.name, cell=cell):
                            if cell[:1] in csvfile.FORMULA_STARTS:
                                float(cell)           # only a number may start with - or +

    def test_each_name_is_kept_behind_one_quote(self):
        book = {r["student"] for r in read_csv(self.out / "gradebook.csv")}
        lms = {r["Student"] for r in read_csv(self.out / "lms.csv")}
        for name in FORMULA_NAMES:
            # A tab or a CR is shown as its escape (issue 45: no control character reaches a file raw),
            # which starts no formula: "\\tTab start". The others are kept behind one quote.
            shown = name.replace("\t", "\\t").replace("\r", "\\r")
            cell = shown if shown != name else "'" + name
            self.assertIn(cell, book)
            self.assertIn(cell, lms)
        self.assertIn("Plain Name", book)
        bb = read_csv(self.out / "lms-blackboard.csv")
        self.assertIn("'=mallory", {r["Username"] for r in bb})
        self.assertIn("'" + MALLORY, {r["Last Name"] for r in bb})   # one word: all of it the last name

    def test_the_rule_follows_where_a_value_came_from_not_its_text(self):
        self.assertEqual(csvfile.csv_cell(-2.5), "-2.5")          # a number the grader computed
        self.assertEqual(csvfile.csv_cell(-3), "-3")
        self.assertEqual(csvfile.csv_cell("-2.5"), "'-2.5")       # text from outside, even when it reads as one
        self.assertEqual(csvfile.csv_cell("a=b"), "a=b")
        lms = {r["Student"]: r for r in read_csv(self.out / "lms.csv")}
        self.assertEqual(lms["Plain Name"]["SIS User ID"], "'-7")
        self.assertEqual(lms["Plain Name"]["Section"], "'=Sec")
        lab_max = sum(v for k, v in WEIGHTS.items() if k != "instructor")   # the test double has no instructor checks
        self.assertAlmostEqual(float(lms["Plain Name"]["banklab lab 05"]), CPU_SOLVED / lab_max * blms.LMS_POINTS, places=2)

    def test_a_file_name_a_spreadsheet_would_run_is_named_in_the_notes(self):
        row = next(r for r in read_csv(self.out / "gradebook.csv") if r["student"] == "Tab Upload")
        self.assertIn("=1+2.pdf", row["not judged"])


# ----------------------------------------------------------------------------- archives

class Archives(Export):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.subs
        put(s / "bare" / "kernel.cu", SOLVED)
        make_zip(s / "zipped" / "submission.zip", {"kernel.cu": SOLVED.encode()})
        make_zip(s / "mac" / "kernel.zip", {"kernel/kernel.cu": SOLVED.encode(),
                                            "__MACOSX/kernel/._kernel.cu": b"\x00\x05\x16\x07junk",
                                            "__MACOSX/._kernel": b"junk", "kernel/.DS_Store": b"junk"})
        make_tar(s / "tarred" / "kernel.tar.gz", {"lab05/kernel.cu": SOLVED.encode()})
        # a zipped checkout with its build folder: the big files are never taken out
        make_zip(s / "checkout" / "banklab.zip", {"banklab/labs/05_swizzle/kernel.cu": SOLVED.encode(),
                                                  "banklab/labs/05_swizzle/README.md": b"handout",
                                                  "banklab/build/dev/huge.o": bytes(100 << 20)})
        put(s / "renamed" / "kernel.cu.txt", SOLVED)
        make_zip(cls.tmp / "canvas.zip", {"05_swizzle.cu": SOLVED.encode()})
        shutil.move(cls.tmp / "canvas.zip", s / "leeann_111_999_submission.zip")
        # refused
        with zipfile.ZipFile(put(s / "bomb" / "submission.zip", b""), "w", zipfile.ZIP_DEFLATED) as z:
            for i in range(10):                           # 10 x 7 MiB of zeros: 70 MiB from ~70 KB
                z.writestr(f"part{i}.cu", bytes(7 << 20))
        make_zip(s / "dotdot" / "submission.zip", {"../escaped.cu": SOLVED.encode(), "kernel.cu": SOLVED.encode()})
        make_zip(s / "absolute" / "submission.zip", {"/tmp/banklab-absolute-escape.cu": SOLVED.encode()})
        make_zip(s / "ziplink" / "submission.zip", {}, {"kernel.cu": str(ROOT / "solutions/05_swizzle/kernel.cu")})
        make_tar(s / "tarlink" / "kernel.tar.gz", {}, {"kernel.cu": "/etc/passwd"})
        put(s / "unknown" / "kernel.rar", b"Rar!\x1a\x07\x00")
        put(s / "unknown" / "report.pdf", b"%PDF-1.4")
        cls.run_ = grade_class(s, cls.out)
        cls.rows = {r["student"]: r for r in read_csv(cls.out / "results.csv")}
        cls.book = {r["student"]: r for r in read_csv(cls.out / "gradebook.csv")}

    def result(self, student):
        return json.loads((self.out / "results" / student / "lab05.json").read_text())

    def test_grade_class_exits_zero_without_a_traceback(self):
        self.assertEqual(self.run_.returncode, 0, self.run_.stderr)
        self.assertNotIn("Traceback", self.run_.stderr)

    def test_each_archive_shape_earns_what_the_bare_file_earns(self):
        self.assertEqual(float(self.rows["bare"]["points"]), CPU_SOLVED)
        for student, upload in (("zipped", "submission.zip"), ("mac", "kernel.zip"), ("tarred", "kernel.tar.gz"),
                                ("renamed", "kernel.cu.txt"), ("leeann", "submission.zip"), ("checkout", "banklab.zip")):
            with self.subTest(student):
                self.assertEqual(self.rows[student]["points"], self.rows["bare"]["points"])
                self.assertEqual(self.result(student)["source_sha256"], self.result("bare")["source_sha256"])
                self.assertTrue(self.result(student)["source"].startswith(upload), self.result(student)["source"])

    def test_unsafe_archives_are_refused_by_name_and_earn_nothing(self):
        for student, why in (("bomb", "more than 64 MiB"), ("dotdot", "climbs out"),
                             ("absolute", "absolute path"), ("ziplink", "link"), ("tarlink", "link")):
            with self.subTest(student):     # not judged (issue 46): no number, never a 0
                self.assertEqual((self.rows[student]["points"], self.rows[student]["complete"]), ("", "not judged"))
                note = self.book[student]["not judged"]
                self.assertIn("was not unpacked", note)
                self.assertIn(why, note)
                self.assertIn("submission.zip" if "zip" in student or student in ("bomb", "dotdot", "absolute")
                              else "kernel.tar.gz", note)
        self.assertFalse((self.subs / "escaped.cu").exists())
        self.assertFalse((self.tmp / "escaped.cu").exists())
        self.assertFalse(Path("/tmp/banklab-absolute-escape.cu").exists())

    def test_an_unrecognised_upload_is_named_in_the_gradebook(self):
        note = self.book["unknown"]["not judged"]
        self.assertIn("kernel.rar", note)
        self.assertIn("report.pdf", note)
        self.assertEqual((self.rows["unknown"]["points"], self.rows["unknown"]["complete"]), ("", "not judged"))
        self.assertIn("kernel.rar", self.rows["unknown"]["not judged"])

    def test_with_every_lab_an_upload_named_after_a_lab_is_that_labs(self):
        subs, out = self.tmp / "all", self.tmp / "all-out"
        make_zip(subs / "multi" / "lab04.zip", {"kernel.cu": SOLVED.encode()})
        put(subs / "multi" / "05_swizzle.cu.txt", SOLVED)
        put(subs / "multi" / "notes.pdf", b"%PDF")            # names no lab: not a lab's row
        r = grade_class(subs, out, lab="all")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = {(x["student"], x["lab"]): x for x in read_csv(out / "results.csv")}
        self.assertEqual(set(rows), {("multi", "04"), ("multi", "05")})
        self.assertEqual({float(x["points"]) for x in rows.values()}, {CPU_SOLVED})

    def test_the_unpacked_copies_are_gone_when_grade_class_ends(self):
        left = [p for p in Path(tempfile.gettempdir()).glob("banklab-upload-*")
                if p.stat().st_mtime >= (self.out / "gradebook.csv").stat().st_mtime - 600]
        self.assertEqual(left, [])

    def test_the_limits_stop_a_bomb_while_it_decompresses(self):
        d = Path(tempfile.mkdtemp(prefix="banklab-unpack-"))
        self.addCleanup(shutil.rmtree, d)
        with self.assertRaisesRegex(archives.UnsafeArchive, "more than 64 MiB"):
            archives.unpack_upload(self.subs / "bomb" / "submission.zip", d)
        tar_bomb = make_tar(d.parent / f"{d.name}.tar.gz", {f"build/o{i}.bin": bytes(7 << 20) for i in range(10)})
        self.addCleanup(tar_bomb.unlink)
        with self.assertRaisesRegex(archives.UnsafeArchive, "more than 64 MiB"):    # skipped, yet counted
            archives.unpack_upload(tar_bomb, Path(tempfile.mkdtemp(dir=d)))
        self.assertLessEqual(sum(p.stat().st_size for p in d.rglob("*") if p.is_file()), 64 << 20)
        big = make_zip(d.parent / f"{d.name}.zip", {"kernel.cu": bytes(9 << 20)})
        self.addCleanup(big.unlink)
        with self.assertRaisesRegex(archives.UnsafeArchive, "more than 8 MiB"):
            archives.unpack_upload(big, Path(tempfile.mkdtemp(dir=d)))
        many = make_zip(d.parent / f"{d.name}-many.zip", {f"f{i}.cu": b"x" for i in range(archives.ARCHIVE_MAX_ENTRIES + 1)})
        self.addCleanup(many.unlink)
        with self.assertRaisesRegex(archives.UnsafeArchive, "entries"):
            archives.unpack_upload(many, Path(tempfile.mkdtemp(dir=d)))


# ----------------------------------------------------------------------------- LMS exports

class LmsExports(Export):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        s = cls.subs
        # Moodle: a file folder and an online-text folder for the same participant.
        put(s / "Alice Adams_123456_assignsubmission_file_" / "kernel.cu", SOLVED)
        put(s / "Alice Adams_123456_assignsubmission_onlinetext_" / "onlinetext.html", "<p>see my file</p>")
        # Blackboard: two attempts and their receipts; a username with an underscore.
        put(s / "Lab 5_bbrown_attempt_2026-11-19-09-00-00_kernel.cu", STUB)
        put(s / "Lab 5_bbrown_attempt_2026-11-19-09-00-00.txt", "Name: Bob Brown (bbrown)\nAssignment: Lab 5\n")
        put(s / "Lab 5_bbrown_attempt_2026-11-20-10-30-45_kernel.cu", SOLVED)
        put(s / "Lab 5_bbrown_attempt_2026-11-20-10-30-45.txt",
            "Name: Bob Brown (bbrown)\nAssignment: Lab 5\n\nFiles:\n\tOriginal filename: kernel.cu\n")
        put(s / "Lab 5_c_chen_attempt_2026-11-20-11-00-00_lab05.cu", SOLVED)
        put(s / "Lab 5_c_chen_attempt_2026-11-20-11-00-00.txt", "Name: Cy Chen (c_chen)\n")
        # Canvas's flat files.
        put(s / "leeann_111_999_kernel.cu", SOLVED)
        # One folder per student: by login, by name (proposed from the roster, written once
        # confirmed), unknown.
        put(s / "jdoe" / "kernel.cu", STUB)
        put(s / "Eve Evans" / "kernel.cu", SOLVED)
        put(s / "Nobody Known" / "kernel.cu", SOLVED)
        roster = put(cls.tmp / "canvas-export.csv",
                     "Student,ID,SIS User ID,SIS Login ID,Section\n"
                     "    Points Possible,,,,\n"
                     '"Doe, Jane",222,S222,jdoe,Sec 1\n'
                     '"Evans, Eve",333,S333,eevans,Sec 2\n')
        cls.run_ = grade_class(s, cls.out, "--roster", roster)
        cls.book = read_csv(cls.out / "gradebook.csv")
        cls.lms = read_csv(cls.out / "lms.csv")
        cls.proposed = {r["student"]: r for r in read_csv(cls.out / "identities.csv")}
        confirm = cls.tmp / "confirm.csv"
        shutil.copyfile(cls.out / "identities.csv", confirm)
        text = confirm.read_text(encoding="utf-8").splitlines()
        confirm.write_text("\n".join(l + "yes" if l.startswith(("jdoe,", "Eve Evans,")) else l for l in text) + "\n",
                           encoding="utf-8")
        cls.rerun = grade_class(s, cls.tmp / "confirmed", "--roster", roster, "--identities", confirm)
        cls.lms_confirmed = read_csv(cls.tmp / "confirmed" / "lms.csv")

    def test_grade_class_exits_zero_and_names_the_students_no_lms_can_match(self):
        self.assertEqual(self.run_.returncode, 0, self.run_.stderr)
        self.assertIn("Nobody Known", self.run_.stderr)
        self.assertIn("--roster", self.run_.stderr)

    def test_one_row_per_student_in_every_file(self):
        students = ["Alice Adams", "Eve Evans", "Nobody Known", "bbrown", "c_chen", "jdoe", "leeann"]
        self.assertEqual(sorted(r["student"] for r in self.book), students)
        self.assertEqual(self.lms[0]["Student"].strip(), "Points Possible")
        self.assertEqual(sorted(r["Student"] for r in self.lms[1:]), students)
        self.assertEqual(len(read_csv(self.out / "lms-blackboard.csv")), len(students))

    def test_blackboard_grades_the_latest_attempt(self):
        row = next(r for r in self.book if r["student"] == "bbrown")
        self.assertEqual(float(row[next(k for k in row if k.startswith("lab05 ("))]), CPU_SOLVED)

    def test_canvas_ids_come_from_the_export_and_a_folders_match_only_once_confirmed(self):
        ids = {r["Student"]: (r["ID"], r["SIS User ID"], r["SIS Login ID"], r["Section"]) for r in self.lms[1:]}
        self.assertEqual(ids["leeann"], ("111", "", "", ""))   # Canvas's id; its prefix is a name, no login
        for folder in ("jdoe", "Eve Evans"):                  # matched by a bare name: proposed only
            self.assertEqual(ids[folder], ("", "", "", ""))
            self.assertEqual(self.proposed[folder]["status"], "to confirm")
        self.assertEqual((self.proposed["jdoe"]["ID"], self.proposed["Eve Evans"]["login"]), ("222", "eevans"))
        self.assertIn("identities.csv", self.run_.stderr)
        self.assertEqual(ids["Alice Adams"][0], "")            # a Moodle participant number is no Canvas ID
        self.assertEqual(ids["Nobody Known"], ("", "", "", ""))
        self.assertEqual(self.rerun.returncode, 0, self.rerun.stderr)
        done = {r["Student"]: (r["ID"], r["SIS User ID"], r["SIS Login ID"], r["Section"]) for r in self.lms_confirmed[1:]}
        self.assertEqual(done["jdoe"], ("222", "S222", "jdoe", "Sec 1"))
        self.assertEqual(done["Eve Evans"], ("333", "S333", "eevans", "Sec 2"))
        self.assertEqual(done["Nobody Known"], ("", "", "", ""))

    def test_every_lab_is_out_of_the_same_points_possible(self):
        self.assertEqual(float(self.lms[0]["banklab lab 05"]), blms.LMS_POINTS)
        row = next(r for r in self.lms if r["Student"] == "leeann")
        mx = next(float(re.search(r"\((.*)\)", k).group(1)) for k in self.book[0] if k.startswith("lab05 ("))
        self.assertAlmostEqual(float(row["banklab lab 05"]), CPU_SOLVED / mx * blms.LMS_POINTS, places=2)

    def test_moodle_gets_its_grading_worksheet_with_participant_identifiers(self):
        rows = read_csv(self.out / "lms-moodle-lab05.csv")
        self.assertEqual(list(rows[0])[:5], ["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)"])
        alice = next(r for r in rows if r["Full name"] == "Alice Adams")
        self.assertEqual(alice["Identifier"], "Participant 123456")
        self.assertEqual(float(alice["Maximum Grade"]), blms.LMS_POINTS)
        self.assertRegex(alice["Last modified (grade)"], r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")

    def test_blackboard_gets_usernames_names_and_a_points_column(self):
        text = (self.out / "lms-blackboard.csv").read_text(encoding="utf-8")
        self.assertTrue(text.startswith('"Last Name","First Name","Username","Student ID",'
                                        f'"banklab lab 05 [Total Pts: {fmt_points(blms.LMS_POINTS)} Score]"'), text[:200])
        rows = {r["Username"]: r for r in read_csv(self.out / "lms-blackboard.csv")}
        self.assertEqual((rows["bbrown"]["First Name"], rows["bbrown"]["Last Name"]), ("Bob", "Brown"))
        self.assertIn("c_chen", rows)
        self.assertNotIn("jdoe", rows)       # a folder's name is no Blackboard username
        confirmed = {r["Username"] for r in read_csv(self.tmp / "confirmed" / "lms-blackboard.csv")}
        self.assertIn("jdoe", confirmed)

    def test_the_export_parser_reads_each_name_shape(self):
        es = {e.name: e for e in bi.parse_export(self.subs)}
        self.assertEqual(es["Alice Adams"].lms, {"source": "moodle", "id": "123456", "name": "Alice Adams"})
        self.assertEqual(es["Alice Adams"].folder.name, "Alice Adams_123456_assignsubmission_file_")
        self.assertEqual([es["bbrown"].name_of(f) for f in es["bbrown"].files], ["kernel.cu"])
        self.assertEqual(es["c_chen"].lms["name"], "Cy Chen")


# ----------------------------------------------------------------------------- re-scoring

COUNTING_JUDGE = '''import os, runpy, sys
with open(os.environ["BANKLAB_TEST_CALLS"], "a") as f:
    f.write(sys.argv[1] + "\\n")
sys.argv[0] = {fake!r}
runpy.run_path({fake!r}, run_name="__main__")
'''
FAILING_JUDGE = '''import os, sys
open(os.environ["BANKLAB_TEST_CALLS"], "a").write("CALLED " + " ".join(sys.argv[1:]) + "\\n")
sys.exit(99)
'''


class Rescoring(Export):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        put(cls.subs / "solved" / "kernel.cu", SOLVED)
        put(cls.subs / "stub" / "kernel.cu", STUB)
        cls.calls = cls.tmp / "calls.txt"
        os.environ["BANKLAB_TEST_CALLS"] = str(cls.calls)
        cls.judge = put(cls.tmp / "judge" / "counting_judge.py", COUNTING_JUDGE.format(fake=str(FAKE)))
        cls.failing = put(cls.tmp / "judge" / "failing_judge.py", FAILING_JUDGE)
        cls.points = cls.tmp / "points"
        cls.points.mkdir()
        cls.weights = (ROOT / "grader" / "points" / "weights.toml").read_text()
        (cls.points / "weights.toml").write_text(cls.weights)
        cls.first = grade_class(cls.subs, cls.out, "--points-dir", cls.points, judge=cls.judge)

    def grades(self):
        book = read_csv(self.out / "gradebook.csv")
        lms = read_csv(self.out / "lms.csv")
        return book, lms

    def set_weight(self, role, pts):
        text = re.sub(rf"(?m)^{role}\s*=\s*[0-9.]+", f"{role} = {pts}", self.weights)
        self.assertNotEqual(text, self.weights)
        (self.points / "weights.toml").write_text(text)
        return tomllib.loads(text)["roles"]

    def test_1_a_weight_change_rescores_without_grading_again(self):
        self.assertEqual(self.first.returncode, 0, self.first.stderr)
        grades_before = self.calls.read_text().split().count("grade")
        self.assertEqual(grades_before, 2)
        w = self.set_weight("predictions", WEIGHTS["predictions"] * 3)
        book_before = (self.out / "gradebook.csv").read_text()
        r = grade_class(self.subs, self.out, "--points-dir", self.points, judge=self.judge)
        self.assertEqual(r.returncode, 2, r.stderr)     # another table for a lab already scored: refused
        self.assertIn("--rescore", r.stderr)
        self.assertEqual((self.out / "gradebook.csv").read_text(), book_before)
        r = grade_class(self.subs, self.out, "--points-dir", self.points, "--rescore", judge=self.judge)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.calls.read_text().split().count("grade"), grades_before)   # no submission judged
        self.assertIn("2 re-scored", r.stdout)
        book, lms = self.grades()
        mx = sum(v for k, v in w.items() if k != "instructor")
        solved = next(b for b in book if b["student"] == "solved")
        self.assertEqual(float(solved[f"lab05 ({fmt_points(mx)})"]), w["predictions"] + w["layout"])
        self.assertEqual(float(lms[0]["banklab lab 05"]), blms.LMS_POINTS)       # points possible unmoved
        row = next(x for x in lms if x["Student"] == "solved")
        self.assertAlmostEqual(float(row["banklab lab 05"]), (w["predictions"] + w["layout"]) / mx * blms.LMS_POINTS, places=2)
        saved = json.loads((self.out / "results" / "solved" / "lab05.json").read_text())
        self.assertEqual(saved["points"], w["predictions"] + w["layout"])
        # a third run with the same weights reuses everything
        r = grade_class(self.subs, self.out, "--points-dir", self.points, judge=self.judge)
        self.assertIn("2 unchanged and reused, 0 re-scored", r.stdout)

    def test_2_rescore_never_runs_the_judge(self):
        w = self.set_weight("layout", WEIGHTS["layout"] + 10)
        before = self.calls.read_text() if self.calls.exists() else ""
        r = grade_class(self.subs, self.out, "--points-dir", self.points, "--rescore", judge=self.failing)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("CALLED", (self.calls.read_text() if self.calls.exists() else "")[len(before):])
        self.assertIn("2 re-scored", r.stdout)
        saved = json.loads((self.out / "results" / "solved" / "lab05.json").read_text())
        self.assertEqual(saved["points"], w["predictions"] + w["layout"])
        book, lms = self.grades()
        mx = sum(v for k, v in w.items() if k != "instructor")
        solved = next(b for b in book if b["student"] == "solved")
        self.assertEqual(float(solved[f"lab05 ({fmt_points(mx)})"]), w["predictions"] + w["layout"])
        self.assertEqual(float(lms[0]["banklab lab 05"]), blms.LMS_POINTS)

    def test_3_a_failing_judge_really_fails_when_called(self):
        # The stand-in proves test 2: without --rescore the same command calls it and stops.
        r = grade_class(self.subs, self.tmp / "other", judge=self.failing)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("CALLED", self.calls.read_text())


# ----------------------------------------------------------------------------- feedback

# What the judge says of a probe stopped at its time limit (grader/judge/build.cpp, measured on the
# lab 05 solution with a start-up loop that never ends): it leads with what it found afterwards.
PROBE_HANG = ("your file's answers could not be read: the answers file does not start with the probe's header: "
              "something in your file wrote over it (probe: killed after 20 s (time limit)). What your file's "
              "code printed is not shown; run it yourself to see it.")
TEST_HANG = "the judge wrote no verdict for this test (killed after 180 s (time limit)): "
# grader/watchdog.hpp's line inside the log the judge quotes when the test's process wrote no verdict
WATCHDOG_HANG = ("the judge wrote no verdict for this test (exit 1): Running main()\n[ RUN      ] Lab04OnGpu.T\n"
                 "Lab04OnGpu.T's kernel did not finish within 20 s: a loop in the kernel never ends (or the GPU "
                 "is far too busy). No verdict can be written: this test fails.\n")
HANGING_JUDGE = """import json, sys
a = sys.argv
if a[1] == "list":
    print("05 Lab05Layout.A cpu"); sys.exit(0)
if a[1] == "sandbox":
    print("sandbox: bwrap (test double)"); sys.exit(0)
src = a[a.index("--source") + 1]; out = a[a.index("--json") + 1]
import hashlib
sha = hashlib.sha256(open(src, "rb").read()).hexdigest()
rec = lambda t, m: {{"schema": "banklab.verdict.v1", "lab": "05", "test": t, "tier": "cpu", "status": "failed",
                    "checks": 0, "message": m}}
json.dump({{"schema": "banklab.grade.v1", "lab": "05", "source_sha256": sha,
           "verdicts": [rec("Lab05.Build", {probe!r}), rec("Lab05Layout.A", "not judged: the lab did not build")]}},
          open(out, "w"))
sys.exit(1)
"""


class FakeExplainer:
    """banklab explain's stand-in: a text drawing and an SVG the size of the real ones (~100 KB:
    a 32 x 32 bank grid of rectangles) for each access line."""
    def __init__(self):
        self.cache = {}

    def draw(self, line):
        cells = "".join(f'<rect x="{100 + 26 * b}" y="{80 + 22 * w}" width="26" height="22" fill="#f3f3f3" stroke="#dddddd"/>\n'
                        for w in range(32) for b in range(32))
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="968" height="902"><title>({line})</title>\n'
               f'{cells}<rect x="100" y="80" width="26" height="22" fill="#ffaaaa" stroke="#cc0000"/></svg>\n')
        return (f"bank | 0 1 2 ... ({line})\nwavefront 1 | 0! .", svg)


def stub_like(lab, n_lines):
    vs = [Verdict(f"Lab{lab}Layout.T{i}", "cpu", "failed",
                     f"32 wavefronts, minimum 1. See it: banklab explain --line \"ld 4 ffffffff {lab} {i * 128}\"", 32)
          for i in range(n_lines)]
    vs.append(Verdict(f"Lab{lab}Layout.Again", "cpu", "failed",
                         f"again: See it: banklab explain --line \"ld 4 ffffffff {lab} 0\"", 32))
    return LabResult("stub", lab, "kernel.cu", "x", "cpu", vs)


class Feedback(unittest.TestCase):
    maxDiff = 500
    longMessage = False
    def test_the_html_of_a_stub_keeps_one_picture_per_lab_and_every_drawing_as_text(self):
        rs = [stub_like("04", 7), stub_like("05", 7)]
        one_svg = len(FakeExplainer().draw("x")[1])
        html_ = br.feedback_html("stub", rs, FakeExplainer())
        self.assertLess(len(html_), 2 * one_svg)                   # 14 drawings would be 14 x one_svg
        self.assertEqual(html_.count("<svg"), 2 * br.SVG_PER_LAB)
        for lab in ("04", "05"):
            for i in range(7):
                self.assertIn(f"(ld 4 ffffffff {lab} {i * 128})", html_)     # every access drawn, once
        self.assertEqual(html_.count("(ld 4 ffffffff 04 0)"), 1)
        self.assertIn("The drawing of this access is above", html_)
        md = br.feedback_markdown("stub", rs, FakeExplainer())
        self.assertEqual(md.count("(ld 4 ffffffff 04 0)"), 1)

    def test_a_compacted_picture_draws_the_same_rectangles(self):
        import xml.etree.ElementTree as ET
        svg = FakeExplainer().draw("x")[1]
        small = br.compact_svg(svg, "t")
        self.assertLess(len(small), len(svg) / 2)
        ns = "{http://www.w3.org/2000/svg}"
        def rects(text):
            root = ET.fromstring(text)
            defs = {r.get("id"): r.attrib for d in root.iter(f"{ns}defs") for r in d}
            out = [dict(r.attrib) for r in root.iter(f"{ns}rect") if not r.get("id")]
            for u in root.iter(f"{ns}use"):
                a = {k: v for k, v in defs[u.get("href")[1:]].items() if k != "id"}
                out.append(dict(a, x=u.get("x"), y=u.get("y")))
            return sorted(tuple(sorted(r.items())) for r in out)
        self.assertEqual(rects(small), rects(svg))

    def test_a_flood_of_compiler_errors_is_cut_but_keeps_its_start_and_its_command(self):
        msg = "error: first\n" + "note: again\n" * 5000 + "See it: banklab explain --line \"ld 4 1 0\""
        cut = br.capped(msg)
        self.assertLess(len(cut), br.MESSAGE_CAP + 200)
        self.assertTrue(cut.startswith("error: first"))
        self.assertTrue(cut.endswith('--line "ld 4 1 0"'))
        self.assertIn("characters cut", cut)

    def test_a_hang_leads_with_its_cause(self):
        for judge_words, where in ((PROBE_HANG, "code that runs when your program starts"),
                                   (TEST_HANG, "in a kernel"), (WATCHDOG_HANG, "a loop in the kernel never ends")):
            led = judging.lead_with_cause(judge_words)
            self.assertTrue(led.startswith("your code did not finish"), led)
            self.assertIn(where, led)
            self.assertIn(judge_words, led)                         # the judge's own words kept, after
        self.assertEqual(judging.lead_with_cause("lanes 0 and 16 ask bank 0"), "lanes 0 and 16 ask bank 0")
        self.assertTrue(judging.TIMEOUT_NOTE.startswith("the grading of your file did not finish"))

    def test_the_batch_grader_shows_a_probe_hang_by_its_cause(self):
        tmp = Path(tempfile.mkdtemp(prefix="banklab-hang-"))
        self.addCleanup(shutil.rmtree, tmp)
        judge = put(tmp / "judge.py", HANGING_JUDGE.format(probe=PROBE_HANG))
        put(tmp / "export" / "hang" / "kernel.cu", SOLVED)
        r = grade_class(tmp / "export", tmp / "out", judge=judge)
        self.assertEqual(r.returncode, 0, r.stderr)
        md = (tmp / "out" / "feedback" / "hang.md").read_text()
        build = md[md.index("### Lab05.Build"):]
        self.assertTrue(build.split("```text\n")[1].startswith("your code did not finish within 20 s"), build[:300])
        self.assertNotIn("compiler's message is under", md)
        gs = json.loads((tmp / "out" / "platforms" / "hang" / "gradescope" / "results.json").read_text())
        self.assertTrue(next(t for t in gs["tests"] if t["name"].endswith("Build"))["output"]
                        .startswith("your code did not finish"))


# ----------------------------------------------------------------------------- packaging

FAKE_DOCKER = '''#!/usr/bin/env bash
# Stand-in for docker: records the call and, for a build, what its context would put in /banklab.
echo "docker $*" >> "$BANKLAB_TEST_DOCKER_LOG"
if [[ "$1" == build ]]; then
  ctx="${@: -1}"
  (cd "$ctx" && find . -type f | sed 's|^\\./|/banklab/|' | sort) > "$BANKLAB_TEST_DOCKER_LOG.context"
fi
'''


class Packaging(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="banklab-packaging-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    @unittest.skipUnless((ROOT / ".git").exists() and (ROOT / "solutions").is_dir(),
                         "not a git checkout of the course repository")
    def test_the_prairielearn_image_commands_work_as_written(self):
        readme = (ROOT / "instructor/platforms/prairielearn/README.md").read_text()
        block = re.search(r"```sh\n(.*?)```", readme, re.S).group(1)
        bindir = self.tmp / "bin"
        put(bindir / "docker", FAKE_DOCKER).chmod(0o755)
        log = self.tmp / "docker.log"
        env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", BANKLAB_TEST_DOCKER_LOG=str(log),
                   TMPDIR=str(self.tmp))
        r = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        calls = log.read_text().splitlines()
        self.assertTrue(calls[0].startswith("docker build -f "), calls)
        dockerfile = Path(calls[0].split()[3])
        self.assertTrue(dockerfile.is_file())
        self.assertIn("COPY . /banklab", dockerfile.read_text())
        image = set(Path(str(log) + ".context").read_text().split())
        entry = json.loads((ROOT / "instructor/platforms/prairielearn/question/info.json").read_text())
        for path in ("/banklab/grader/points/weights.toml", "/banklab/instructor/platforms/install-grader.sh",
                     entry["externalGradingOptions"]["entrypoint"], "/banklab/instructor/platforms/grade-platform",
                     "/banklab/solutions/04_padding/instructor_edge_tiles_test.cu", "/banklab/solutions/edge_tiles.hpp"):
            self.assertIn(path, image)
        self.assertFalse([p for p in image if p.startswith("/banklab/points/")])
        # The answers (and the instructor-only checks) are in the grading image; no solution is.
        self.assertIn("/banklab/solutions/05_swizzle/answers.toml", image)
        self.assertIn("/banklab/solutions/05_swizzle/variants.toml", image)   # the variants' answer templates
        self.assertFalse([p for p in image if p.startswith("/banklab/solutions/")
                          and not p.endswith(("/answers.toml", "/variants.toml", "_test.cu", "/solutions/edge_tiles.hpp"))])
        # The run script reads the points where the image has them.
        run = (ROOT / "instructor/platforms/prairielearn/run").read_text()
        self.assertIn('SRC=${BANKLAB_SOURCE:-/banklab}', run)
        self.assertIn("docker push", calls[-1])

    def test_the_dockerfile_no_longer_copies_the_points_beside_the_release(self):
        text = (ROOT / "instructor/platforms/prairielearn/Dockerfile").read_text()
        self.assertNotIn("cp -r grader/points", text)
        self.assertIn("prairielearn/README.md", text)


if __name__ == "__main__":
    unittest.main()
