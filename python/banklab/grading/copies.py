"""The instructor's report of likely copies (issue 44): OUT/copies.csv and a section of summary.md,
written by grade-class from the submissions it read.

Two lists, lab by lab:
  - every submission written for another variant: its `// banklab variant:` line (the judge's form,
    read by banklab.lab.variants.named_variant) against the variant it was graded as, the student's
    own (banklab.grading.assigned); a file with no line where the student's variant is not 0 is
    listed too (the lab as written's file has none; a student may also have deleted it);
  - every pair of near-identical kernels (a submission whose own text is shorter than MIN_OWN_TOKENS
    is in none: the lab's row "too short" counts them): Debian's similarity tester (`sim_c`, package
    similarity-tester; tools/setup-debian --all installs it) compares what each student wrote. Every
    student starts from the same stub, so the lines the course gave everyone (each variant's stub's,
    compared without spaces, comments and the values of numbers) are left out first: sim_c has no
    base-file option (as MOSS's -b). A pair is listed when sim_c finds at least SIMILAR_PERCENT % of
    one file's own text in the other (`sim_c -p -e -s -r RUN_TOKENS`: each pair apart, its percentages). No
    home-made comparison: where sim_c is missing or fails, the report says that pairs were not looked
    for, and why.

Student names are printed through shown() (control characters and bidirectional overrides as visible
escapes, as repr does); every CSV cell through the package's one CSV writer. Standard library only.
"""
from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from banklab.grading import cleantext as ct
from banklab.grading.csvfile import write_csv
from banklab.lab import labs as banklab_labs
from banklab.lab import variants as banklab_variants

#: The report's file in grade-class's OUT.
CSV_NAME = "copies.csv"
HEADER = ["lab", "kind", "student", "other", "similarity", "detail"]
#: A pair is listed when this much of one file's own text (its lines that are not the stub's) is in the other's.
SIMILAR_PERCENT = 80
#: sim_c's shortest run, in tokens (its default is 24): a lab's own part is a few short functions and
#: constants, and a copy that moves or renames lines breaks it into runs of a dozen tokens or so.
RUN_TOKENS = 12
#: A submission whose own text (the stub's lines left out) is shorter than this many tokens is in no
#: pair: where a lab's work is one expression (labs 00, 01, 02 and 04's solutions: 20 to 25 tokens),
#: every right answer reads alike, so a copy cannot be told from the same right answer; the report
#: says how many such submissions each lab had.
MIN_OWN_TOKENS = 28
#: Bytes of a submission read (a kernel.cu is a few KiB; the judge reads 8 MiB at most).
READ_BYTES = 1 << 20
SIM_TIMEOUT_S = 300
SIM_HINT = "install Debian's similarity-tester (apt-get install similarity-tester, or tools/setup-debian --all)"
_LINE = re.compile(r"^(\S+) consists for (\d+) % of (\S+) material$")
_NUMBER = re.compile(r"-?\b[0-9][0-9a-fA-FxX.']*[uUlLfF]*\b")
_TOKEN = re.compile(r"[A-Za-z_]\w*|[0-9][\w.']*|\S")


@dataclasses.dataclass(frozen=True)
class Handed:
    """One submission grade-class read: the student's name (as grade-class shows it), the lab, the
    file it graded, the variant it graded it as (None: the lab has none, or the student's is unknown)."""
    student: str
    lab: str
    path: Path
    variant: int | None


def shown(name: str) -> str:
    """A student-chosen name as printed: the one cleaning rule (banklab.grading.cleantext.name)."""
    return ct.name(name)


