"""Who a submission belongs to: the students of an LMS export and the identity each LMS file
writes for them.

The rule: an LMS identity comes only from what the LMS export itself carries (Canvas's user id in
its file names, Moodle's participant id in its folder or file names, Blackboard's username in its
file names and receipts), completed from the roster row (--roster, the LMS's own gradebook export)
that carries the SAME id. A match made from a bare name (a folder's name, a display name, the
squashed name Canvas puts in front of its files) is only *proposed*: listed in OUT/identities.csv
for the instructor to confirm (--identities FILE, the rows marked `yes`), never written to an import
file unconfirmed. Two students that resolve to one identity are both refused (no identity written,
named). Python 3 standard library.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from pathlib import Path

# Canvas "download submissions": name[_LATE]_userid_submissionid_filename. `name` is the student's
# name squashed (last name then first name, lower case: "adamsalice"), NEVER a login; the user id
# is Canvas's "ID" column. The file name may carry -1, -2 on resubmission; _LATE marks a
# submission Canvas counts late (kept: the identity's `late`, shown in the gradebook and feedback).
CANVAS_RE = re.compile(r"^(?P<name>[^_]+)(?P<late>_LATE)?_(?P<id>\d+)_(?P<sub>\d+)_(?P<file>.+)$")
# Moodle's folders: "Full Name_participantid_assignsubmission_file_" (one per submission plugin:
# _file_, _onlinetext_). The number is the assignment's participant id, the "Identifier" of
# Moodle's grading worksheet ("Participant 123456"), not the user's id.
MOODLE_RE = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_?$")
# Moodle's flat download ("download submissions in folders" off): the same prefix on each file.
MOODLE_FILE_RE = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.+)$")
# Blackboard's "Download assignment": ASSIGNMENT_USERNAME_attempt_YYYY-MM-DD-HH-MM-SS_FILENAME per
# file handed in, and ASSIGNMENT_USERNAME_attempt_YYYY-MM-DD-HH-MM-SS.txt, its receipt (the
# student's name, "Name: Alice Adams (aadams)", and the original file names).
BLACKBOARD_RE = re.compile(r"^(?P<prefix>(?P<assignment>.+?)_(?P<login>.+?)_attempt_"
                           r"(?P<when>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}))(?:_(?P<file>.+)|\.txt)$")
BLACKBOARD_RECEIPT_RE = re.compile(r"^.+_attempt_\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\.txt$")
_RECEIPT_NAME_RE = re.compile(r"^Name:\s*(?P<name>.*?)\s*\((?P<login>[^()]+)\)\s*$", re.M)
#: The identity keys an import file matches a row by (a proposal's are never written unconfirmed).
ID_KEYS = ("id", "sis_id", "login", "name", "email", "section")


@dataclasses.dataclass
class ExportEntry:
    """One student of an LMS export: the name every report shows, their folder (one folder per
    student) or their loose files, and what the LMS knows them by (`lms`: source, and what the
    export carries: Canvas's id, Moodle's participant id as id, Blackboard's login)."""
    name: str
    folder: Path | None
    files: list[Path]
    lms: dict
    shown: dict = dataclasses.field(default_factory=dict)   # loose file -> the name the student gave it

    def name_of(self, f: Path) -> str:
        return self.shown.get(f, f.name)


def _receipt(path: Path) -> tuple[str, str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:     # its start only: bounded
            m = _RECEIPT_NAME_RE.search(f.read(4000))
    except OSError:
        return "", ""
    return (m.group("name"), m.group("login")) if m else ("", "")


def _blackboard(entries: list[Path]) -> tuple[dict, dict, dict]:
    """Blackboard's files: {file: (login, when, its own name)}, each login's latest attempt, and
    the names the receipts give (a username may hold "_": the receipt says whose it is)."""
    receipts = {}
    for d in entries:
        m = BLACKBOARD_RE.match(d.name)
        if m and m.group("file") is None and d.is_file():
            name, login = _receipt(d)
            receipts[m.group("prefix")] = (login or m.group("login"), name)
    bb: dict[Path, tuple[str, str, str]] = {}
    for d in entries:
        m = BLACKBOARD_RE.match(d.name)
        if m and d.is_file():
            login = receipts.get(m.group("prefix"), (m.group("login"), ""))[0]
            bb[d] = (login, m.group("when"), m.group("file") or "")
    latest: dict[str, str] = {}
    for login, when, _ in bb.values():
        latest[login] = max(latest.get(login, ""), when)
    return bb, latest, {login: name for login, name in receipts.values() if name}


def parse_export(subs: Path) -> list[ExportEntry]:
    """The students of an LMS export folder, whatever its shape:
    - a folder per student: Moodle's (`Alice Adams_123456_assignsubmission_file_`: the name
      "Alice Adams", participant id 123456; a student's _onlinetext_ folder joins their _file_
      one), or any other folder (the student named after it verbatim: a name, no identity);
    - loose files: Moodle's flat download (`Alice Adams_123456_assignsubmission_file_kernel.cu`),
      Canvas's (name_ID_submission_file: grouped by Canvas ID, the name shown), Blackboard's
      (ASSIGNMENT_USERNAME_attempt_TIME_file and its .txt receipt: one student per username, their
      latest attempt only), any other file one student named after it.
    Two students whose names would read alike get their LMS id added to the name."""
    out: list[ExportEntry] = []
    moodle: dict[tuple[str, str], list[Path]] = {}
    flat: dict[tuple[str, str, str], list[Path]] = {}
    shown: dict[Path, str] = {}
    entries = sorted(d for d in subs.iterdir() if not d.name.startswith(".") and not d.is_symlink())
    bb, latest, bb_names = _blackboard(entries)
    canvas_names: dict[str, str] = {}
    late: set[str] = set()                          # Canvas ids whose submission is marked _LATE
    for d in entries:
        if d.is_dir():
            m = MOODLE_RE.match(d.name)
            if m:
                moodle.setdefault((m.group("name"), m.group("id")), []).append(d)
            else:
                out.append(ExportEntry(d.name, d, [], {"source": "folder"}))
        elif d.is_file() and d in bb:
            login, when, file = bb[d]
            files = flat.setdefault(("blackboard", login, login), [])   # a receipt alone: still the student
            if file and when == latest[login]:
                shown[d] = file
                files.append(d)
        elif d.is_file() and (mf := MOODLE_FILE_RE.match(d.name)):
            shown[d] = mf.group("file")
            flat.setdefault(("moodle", mf.group("name"), mf.group("id")), []).append(d)
        elif d.is_file() and (cv := CANVAS_RE.match(d.name)):
            shown[d] = cv.group("file")
            canvas_names.setdefault(cv.group("id"), cv.group("name"))
            if cv.group("late"):
                late.add(cv.group("id"))
            flat.setdefault(("canvas", canvas_names[cv.group("id")], cv.group("id")), []).append(d)
        elif d.is_file():
            flat.setdefault(("file", d.stem, ""), []).append(d)
    for (name, pid), folders in sorted(moodle.items()):
        # The file plugin's folder holds the upload; another plugin's (online text) is kept only
        # when there is no file folder.
        folders.sort(key=lambda f: (MOODLE_RE.match(f.name).group("plugin") != "file", f.name))
        out.append(ExportEntry(name, folders[0], [], {"source": "moodle", "id": pid, "name": name}))
    for (kind, who, ident), files in sorted(flat.items()):
        lms = {"source": kind}
        if kind == "canvas":
            lms.update(id=ident)                      # `who` is a squashed name: never a login
            if ident in late:
                lms["late"] = True
        elif kind == "moodle":
            lms.update(id=ident, name=who)
        elif kind == "blackboard":
            lms.update(login=who, name=bb_names.get(who, ""))
        out.append(ExportEntry(who, None, files, lms, {f: shown[f] for f in files if f in shown}))
    seen: dict[str, int] = {}
    for e in out:
        seen[e.name] = seen.get(e.name, 0) + 1
    for e in out:
        if seen[e.name] > 1 and (e.lms.get("id") or e.lms.get("login")):
            e.name = f"{e.name} ({e.lms.get('id') or e.lms.get('login')})"
    return out


# --------------------------------------------------------------------------- the roster

def read_roster(path: Path) -> list[dict]:
    """An LMS's own gradebook export (Canvas: Student, ID, SIS User ID, SIS Login ID, Section;
    Moodle: First name, Last name, ID number, Email address, or its grading worksheet: Identifier
    "Participant N", Full name; Blackboard: Last Name, First Name, Username, Student ID), as
    identities: [{"id", "participant", "sis_id", "login", "name", "email", "section"}]."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        g = {k.strip().lower(): (v or "").strip() for k, v in r.items() if k}
        if "points possible" in (g.get("student", "") + g.get("last name", "")).lower():
            continue
        first, last = g.get("first name", ""), g.get("last name", "")
        name = g.get("student") or g.get("full name") or " ".join(x for x in (first, last) if x)
        if "," in name and not first:           # Canvas: "Adams, Alice"
            l, _, f_ = name.partition(",")
            name = f"{f_.strip()} {l.strip()}"
        part = re.fullmatch(r"Participant\s+(\d+)", g.get("identifier", ""))
        out.append({"id": g.get("id", ""), "participant": part.group(1) if part else "",
                    "sis_id": g.get("sis user id") or g.get("id number") or g.get("student id", ""),
                    "login": g.get("sis login id") or g.get("username", ""), "name": name,
                    "email": g.get("email address") or g.get("email", ""), "section": g.get("section", "")})
    return out


def _by_export_id(lms: dict, roster: list[dict]) -> list[dict]:
    """The roster rows that carry the id this student's export carries (none for a folder)."""
    src = lms.get("source")
    if src == "canvas" and lms.get("id"):
        return [r for r in roster if r["id"] == lms["id"]]
    if src == "moodle" and lms.get("id"):
        return [r for r in roster if r["participant"] == lms["id"]]
    if src == "blackboard" and lms.get("login"):
        return [r for r in roster if r["login"].lower() == lms["login"].lower()]
    return []


def _by_name(student: str, lms: dict, roster: list[dict]) -> tuple[dict | None, str]:
    """The one roster row a bare name matches (login, e-mail or its local part, SIS id, full name;
    case ignored), and what matched; (None, "") when none or several do."""
    keys = {k.lower() for k in (student, lms.get("name", "")) if k}
    hits = []
    for r in roster:
        for what, v in (("SIS Login ID / Username", r["login"]), ("e-mail", r["email"]),
                        ("e-mail", r["email"].split("@")[0]), ("SIS id", r["sis_id"]), ("full name", r["name"])):
            if v and v.lower() in keys:
                hits.append((r, what))
                break
    return hits[0] if len(hits) == 1 else (None, "")


def match_roster(student: str, lms: dict, roster: list[dict] | None,
                 confirmed: dict[str, dict] | None = None) -> dict:
    """This student's identity: what the export carries, completed from the roster row that carries
    the same id; an instructor's confirmed row (--identities) as it is; otherwise a match by a bare
    name only as `proposed` (with `basis`), which no import file writes."""
    merged = dict(lms)
    if confirmed and student in confirmed:
        # The instructor's row as it is; the whole roster row (section, e-mail) when it is the one
        # that was proposed.
        mine = {k: v for k, v in confirmed[student].items() if v}
        row, _ = _by_name(student, lms, roster or [])
        if row is not None and all(row.get(k, "") == v for k, v in mine.items() if k != "name"):
            merged.update({k: row[k] for k in ID_KEYS if row.get(k)})
        merged.update(mine)
        merged["confirmed"] = True
        return merged
    hits = _by_export_id(lms, roster or [])
    if len(hits) == 1:
        for k, v in hits[0].items():
            if v and k != "participant" and not (k == "id" and lms.get("source") == "moodle"):
                merged.setdefault(k, v) if merged.get(k) else merged.__setitem__(k, v)
        merged["roster"] = True
        return merged
    if lms.get("source") in ("canvas", "moodle", "blackboard") or not roster:
        return merged                             # the export's own id, or nothing to propose
    row, what = _by_name(student, lms, roster)
    if row is not None:
        merged["proposed"] = {k: row[k] for k in ID_KEYS if row.get(k)}
        merged["basis"] = f"the name {student!r} equals the roster's {what}"
    return merged


def roster_name(ids: dict, student: str) -> str:
    """The student's name as the roster writes it ("Alice Adams"), where their identity came from
    the roster row with the export's id or a confirmed row, and it is not their name already
    (Canvas's files carry a squashed "adamsalice"); "" otherwise (never a proposal's)."""
    who = identity_of(ids, student)
    name = str(who.get("name") or "")
    return name if (who.get("roster") or who.get("confirmed")) and name and name != student else ""


def late_labs(saved: dict, student: str) -> set[str]:
    """The labs whose submission the LMS marked late (Canvas's _LATE), from the identity saved with
    each of the student's results (`saved`: {(student, lab): identity})."""
    return {lab for (st, lab), who in saved.items() if st == student and isinstance(who, dict) and who.get("late")}


def _keys_of_row(row: dict) -> set[tuple[str, str]]:
    return {k for k in (("participant", row.get("participant", "")), ("id", row.get("id", "")),
                        ("sis_id", row.get("sis_id", "")), ("login", row.get("login", "").lower()),
                        ("name", row.get("name", "").lower())) if k[1]}


def _keys_of_student(student: str, lms: dict) -> set[tuple[str, str]]:
    keys = {("name", student.lower())}
    for who in (lms, lms.get("proposed") or {}):
        if who.get("id"):
            keys.add(("participant" if who.get("source") == "moodle" else "id", who["id"]))
        keys |= {(k, str(who[k]).lower() if k in ("login", "name") else who[k])
                 for k in ("sis_id", "login", "name") if who.get(k)}
    return keys


def absent_from_export(roster: list[dict], students: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The roster's students who handed in nothing: the rows (read_roster) that no student of the
    export is (by the export's id, a proposed or confirmed match, or the name), each as (the
    roster's name, an identity from its own row: the LMS's own ids, so that each import file has
    their row, its score blank). `students`: (name, identity) of the export's students."""
    seen = set().union(*(_keys_of_student(st, lms) for st, lms in students)) if students else set()
    out, names = [], {st.lower() for st, _ in students}
    for row in roster:
        if not row.get("name") or row["name"].lower() in names or _keys_of_row(row) & seen:
            continue
        src = "moodle" if row.get("participant") else "roster"
        who = {k: row[k] for k in ID_KEYS if row.get(k) and not (k == "id" and src == "moodle")}
        who.update(source=src, roster=True, **({"id": row["participant"]} if src == "moodle" else {}))
        names.add(row["name"].lower())
        out.append((row["name"], who))
    return out


# --------------------------------------------------------------------------- the import files' cells

def identity_of(ids: dict, student: str) -> dict:
    """The identity an import file may write for `student` (never a proposal)."""
    v = ids.get(student) or {}
    return {"id": v} if isinstance(v, str) else {k: x for k, x in v.items() if k != "proposed"}


def login_of(student: str, who: dict) -> str:
    """The student's LMS login as an import file writes it: the export's (Blackboard) or the roster
    row matched by the export's id, or a confirmed one; never a folder's or a file's name."""
    return who.get("login", "")


def refuse_shared(ids: dict, students) -> list[str]:
    """Two students (result rows) that resolve to one identity (the same Canvas ID, participant,
    SIS id or login): both lose it (no import file writes either), and each clash is returned in
    words for the terminal."""
    owners: dict[tuple[str, str], list[str]] = {}
    for st in sorted(set(students)):
        who = identity_of(ids, st)
        keys = [("participant" if who.get("source") == "moodle" else "Canvas ID", who.get("id", "")),
                ("SIS id", who.get("sis_id", "")), ("login", who.get("login", "").lower())]
        for k in {k for k in keys if k[1]}:
            owners.setdefault(k, []).append(st)
    clashes = []
    for (what, value), sts in sorted(owners.items()):
        if len(sts) < 2:
            continue
        clashes.append(f"{', '.join(repr(s) for s in sts)} all resolve to {what} {value}")
        for st in sts:
            v = ids.get(st)
            keep = {k: x for k, x in (v.items() if isinstance(v, dict) else []) if k in ("source", "name")}
            ids[st] = dict(keep, refused=f"same {what} as another student")
    return clashes


def lab_identities(ids: dict, saved: dict, lab: str, students) -> dict[str, dict]:
    """Each student's identity in lab `lab`'s Moodle worksheet. Moodle numbers participants per
    assignment (a student is "Participant 2000101" in one lab's assignment and another number in
    the next one's), so a lab's worksheet writes the participant id that lab's export carried: the
    one saved with the student's result for the lab (`saved`: {(student, lab): identity}), else
    this run's (`ids`). A student whose identity this run refused writes none, and two students
    with one participant id in the lab both lose it (refuse_shared)."""
    res = {}
    for st in sorted(set(students)):
        who = identity_of(ids, st)
        kept = saved.get((st, lab))
        if not who.get("refused") and isinstance(kept, dict) and kept.get("source") == "moodle" and kept.get("id"):
            who = identity_of({st: kept}, st)
        res[st] = who
    refuse_shared(res, list(res))
    return res


IDENTITY_HEADER = ["student", "source", "ID", "SIS User ID", "login", "name", "status", "basis", "confirm"]


def identity_rows(students: list[tuple[str, dict]]) -> list[list[str]]:
    """OUT/identities.csv: one row per student, what each import file writes (status "written") or
    what is only proposed ("to confirm": put yes in `confirm`, pass the file with --identities)."""
    rows = []
    for st, who in sorted(students, key=lambda x: x[0]):
        prop = who.get("proposed") or {}
        shown = prop if prop and not who.get("confirmed") else who
        if who.get("refused"):
            status = f"refused: {who['refused']}"
        elif who.get("confirmed"):
            status = "written (confirmed)"
        elif prop:
            status = "to confirm"
        elif any(who.get(k) for k in ("id", "sis_id", "login")):
            status = "written (from the export" + (" and the roster row with its id)" if who.get("roster") else ")")
        else:
            status = "none"
        rows.append([st, who.get("source", ""), shown.get("id", ""), shown.get("sis_id", ""),
                     shown.get("login", ""), shown.get("name", ""), status, who.get("basis", ""), ""])
    return rows


def read_confirmed(path: Path) -> dict[str, dict]:
    """The rows of an identities file (IDENTITY_HEADER) whose `confirm` says yes: {student: identity}."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
    except (csv.Error, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not an identities file ({e})") from e
    if rows and "confirm" not in rows[0]:
        raise ValueError(f"{path}: not an identities file (no `confirm` column: start from the "
                         "identities.csv grade-class writes)")
    out = {}
    for r in rows:
        if (r.get("confirm") or "").strip().lower() in ("yes", "y", "x", "1", "true"):
            st = (r.get("student") or "").removeprefix("'")
            out[st] = {"id": (r.get("ID") or "").removeprefix("'"), "sis_id": (r.get("SIS User ID") or "").removeprefix("'"),
                       "login": (r.get("login") or "").removeprefix("'"), "name": (r.get("name") or "").removeprefix("'")}
    return out
