"""Another lab's number left in a lab's files: what a copy renamed half-way still says.

A new lab is a copy of both folders of a lab under a new number with `labNN`/`LabNN` renamed
(docs/dev/LAB_CONTRACT.md). That rename leaves every other form of the old number behind: the
titles ("// Lab 04: padding"), the handout's commands (`--lab 04`), the paths of the lab's own
files (`labs/04_padding/kernel.cu`, the `--- a/solutions/04_padding/kernel.cu` line of every
case), the cheats' names (`..._04.patch`). Labs also name each other on purpose ("[Lab 04](...)
made the column read conflict-free", "the transpose of lab 04 again", "lab 05's swizzle"), so a
mention of another lab is not wrong by itself. The rule tells the two apart by WHERE the number
stands, never by a list of allowed sentences:

1. title: the first lab number a file names ("Lab NN", "lab NN", "labNN", "LabNN", in any case)
   is its own lab's. A file speaks of itself before it speaks of others (its title, its first
   header line); a copy's first mention is the old number. A file that names no lab is fine.
2. command: `--lab NN`, `--preset labNN`, `banklab-judge-labNN` and `judge/labNN` in a lab's
   files run or build its own judge, so they name its own number.
3. own file: a path to a lab's own files (`NN_name/kernel.cu`, `NN_name/judge/...`,
   `NN_name/answers.toml`, and so every case's diff header) names its own folder. Another lab's
   handout (`../04_padding/README.md`) or case (`solutions/04_padding/cases/...`) may be named.
4. cheat name: a lab's cheat is named `..._NN.patch` or `..._NN.cu` with its own number.

`check(number, folder, dirs, root)` returns one message per file and rule (its lines, the first one
quoted, and what to do); the course's labs-check prints them. Python 3 standard library only.
"""

from __future__ import annotations

import re
from pathlib import Path

#: A lab named by its number: "Lab 04", "lab 04's", "lab04", "Lab04Layout" (not "labs 04" or "lab 4").
LAB_NUMBER_RE = re.compile(r"(?<![A-Za-z0-9_])[Ll][Aa][Bb][ _-]?(\d\d)(?!\d)")
#: Commands and build names that run or build a lab's own judge.
COMMAND_RES = (re.compile(r"--lab[ =](\d\d)(?!\d)"), re.compile(r"--preset[ =]lab(\d\d)(?!\d)"),
               re.compile(r"banklab-judge-lab(\d\d)(?!\d)"), re.compile(r"\bjudge/lab(\d\d)(?!\d)"))
#: A path to a lab's own files: its kernel.cu, its judge/ folder, its answers.
OWN_FILE_RE = re.compile(r"(?<![A-Za-z0-9])(\d\d)_[a-z0-9_]+/(?:kernel\.cu|judge/|answers\.toml)")
#: A cheat's name ends with its lab's number.
CHEAT_NAME_RE = re.compile(r"_(\d\d)$")
#: Files read as text (the rest, e.g. figures as images, are not).
TEXT_SUFFIXES = {".cu", ".cuh", ".hpp", ".cpp", ".md", ".txt", ".toml", ".patch", ".py", ".json"}


def check(number: str, folder: str, dirs: list[Path], root: Path) -> list[str]:
    """Messages for every file under `dirs` (a lab's labs/NN_name/ and solutions/NN_name/) that names
    another lab where it must name lab `number` (folder `folder`, e.g. "08_padding")."""
    out: list[str] = []
    for d in dirs:
        if not d.is_dir():
            continue
        for f in sorted(p for p in d.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES):
            out += check_file(number, folder, f, root)
    return out


def check_file(number: str, folder: str, path: Path, root: Path) -> list[str]:
    """The messages for one file of lab `number` (folder `folder`)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    name = _rel(path, root)
    found: dict[str, list[tuple[int, str, str]]] = {}   # rule -> [(line, other number, the text around it)]

    def hit(rule: str, i: int, m: re.Match) -> None:
        if m.group(1) != number:
            text = m.string
            found.setdefault(rule, []).append((i, m.group(1), text[max(0, m.start() - 30):m.end() + 40].strip()))

    first = next(((i, m) for i, line in enumerate(lines, 1) for m in LAB_NUMBER_RE.finditer(line)), None)
    if first:
        hit("title", *first)
    for i, line in enumerate(lines, 1):
        for rx in (*COMMAND_RES, OWN_FILE_RE):
            for m in rx.finditer(line):
                hit("own file" if rx is OWN_FILE_RE else "command", i, m)
    cheat = CHEAT_NAME_RE.search(path.stem)
    if path.parent.name == "cheats" and path.parent.parent.name == "cases" and cheat:
        hit("cheat name", 0, cheat)
    return [_message(name, number, folder, rule, hits) for rule, hits in found.items()]


WHAT = {
    "title": "names lab {other} before its own lab {number}",
    "command": "runs or builds lab {other}'s judge",
    "own file": "names lab {other}'s own file (kernel.cu, judge/, answers.toml)",
    "cheat name": "is a cheat of lab {number} named for lab {other}",
}
FIX = {
    "title": "a file names its own lab first (its title: lab {number}); lab {other} may be named after that, "
             "as in \"as in lab {other}\"",
    "command": "a lab's files run their own judge: --lab {number}",
    "own file": "a lab's files name their own: {folder}/",
    "cheat name": "rename it ..._{number}{suffix}",
}


def _message(name: str, number: str, folder: str, rule: str, hits: list[tuple[int, str, str]]) -> str:
    line, other, text = hits[0]
    where = f"{name}:{line}" if line else name
    more = f" (and line {', '.join(str(h[0]) for h in hits[1:6])}{' ...' if len(hits) > 6 else ''})" \
        if len(hits) > 1 else ""
    quoted = text if line else Path(name).name
    fix = FIX[rule].format(other=other, number=number, folder=folder, suffix=Path(name).suffix)
    return (f"{where}: {WHAT[rule].format(other=other, number=number)}{more}: {quoted!r} (a copy of lab {other} "
            f"renamed half-way?): {fix}")


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
