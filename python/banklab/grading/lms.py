"""The files each LMS imports, one class a format (as nbgrader's exporters are: one format, one
class), every format behind one small interface and registered in one table, LMS_FORMATS, that
grade-class writes from (write_lms_files) and checks (check_import_files) and that says which LMSs
a run read (lms_of_run). A format:
- `name` ("Canvas"), `source` (the identity source its export gives: banklab.grading.identity),
  `roster_key` (the key a row of its own gradebook export carries: read_roster);
- `files` (the file names it writes, as a glob) and `id_columns` (the columns its LMS matches a row
  by), `fix` (what gives a row without one its ids);
- write(scores, out): its files from the class's scores (Scores), the paths written.
A new LMS is one class more and one entry of LMS_FORMATS. Standard library only."""

from __future__ import annotations

import csv
import dataclasses
import time
from pathlib import Path

from banklab.grading import status as bs
from banklab.grading.csvfile import write_csv
from banklab.grading.identity import identity_of, lab_identities, login_of
from banklab.grading.reports import by_student
from banklab.grading.result import LabResult, fmt_points


#: Points possible of each lab's column in the LMS files: every lab is given out of this, whatever
#: its points table's maximum (grade-class --lms-points), so changing a weight moves the scores,
#: never the maximum the LMS shows (its assignment keeps its points possible).
LMS_POINTS = 100.0


def lms_column(lab: str) -> str:
    return f"banklab lab {lab}"


def lms_score(r: LabResult, points_possible: float) -> float | str:
    """A lab's points in the LMS: its share of the lab's maximum, times the column's points possible;
    BLANK ("") where it is no judged grade (banklab.grading.status.blank_reason: not graded, nothing
    gradable handed in): an import leaves a blank cell alone, where a 0 would be a grade."""
    if not bs.has_number(r):
        return ""
    return round(r.points / r.max_points * points_possible, 2) if r.max_points > 0 else 0.0


@dataclasses.dataclass
class Scores:
    """What every format writes from: the labs graded (sorted), each student's result per lab
    (`by`), their identities (`ids`: banklab.grading.identity.match_roster), the identity saved
    with each result (`lab_ids`: {(student, lab): identity}) and the column's points possible."""
    labs: list[str]
    by: dict[str, dict[str, LabResult]]
    ids: dict
    lab_ids: dict
    points_possible: float

    @classmethod
    def of(cls, results: list[LabResult], ids: dict, points_possible: float = LMS_POINTS,
           lab_ids: dict | None = None) -> "Scores":
        labs, by = by_student(results)
        return cls(labs, by, ids, lab_ids or {}, points_possible)

    def score(self, student: str, lab: str) -> float | str:
        """The cell of `student`'s lab: lms_score, blank where the student has no result of it."""
        return lms_score(self.by[student][lab], self.points_possible) if lab in self.by[student] else ""

    def students(self) -> list[str]:
        return sorted(self.by)


class LmsFormat:
    """One LMS's import files (the interface; see the module's docstring)."""
    name = ""
    source = ""
    roster_key = ""
    files = ""
    id_columns: tuple[str, ...] = ()
    fix = ""

    def write(self, scores: Scores, out: Path) -> list[Path]:
        raise NotImplementedError


class Canvas(LmsFormat):
    """lms.csv, Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, a
    "Points Possible" row, a column per lab (a new name makes a new assignment of those points);
    Canvas matches a row by ID, SIS User ID or SIS Login ID."""
    name, source, roster_key = "Canvas", "canvas", "id"
    files = "lms.csv"
    id_columns = ("ID", "SIS User ID", "SIS Login ID")
    fix = ("grade Canvas's own download (its file names carry each student's Canvas ID) and pass --roster with "
           "Canvas's gradebook export (Grades > Export)")

    def write(self, scores: Scores, out: Path) -> list[Path]:
        rows = []
        for st in scores.students():
            who = identity_of(scores.ids, st)
            canvas_id = "" if who.get("source") == "moodle" else who.get("id", "")   # Moodle's is a participant number
            rows.append([st, canvas_id, who.get("sis_id", ""), login_of(st, who), who.get("section", "")]
                        + [scores.score(st, lab) for lab in scores.labs])
        path = out / self.files
        write_csv(path, ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
                  + [lms_column(lab) for lab in scores.labs], rows,
                  points_row=["    Points Possible", "", "", "", ""] + [scores.points_possible for _ in scores.labs])
        return [path]


class Moodle(LmsFormat):
    """lms-moodle-labNN.csv, one per lab, Moodle's assignment grading worksheet ("Upload grading
    worksheet"): Identifier "Participant N" (the number in the export's folder names), Full name,
    Grade, Maximum Grade, Last modified (grade). Moodle numbers participants per assignment, so a
    lab's worksheet writes the participant id saved with that lab's result
    (banklab.grading.identity.lab_identities)."""
    name, source, roster_key = "Moodle", "moodle", "participant"
    files = "lms-moodle-lab*.csv"
    id_columns = ("Identifier",)
    fix = ("grade Moodle's own download (its folder or file names carry each participant id), or pass --roster "
           "with Moodle's grading worksheet (Download grading worksheet)")

    def write(self, scores: Scores, out: Path) -> list[Path]:
        when = time.strftime("%Y-%m-%d %H:%M:%S")
        written = []
        for lab in scores.labs:
            rows = []
            in_lab = lab_identities(scores.ids, scores.lab_ids, lab, [st for st in scores.by if lab in scores.by[st]])
            for st in sorted(in_lab):
                who = in_lab[st]
                pid = who.get("id", "") if who.get("source") == "moodle" else ""
                rows.append([f"Participant {pid}" if pid else "", who.get("name") or st, scores.score(st, lab),
                             scores.points_possible, when])
            path = out / self.files.replace("*", lab)
            write_csv(path, ["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)"], rows)
            written.append(path)
        return written


