"""Which file of a student's upload is a lab's kernel, chosen or refused openly.

A submission is a folder (one student's) or loose files (an LMS's flat export of one student). It
may hold the kernel as it is (at a path of source_candidates(), or, for one lab's assignment, as
its one .cu file), inside archives (unpacked by banklab.grading.archives.unpack_upload, in a process of
its own) and as NAME.cu.txt. Each of these is an *upload*; when more than one upload holds a
kernel for the lab (different bytes), or one holds a kernel and another could not be read or
holds an archive inside it, nothing is graded and the reason lists them all: a stale stub beside
the real file never wins silently. The file graded is named (ORIGIN) and so is every file that
was handed in and not graded (IGNORED), for the student's feedback. Python 3 standard library.
"""

from __future__ import annotations

import atexit
import hashlib
import shutil
import tempfile
from pathlib import Path

from banklab.grading.archives import (ARCHIVE_MAX_FILE_BYTES, ARCHIVE_REFUSED, RENAMED_SUFFIX, UnsafeArchive,
                              ignored, is_archive, unpack_upload)
from banklab.grading.identity import BLACKBOARD_RECEIPT_RE
from banklab.grading import cleantext as ct      # names a student chose, made harmless

#: What find_source() says of an upload it does not recognise (named in the gradebook).
UNRECOGNISED = "handed in instead"
#: What it says when several uploads could each be the kernel.
AMBIGUOUS = "more than one upload could be lab"
#: What it says of an archive inside an archive (never opened).
NESTED = "holds an archive inside it"
#: At most this many archives of one submission are opened (each in a process of its own, up to
#: banklab.grading.archives.UNPACK_TIMEOUT_S): more is refused unopened, so that one student's thousand
#: archives cannot hold the class up.
MAX_ARCHIVES = 20
TOO_MANY = "archives were handed in"
#: Where a source found came from ("submission.zip: kernel.cu", "labs/05_swizzle/kernel.cu"), and
#: what else was handed in and not graded: the reports name both.
ORIGIN: dict[Path, str] = {}
IGNORED: dict[Path, list[str]] = {}


def source_candidates(lab: str, lab_dir: str, single: bool = False) -> list[Path]:
    """Where a submission may hold lab NN's kernel, first match wins. `single`: the
    submission is for this one lab, so a bare kernel.cu is accepted too."""
    c = [Path("labs") / lab_dir / "kernel.cu", Path(lab_dir) / "kernel.cu", Path(f"{lab_dir}.cu"),
         Path(f"lab{lab}") / "kernel.cu", Path(f"lab{lab}.cu")]
    return c + [Path("kernel.cu")] if single else c


def _linked(folder: Path, p: Path) -> bool:
    """Whether p, or a folder between `folder` and p, is a symbolic link."""
    rel = p.relative_to(folder)
    return p.is_symlink() or any(q.is_symlink() for q in list(p.parents)[: len(rel.parts) - 1])


def _find_in(folder: Path, lab: str, lab_dir: str, single: bool) -> tuple[Path | None, str]:
    """The kernel of one lab among the files of `folder` as they are (no archive opened)."""
    base = folder.resolve()
    cands = source_candidates(lab, lab_dir, single)
    for rel in cands:
        p = folder / rel
        if _linked(folder, p):
            return None, f"{rel} is a symbolic link: only regular files are graded"
        if p.is_file():
            if base not in p.resolve().parents:
                return None, f"{rel} lies outside the submission"
            return p, ""
    if single:
        # One lab's assignment: whatever layout the LMS exported, one .cu file is the kernel.
        found = sorted(p for p in folder.rglob("*.cu") if not ignored(p.relative_to(folder)))
        links = [p for p in found if _linked(folder, p)]
        if links:
            return None, f"{links[0].relative_to(folder)} is a symbolic link: only regular files are graded"
        found = [p for p in found if p.is_file()]
        if len(found) == 1:
            return found[0], ""
        if len(found) > 1:
            return None, ("several .cu files were submitted ({}): hand in one, or name it kernel.cu"
                          .format(", ".join(ct.name(str(p.relative_to(folder))) for p in found[:6])))
    return None, "no kernel.cu for lab {} was submitted (looked for {})".format(
        lab, ", ".join(str(c) for c in cands) + (", or any one .cu file" if single else ""))


def is_refusal(why: str) -> bool:
    """A search that found something it refused (a link, several files, an unsafe or nested
    archive, several uploads): its reason is the verdict, the search goes no further."""
    return any(w in why for w in ("symbolic link", "several", "lies outside", ARCHIVE_REFUSED, AMBIGUOUS,
                                  NESTED, TOO_MANY, "could not be read"))