def _text(path: Path) -> str | None:
    try:
        with open(path, "rb") as f:
            return f.read(READ_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None


def _shape(line: str) -> str:
    """A line as the stub filter compares it: its `//` comment, spaces and the values of numbers left out."""
    return _NUMBER.sub("0", re.sub(r"\s+", "", line.split("//", 1)[0]))


def course_lines(lab: banklab_labs.Lab) -> set[str]:
    """The shapes of every line the course gives every student of the lab: each variant's stub."""
    v = banklab_variants.read(lab)
    stubs = [banklab_variants.stub(lab, k) for k in range(v.count)] if v else [lab.stub.read_text()]
    return {_shape(l) for s in stubs for l in s.splitlines()}


def own_text(text: str, course: set[str]) -> str:
    """The lines of a submission that are its student's: those whose shape no stub line has."""
    return "".join(l + "\n" for l in text.splitlines() if _shape(l) and _shape(l) not in course)


def tokens(text: str) -> int:
    """How many C tokens `text` holds (names, numbers, each other character that is not a space)."""
    return len(_TOKEN.findall(text))


def other_variant(h: Handed, text: str) -> str:
    """Why `h` was written for another variant than the one it was graded as, or ""."""
    if h.variant is None:
        return ""
    named = banklab_variants.named_variant(text, h.lab)
    if named is None:
        return "" if h.variant == 0 else (f"carries no `// banklab variant:` line (the lab as written's file has none), "
                                          f"graded as the student's variant {h.variant}")
    return "" if named == h.variant else f"its line names variant {named}, graded as the student's variant {h.variant}"


def similar_pairs(own: dict[str, str], sim: str) -> tuple[list[tuple[str, str, int]], str]:
    """[(a, b, percent)] of the students whose own texts sim_c finds near-identical (percent: the larger
    of its two directions), and "" or why sim_c could not compare them."""
    if len(own) < 2:
        return [], ""
    names = sorted(own)
    with tempfile.TemporaryDirectory(prefix="banklab-copies-") as d:
        files = {}
        for i, n in enumerate(names):        # files named by number: no student's name reaches sim_c
            p = Path(d) / f"s{i:05d}.c"
            p.write_text(own[n], encoding="utf-8")
            files[p.name] = n
        try:
            r = subprocess.run([sim, "-p", "-e", "-s", "-T", "-r", str(RUN_TOKENS), "-t", str(SIMILAR_PERCENT), *files], cwd=d,
                               capture_output=True, text=True, timeout=SIM_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as e:
            return [], f"sim_c did not run ({e})"
    if r.returncode != 0:
        return [], f"sim_c exited {r.returncode}: {' '.join(r.stderr.split())[:200]}"
    best: dict[tuple[str, str], int] = {}
    for line in r.stdout.splitlines():
        m = _LINE.match(line.strip())
        if m and m.group(1) in files and m.group(3) in files:
            pair = tuple(sorted((files[m.group(1)], files[m.group(3)])))
            best[pair] = max(best.get(pair, 0), int(m.group(2)))
    return sorted(((a, b, p) for (a, b), p in best.items() if p >= SIMILAR_PERCENT), key=lambda t: (-t[2], t)), ""


def report(out: Path, handed: list[Handed], course: Path, sim: str | None = None) -> str:
    """Write OUT/copies.csv from the submissions grade-class read and return summary.md's section; a
    report that cannot be written (a full disk) is said in the section, never the run's end. With no
    submission read (--rescore reads none), the last run's report is kept and nothing is said."""
    if not handed:
        return ""
    try:
        return _report(out, handed, course, sim)
    except (OSError, ValueError) as e:
        return f"\n## Likely copies\n\nThe report of likely copies ({CSV_NAME}) could not be written: {e}.\n"


def _report(out: Path, handed: list[Handed], course: Path, sim: str | None) -> str:
    sim = sim if sim is not None else shutil.which("sim_c") or ""
    labs = banklab_labs.find_labs(course)
    rows = []
    for lab in sorted({h.lab for h in handed}):
        mine = [h for h in handed if h.lab == lab]
        texts = {h.student: t for h in mine if (t := _text(h.path)) is not None}
        for h in sorted(mine, key=lambda h: h.student):
            why = other_variant(h, texts[h.student]) if h.student in texts else ""
            if why:
                rows.append([lab, "another variant", shown(h.student), "", "", why])
        if lab not in labs:
            continue
        shapes = course_lines(labs[lab])
        own = {s: own_text(t, shapes) for s, t in texts.items()}
        short = [s for s, o in own.items() if tokens(o) < MIN_OWN_TOKENS]
        if short:
            rows.append([lab, "too short", "", "", "", f"{len(short)} of {len(own)} submission(s) add fewer than "
                         f"{MIN_OWN_TOKENS} tokens of their own to the stub (an expression, or only numbers): every "
                         f"right answer reads alike there, so they are in no pair"])
        if not sim:
            rows.append([lab, "not compared", "", "", "", f"near-identical kernels were not looked for: sim_c is "
                         f"not installed ({SIM_HINT})"])
            continue
        pairs, failed = similar_pairs({s: o for s, o in own.items() if s not in short}, sim)
        if failed:
            rows.append([lab, "not compared", "", "", "", f"near-identical kernels were not looked for: {failed}"])
        rows += [[lab, "near-identical", shown(a), shown(b), f"{p} %",
                  f"sim_c finds {p} % of one's own lines (the stub's left out) in the other's"] for a, b, p in pairs]
    write_csv(out / CSV_NAME, HEADER, rows)
    variant_rows = [r for r in rows if r[1] == "another variant"]
    pair_rows = [r for r in rows if r[1] == "near-identical"]
    said = ["", "## Likely copies", "",
            f"{len(variant_rows)} submission(s) written for another variant than their student's, "
            f"{len(pair_rows)} pair(s) of near-identical kernels (Debian's sim_c, at least {SIMILAR_PERCENT} % "
            f"of one's own lines in the other's) of {len(handed)} submission(s) read: `{CSV_NAME}`.", ""]
    said += [f"- lab {r[0]}: {r[2]} {r[5]}" for r in variant_rows[:40]]
    said += [f"- lab {r[0]}: {r[2]} and {r[3]}: {r[4]}" for r in pair_rows[:40]]
    said += [f"- lab {r[0]}: {r[5]}" for r in rows if r[1] in ("too short", "not compared")]
    if len(variant_rows) > 40 or len(pair_rows) > 40:
        said.append(f"- (the rest in `{CSV_NAME}`)")
    return "\n".join(said) + "\n"