def _split_name(full: str) -> tuple[str, str]:
    first, _, last = full.strip().rpartition(" ")
    return (first, last) if first else ("", last)


class Blackboard(LmsFormat):
    """lms-blackboard.csv, Blackboard's Grade Center upload: Last Name, First Name, Username,
    Student ID, a column "banklab lab NN [Total Pts: P Score]" per lab, one row per username,
    every cell quoted."""
    name, source, roster_key = "Blackboard", "blackboard", "login"
    files = "lms-blackboard.csv"
    id_columns = ("Username", "Student ID")
    fix = ("grade Blackboard's own download (Download assignment: its file names carry each username), or pass "
           "--roster with the Grade Center export")

    def write(self, scores: Scores, out: Path) -> list[Path]:
        rows = []
        for st in scores.students():
            who = identity_of(scores.ids, st)
            first, last = _split_name(who.get("name") or st)
            rows.append([last, first, login_of(st, who), who.get("sis_id", "")]
                        + [scores.score(st, lab) for lab in scores.labs])
        path = out / self.files
        write_csv(path, ["Last Name", "First Name", "Username", "Student ID"]
                  + [f"{lms_column(lab)} [Total Pts: {fmt_points(scores.points_possible)} Score]"
                     for lab in scores.labs], rows, quote_all=True)
        return [path]


#: Every LMS format, in the order their files are written and checked.
LMS_FORMATS: tuple[LmsFormat, ...] = (Canvas(), Moodle(), Blackboard())

#: Which key tells a roster row's LMS, first match wins: a Moodle worksheet's rows carry participant
#: ids (and may carry ids), Canvas's gradebook IDs (and logins), Blackboard's usernames alone.
ROSTER_ORDER = ("participant", "id", "login")


def write_lms_files(results: list[LabResult], ids: dict, out: Path,
                    points_possible: float = LMS_POINTS, lab_ids: dict | None = None) -> list[Path]:
    """The files of every LMS format (LMS_FORMATS), every lab out of `points_possible`; the paths
    written. `ids`: each student's identity (the export's own ids, completed from the roster row
    with the same id); `lab_ids`: the identity saved with each result. A student without an id in
    a file is still written, with empty ID cells, and grade-class warns of each such file
    (check_import_files). A score is a number only for a judged grade: blank (lms_score) for not
    graded, not judged, ambiguous and missing; grade-class prints how many
    (banklab.grading.status.report)."""
    scores = Scores.of(results, ids, points_possible, lab_ids)
    return [path for fmt in LMS_FORMATS for path in fmt.write(scores, out)]


def lms_of_run(ids: dict, roster: list[dict] | None) -> set[str]:
    """The LMSs (their formats' names: "Canvas", "Moodle", "Blackboard") whose export or roster a
    run read: the sources of its students' identities, and the kind of its roster (ROSTER_ORDER).
    Empty: no LMS was seen (folders)."""
    names = {f.source: f.name for f in LMS_FORMATS}
    used = {names[v["source"]] for v in ids.values() if isinstance(v, dict) and v.get("source") in names}
    by_key = {f.roster_key: f.name for f in LMS_FORMATS}
    for row in roster or []:
        used.add(next((by_key[k] for k in ROSTER_ORDER if row.get(k)), ""))
    return used - {""}


def check_import_files(out: Path, lms_used: set[str] | None = None) -> list[str]:
    """A warning (with its fix) for each import file in `out` with a row whose ID columns are all
    empty: that LMS cannot match the row. Only for the LMSs in `lms_used` (lms_of_run: those whose
    export or roster the run read) where it names any: a Canvas course is not told that every row
    of the Moodle file has no participant id; with none (folders) every file is checked."""
    warnings = []
    for fmt in LMS_FORMATS:
        if lms_used and fmt.name not in lms_used:
            continue
        cols = fmt.id_columns
        for path in sorted(out.glob(fmt.files)):
            with open(path, newline="", encoding="utf-8") as f:
                rows = [r for r in csv.DictReader(f) if "points possible" not in " ".join(r.values()).lower()]
            empty = [r.get("Student") or r.get("Full name") or f"{r.get('First Name', '')} {r.get('Last Name', '')}".strip()
                     for r in rows if not any((r.get(c) or "").strip() for c in cols)]
            if empty:
                warnings.append(
                    f"{path.name}: {len(empty)} of {len(rows)} row(s) have no {' / '.join(cols)}, so {fmt.name} cannot "
                    f"match them ({', '.join(empty[:6])}{' ...' if len(empty) > 6 else ''}). Fix: {fmt.fix}; or confirm "
                    f"the matches listed in {out / 'identities.csv'} (confirm = yes) and pass it with --identities")
    return warnings
