"""A release of one variant of each lab (issue 35 item 3; docs/dev/VARIANTS.md, "What is rendered"):
what instructor/make-release writes for `--student ID`, `--variant K` and each row of `--roster`.

Everything in a release that states a variant's numbers is that variant's:
  - labs/NN_name/kernel.cu          the variant's stub (banklab.lab.variants.stub, with its marker line)
  - grader/labs/NN_name/lab.toml    the questions' `what`/`hint` rendered for the variant: the judge
                                    of a release (no answers: the variant's questions are the lab's,
                                    form only) prints these texts, so `ctest` speaks of the variant's
                                    numbers; and `release = K` in [variants] (with_release): the
                                    release's judge grades K whatever line the file carries
  - labs/NN_name/README.md          a "Your numbers" section (the variant's parameters and its
                                    questions as the judge asks them; never an answer)
Figures are not rendered: each draws an access of the lab's stub or an example of the handout,
variant 0's where it depends on a parameter (docs/dev/VARIANTS.md, "What is rendered").
`with_solutions` (instructor only) adds solutions/NN_name/kernel.cu, the variant's solved file.
"""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from banklab.lab import labs as banklab_labs
from banklab.lab import variants as banklab_variants
from banklab.lab.schema import DescriptionError

#: The heading of the section a variant's README gets, before its "## Your task".
NUMBERS_HEADING = "## Your numbers"
#: What a release with solutions says of itself (RELEASE and NOT_FOR_STUDENTS), never for students.
NOT_FOR_STUDENTS = ("INSTRUCTOR COPY, NOT FOR STUDENTS: this release holds solutions/ (the solved kernel.cu of "
                    "each lab's variant, made by make-release --with-solutions). Never publish it.\n")
_UNSAFE_LOGIN = re.compile(r"[/\\\x00-\x1f\x7f]|^[-.]|^\s*$")
#: What a handout's banklab commands name (banklab.lab.labs.BANKLAB_CLI).
BANKLAB_CLI = banklab_labs.BANKLAB_CLI
#: A `banklab explain|compare|predict ...` command in a description's text: its words, quoted
#: arguments whole, up to the sentence's end.
_COMMAND = re.compile(r"\bbanklab ((?:explain|compare|predict)(?: (?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\".,;()]+))*)")


def markdown_text(text: str) -> str:
    """A description's text as Markdown a handout and the site can hold: each banklab command a
    code span that runs as printed (BANKLAB_CLI), every other '<', '>' and '&' an entity. Doxygen
    (1.9.4) reads `<your ...>` as a tag even in a code span, and warns, unless it is in double
    quotes: a command's single-quoted argument that holds a '<' or '>' is double-quoted."""
    out, pos = [], 0
    entity = lambda t: t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")  # noqa: E731
    for m in _COMMAND.finditer(text):
        cmd = re.sub(r"'([^'\"$`\\]*[<>][^'\"$`\\]*)'", r'"\1"', m.group(1))
        out += [entity(text[pos:m.start()]), f"`{BANKLAB_CLI} {cmd}`"]
        pos = m.end()
    return "".join(out + [entity(text[pos:])])


def description_toml(text: str, lab: banklab_labs.Lab, k: int) -> str:
    """lab.toml's text with each question's `what` and `hint` those of variant k (the rest of the
    file as written: its comments, its [variants] table). Checked: the result reads back as the
    variant's description (banklab.lab.variants.description), question by question."""
    want = {q["name"]: q for q in banklab_variants.description(lab, k).get("questions", [])}
    blocks = re.split(r"(?m)^(?=\[\[questions\]\]\s*$)", text)
    out = [blocks[0]]
    for block in blocks[1:]:
        m = re.search(r'(?m)^name[ \t]*=[ \t]*"([^"]+)"[ \t]*$', block)
        q = want.get(m.group(1)) if m else None
        for key in ("what", "hint"):
            if q is None or key not in q:
                continue
            line = f"{key} = {json.dumps(q[key], ensure_ascii=False)}"
            block, n = re.subn(rf'(?m)^{key}[ \t]*=[ \t]*"(?:[^"\\\n]|\\.)*"[ \t]*$', lambda _m: line, block, count=1)
            if n == 0:   # a key the lab leaves out and the variant templates: after the name
                block = block[:m.end()] + "\n" + line + block[m.end():]
        out.append(block)
    result = "".join(out)
    got = {q["name"]: (q.get("what"), q.get("hint")) for q in tomllib.loads(result).get("questions", [])}
    if got != {n: (q.get("what"), q.get("hint")) for n, q in want.items()}:
        raise DescriptionError(f"labs/{lab.folder}/judge/lab.toml: the questions' texts of variant {k} "
                               "could not be written in (a `what` or `hint` over several lines?)")
    return result