def names_a_problem(why: str) -> bool:
    """Whether a search that found no kernel found something the gradebook must name (a refusal,
    an unrecognised upload): a lab with such a reason gets a row even under --lab all."""
    return is_refusal(why) or UNRECOGNISED in why


def find_source(folder: Path, lab: str, lab_dir: str, single: bool = False) -> tuple[Path | None, str]:
    """The submitted kernel of one lab in `folder`, or (None, why). Symbolic links are refused
    (a link could point at the instructor's solution); so is anything outside `folder`.

    Each archive in it (.zip, .tar, .tar.gz/.tgz, .tar.bz2, .tar.xz) and each `NAME.cu.txt` (a
    kernel renamed by a browser or a mail client) is an upload of its own, searched as if it were
    the folder; see _choose() for how one is chosen. With nothing found, files that are none of
    these are named in the reason (`single`: any; else those whose name names the lab), so the
    gradebook says what was handed in instead of a silent "not submitted"."""
    src, why = _find_in(folder, lab, lab_dir, single)
    if is_refusal(why):
        return None, why
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()
                   and not ignored(p.relative_to(folder)))
    name_of = lambda f: str(f.relative_to(folder))           # noqa: E731
    loose = [(name_of(src), src)] if src is not None else []
    return _choose(files, loose, lab, lab_dir, single, why, name_of)


def find_source_in_files(files: list[Path], lab: str, lab_dir: str, single: bool,
                         name_of=lambda f: f.name) -> tuple[Path | None, str]:
    """The kernel of one lab among loose files (an LMS's flat export of one student: Canvas,
    Moodle's flat download, Blackboard), or (None, why). name_of(f): the name the student gave
    the file (the export's prefix taken off)."""
    cu = [f for f in files if name_of(f).endswith(".cu")]
    named = [f for f in cu if lab_dir in name_of(f) or f"lab{lab}" in name_of(f)]
    pick = named if named else (cu if single else [])
    if len(pick) > 1:
        return None, "several .cu files were submitted ({}): hand in one".format(
            ", ".join(ct.name(name_of(f)) for f in pick[:6]))
    loose = [(name_of(pick[0]), pick[0])] if pick else []
    return _choose(files, loose, lab, lab_dir, single, f"no kernel.cu for lab {lab} was submitted", name_of)


# --------------------------------------------------------------------------- uploads

_UNPACKED: list[Path] = []      # folders made for uploads, removed when the process ends
#: Each upload is opened once per process: (its path, its name) -> (root, nested, why).
_UPLOAD_CACHE: dict[tuple[str, str], tuple[Path | None, list[str], str]] = {}


def _cleanup_unpacked() -> None:
    for d in _UNPACKED:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_cleanup_unpacked)


def _open_upload(f: Path, shown: str) -> tuple[Path | None, list[str], str]:
    """(the folder to search, the archives found inside, "") for one archive or NAME.cu.txt, in a
    fresh folder of its own; (None, [], why) for an archive refused by unpack_upload()."""
    d = Path(tempfile.mkdtemp(prefix="banklab-upload-"))
    _UNPACKED.append(d)
    if not is_archive(shown):            # NAME.cu.txt: the kernel as NAME.cu
        with open(f, "rb") as src:
            (d / Path(shown).name[: -len(".txt")]).write_bytes(src.read(ARCHIVE_MAX_FILE_BYTES + 1))
        return d, [], ""
    try:
        nested = unpack_upload(f, d)
    except UnsafeArchive as e:
        shutil.rmtree(d, ignore_errors=True)
        return None, [], str(e)
    top = list(d.iterdir())
    return (top[0] if len(top) == 1 and top[0].is_dir() else d), nested, ""