def with_release(text: str, lab: banklab_labs.Lab, k: int) -> str:
    """lab.toml's text with `release = k` in its [variants] table: the release's judge grades variant k
    whatever line the student's file carries (grader/judge/main.cpp, choose_variant), and says so
    when the line names another variant or none. Checked: it reads back."""
    text, n = re.subn(r"(?m)^(\[variants\][ \t]*\n)(?:release[ \t]*=.*\n)?", lambda m: m.group(1) + f"release = {k}\n",
                      text, count=1)
    if n != 1 or tomllib.loads(text).get("variants", {}).get("release") != k:
        raise DescriptionError(f"labs/{lab.folder}/judge/lab.toml: `release = {k}` could not be written into its "
                               "[variants] table")
    return text


def your_numbers(lab: banklab_labs.Lab, k: int) -> str:
    """The README's section for variant k: its parameters and the texts of the questions whose
    numbers it changes (the description's texts: they go to students; no answer in them)."""
    v = banklab_variants.read(lab)
    d = banklab_variants.description(lab, k)
    changed = set(v.what) | set(v.hint)
    lines = [NUMBERS_HEADING, "",
             f"Your release is lab {lab.number}'s **variant {k}**: {v.describe(k)}"
             + (" (the lab as written)." if k == 0 else "."),
             "Where this page works an example with the lab as written (variant 0: "
             f"{v.describe(0)}), the questions of your `kernel.cu` ask about your numbers instead (the comment above "
             "each constant names them); "
             "`ctest` and `banklab-judge` grade them (keep the `// banklab variant:` line of your kernel.cu).", ""]
    for q in d.get("questions", []):
        if q["name"] in changed:
            text = markdown_text(q.get("what") or q.get("hint", ""))
            lines.append(f"- `{q['name']}`: {text}" + (f" (hint: {markdown_text(q['hint'])})" if q.get("what")
                                                        and q.get("hint") and q["name"] in v.hint else ""))
    return "\n".join(lines) + "\n\n"


def readme_with_numbers(text: str, lab: banklab_labs.Lab, k: int) -> str:
    """The handout with the variant's section before its "## Your task" (at its end if it has none)."""
    section = your_numbers(lab, k)
    m = re.search(r"(?m)^## Your task\s*$", text)
    return text[:m.start()] + section + text[m.start():] if m else text.rstrip("\n") + "\n\n" + section


def write_variant(out: Path, lab: banklab_labs.Lab, k: int, released_path, with_solution: bool = False) -> str:
    """Write variant k of `lab` into the release at `out` (`released_path`: make-release's map of a
    course path to its place in the release). Returns the variant's one-line description."""
    v = banklab_variants.read(lab)
    if v is None:
        if with_solution and lab.solution.is_file():
            _write(out / "solutions" / lab.folder / "kernel.cu", lab.solution.read_text())
        return f"lab {lab.number}: no variants (the lab as written)"
    v.check_index(k)
    _write(out / released_path(f"labs/{lab.folder}/kernel.cu"), banklab_variants.stub(lab, k))
    toml = out / released_path(f"labs/{lab.folder}/judge/lab.toml")
    _write(toml, with_release(description_toml(toml.read_text(), lab, k), lab, k))
    readme = out / released_path(f"labs/{lab.folder}/README.md")
    if readme.is_file():
        _write(readme, readme_with_numbers(readme.read_text(), lab, k))
    if with_solution:
        _write(out / "solutions" / lab.folder / "kernel.cu", banklab_variants.solution(lab, k))
    return f"lab {lab.number} variant {k} ({v.describe(k)})"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def unsafe_login(login: str) -> str | None:
    """Why `login` cannot name a release's folder (OUT/<login>/), or None: a path separator, '..',
    a leading '-' or '.', a control character, or nothing."""
    if _UNSAFE_LOGIN.search(login) or ".." in login:
        return (f"the login {login!r} cannot name a folder (a path separator, '..', a leading '-' or '.', "
                "a control character, or empty)")
    return None


def roster_logins(path: Path) -> tuple[list[str], list[str]]:
    """The roster's logins (banklab.grading.identity.read_roster, key `login`, stripped and lower-cased
    as banklab.lab.variants.choose does) and what is wrong with it (unsafe, missing or repeated logins)."""
    from banklab.grading.identity import read_roster
    logins, problems = [], []
    for n, row in enumerate(read_roster(path), 1):
        login = row.get("login", "").strip().lower()
        why = unsafe_login(login) if login else "no login (SIS Login ID or Username)"
        if why:
            problems.append(f"{path}: student {n}: {why}")
        elif login in logins:
            problems.append(f"{path}: student {n}: the login {login!r} is on the roster twice")
        else:
            logins.append(login)
    return logins, problems


def write_roster_variants(path: Path, rows: list[tuple[str, str, int]]) -> None:
    """OUT/roster-variants.csv for the instructor: login, lab, variant (cells neutralised against
    spreadsheet formulas by the project's one CSV writer)."""
    from banklab.grading.csvfile import write_csv
    write_csv(path, ["login", "lab", "variant"], rows)