def _uploads(files: list[Path], name_of) -> tuple[list[tuple[str, Path, list[str]]], list[tuple[str, str]], list[str]]:
    """The uploads among `files`: [(name, root, archives inside)] for each archive unpacked (its one
    top folder entered) and each NAME.cu.txt; [(name, why)] for the archives refused; the names of
    the files that are none of these (nor a .cu, nor a Blackboard receipt)."""
    roots, refused, other = [], [], []
    for f in files:
        shown = name_of(f)
        if is_archive(shown) or shown.lower().endswith(RENAMED_SUFFIX):
            key = (str(f.resolve()), shown)
            if key not in _UPLOAD_CACHE:
                _UPLOAD_CACHE[key] = _open_upload(f, shown)
            root, nested, err = _UPLOAD_CACHE[key]
            if err:
                refused.append((shown, err))
            else:
                roots.append((shown, root, nested))
        elif not shown.endswith(".cu") and not BLACKBOARD_RECEIPT_RE.match(f.name):
            other.append(shown)
    return roots, refused, other


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _choose(files: list[Path], loose: list[tuple[str, Path]], lab: str, lab_dir: str, single: bool,
            why: str, name_of) -> tuple[Path | None, str]:
    """The one upload that holds lab `lab`'s kernel. Every upload that could be the lab's (with
    `single` every one; else those whose name names the lab, and the loose files) is looked at:
    a kernel found in more than one (different bytes), or a kernel beside an upload refused or
    holding an archive inside it, is refused as ambiguous with the list. Found once: the source,
    its ORIGIN and the files IGNORED (the same kernel again, files the grader does not read)."""
    archives = [f for f in files if is_archive(name_of(f))]
    if len(archives) > MAX_ARCHIVES:
        return None, (f"{len(archives)} {TOO_MANY} (the grader opens at most {MAX_ARCHIVES}), so none was "
                      "opened: hand in kernel.cu itself, or one .zip or .tar.gz holding it")
    roots, refused, other = _uploads(files, name_of)
    names_lab = lambda n: single or lab_dir in n or f"lab{lab}" in n          # noqa: E731
    found = list(loose)
    problems = []
    for label, root, nested in roots:
        # An upload named after the lab (lab04.zip) is that lab's, whatever it holds: its one .cu.
        src, w = _find_in(root, lab, lab_dir, single or names_lab(label))
        if src is not None:
            found.append((f"{label}: {src.relative_to(root)}", src))
        elif is_refusal(w):
            problems.append(f"{label}: {w}")
        if nested and names_lab(label):
            problems.append(f"{label} {NESTED} ({', '.join(nested[:4])}), which the grader does not open")
    problems += [f"{label} {ARCHIVE_REFUSED}: {err}" for label, err in refused if names_lab(label)]
    kinds = {_sha(p) for _, p in found}
    if len(kinds) > 1 or (found and problems):
        listed = [label for label, _ in found] + problems
        return None, (f"{AMBIGUOUS} {lab}'s kernel, so none was graded: {'; '.join(listed[:6])}"
                      f"{' ...' if len(listed) > 6 else ''}. Hand in one file (kernel.cu, or one .zip or "
                      ".tar.gz holding it) and remove the others")
    if found:
        label, src = found[0]
        ORIGIN[src] = ct.name(label, 1024)
        # What was handed in beside it: the same kernel again, and the files at the top of the
        # upload (those deeper are a checkout's or an archive's own files, not uploads).
        IGNORED[src] = [ct.name(n, 1024) for n in [f"{l} (the same file)" for l, _ in found[1:]]
                        + [n for n in other if "/" not in n]]
        return src, ""
    if problems:
        if any(NESTED in p for p in problems):
            problems.append("hand in kernel.cu itself, or one .zip or .tar.gz holding it (not an archive "
                            "inside an archive)")
        return None, "; ".join(problems)
    other = [n for n in other if names_lab(n)]
    if other:
        shown = ", ".join(other[:6]) + (f" and {len(other) - 6} more" if len(other) > 6 else "")
        return None, (f"no kernel.cu for lab {lab} was submitted; {UNRECOGNISED}: {shown} (not a "
                      f"kernel the grader recognises: hand in kernel.cu itself, or a .zip or .tar.gz holding it)")
    return None, why


def submitted_labs(folder: Path, labs: dict[str, str]) -> dict[str, tuple[Path | None, str]]:
    """The labs a student handed in (for --lab all): {lab: (source, "")} for each lab whose kernel
    is found, {lab: (None, why)} where something was handed in but refused (a link). Labs with
    nothing handed in are left out: they are not graded, so they are not failed either."""
    out = {}
    for lab, lab_dir in labs.items():
        src, why = find_source(folder, lab, lab_dir)
        if src is not None or "symbolic link" in why:
            out[lab] = (src, why)
    return out


def sources_guarded(find, labs: dict[str, str], single: bool) -> dict[str, tuple[Path | None, str]]:
    """{lab: (source or None, why)} of the labs to grade for one student, find(lab, lab_dir)
    giving each lab's search. Whatever goes wrong while reading this student's files (an
    exception of any kind) is this student's alone: each lab asked for is then not graded, with
    the reason, and the rest of the class is graded as usual."""
    out = {}
    for lab, lab_dir in labs.items():
        try:
            src, why = find(lab, lab_dir)
        except Exception as e:             # noqa: BLE001: confined to this one student
            src, why = None, (f"this student's files could not be read ({type(e).__name__}: {e}); they "
                              "were not graded: ask your instructor to look at the upload")
        if single or src is not None or names_a_problem(why):
            # The reason names the student's files (archive members, folders): one line, bounded,
            # nothing in it that a terminal or a spreadsheet would run (cleantext.py).
            out[lab] = (src, ct.message(ct.line(why)))
    return out
