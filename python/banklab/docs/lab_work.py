"""The student's work of a lab, read from its `labs/NN_name/kernel.cu` at build time.

Standard library only; used by prepare_pages.py (the "Your work" section of each lab page) and by
the leak test (docs/tests/leakcheck.py), so both read kernel.cu the same way.

- `todo_sections(text)`: every `// LAB TODO` outside `namespace predict`, with the comment lines
  just above it and the declaration it belongs to (a function body up to its closing brace, or a
  statement up to its `;`).
- `questions(text)`: the prediction questions: (constant, question) for each `constexpr` in
  `namespace predict`, the question being the comment above it without the `LAB TODO:` marker.
- `explorer_spec(lab_dir)`: the lab's stub pattern for the live bank explorer, from the line
  `@explore op width expression|mask` of `labs/NN_name/figures.txt`.
- `answered_questions(lab)`: the questions of a lab's description labs/NN_name/judge/lab.toml, each with
  its answer from solutions/NN_name/answers.toml (`access`, `mask`, `value`) merged in; without
  that file (the student release) the questions alone.
- `access_patterns(question, x)`, `graded_patterns(root)`: the accesses the questions ask about,
  from their answers (`access`, `mask`) and the description's `x`, never from their wording:
  the leak test and the hardware page (which names the lab instead of a graded count) read them.
"""
from __future__ import annotations

import dataclasses
import functools
import html
import re
import sys
import urllib.parse
from pathlib import Path

from banklab.docs import sources   # noqa: E402  (the labs and the figure lists, as the site reads them)
from banklab.lab import expr as banklab_expr  # noqa: E402  (the lane-expression language, as the C++ evaluator reads it)
from banklab.lab import variants as banklab_variants  # noqa: E402  (each variant's questions and answers)

TODO_RE = re.compile(r"^\s*//\s*LAB TODO")
CONSTEXPR_RE = re.compile(r"^\s*(?:static\s+)?constexpr\s+[\w:<>\s]+?\s(k\w+)\s*=\s*([^;]*);")


@dataclasses.dataclass
class Section:
    first_line: int   # 1-based line number in kernel.cu
    code: str


@dataclasses.dataclass
class Question:
    name: str
    question: str
    line: int


def _predict_range(lines: list[str]) -> tuple[int, int]:
    """[start, end) line indices of `namespace predict { ... }`, or (-1, -1)."""
    for i, line in enumerate(lines):
        if re.match(r"^\s*namespace\s+predict\s*\{", line):
            depth = 0
            for j in range(i, len(lines)):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth <= 0 and j > i or (depth == 0 and "}" in lines[j]):
                    return i, j + 1
            return i, len(lines)
    return -1, -1


def todo_sections(text: str) -> list[Section]:
    lines = text.splitlines()
    p0, p1 = _predict_range(lines)
    out: list[Section] = []
    i = 0
    while i < len(lines):
        if not TODO_RE.match(lines[i]) or p0 <= i < p1 or i < 8 and "look for LAB TODO" in lines[i]:
            i += 1
            continue
        start = i
        while start > 0 and lines[start - 1].strip().startswith("//"):
            start -= 1
        j = i
        while j < len(lines) and lines[j].strip().startswith("//"):
            j += 1
        # the declaration: to the matching brace, or to the end of the statement
        depth = 0
        opened = False
        while j < len(lines):
            depth += lines[j].count("{") - lines[j].count("}")
            opened = opened or "{" in lines[j]
            if (opened and depth <= 0) or (not opened and lines[j].rstrip().endswith(";")):
                break
            j += 1
        out.append(Section(start + 1, "\n".join(lines[start:j + 1])))
        i = j + 1
    return out


def questions(text: str) -> list[Question]:
    lines = text.splitlines()
    p0, p1 = _predict_range(lines)
    out: list[Question] = []
    comment: list[str] = []
    for n in range(max(p0, 0), max(p1, 0)):
        s = lines[n].strip()
        if s.startswith("//"):
            c = re.sub(r"^//\s?", "", s)
            if re.match(r"LAB TODO", c):
                comment = []  # a new question starts here
                c = re.sub(r"^LAB TODO(\s*\([^)]*\))?:?\s*", "", c)
            comment.append(c)
            continue
        m = CONSTEXPR_RE.match(lines[n])
        if m:
            q = " ".join(x for x in comment if x).strip()
            if not q and out:  # a second constant under one question (e.g. "first, second")
                q = f"(the next value of the question above: {out[-1].name})"
            out.append(Question(m.group(1), q, n + 1))
            comment = []
        elif s:
            comment = []
    return out


def predict_block(text: str) -> str:
    lines = text.splitlines()
    p0, p1 = _predict_range(lines)
    return "\n".join(lines[p0:p1]) if p0 >= 0 else ""


@dataclasses.dataclass
class ExplorerSpec:
    op: str
    width: str
    expr: str
    mask: str
    title: str

    def query(self) -> str:
        q = {"op": self.op, "width": self.width, "expr": self.expr}
        if self.mask and self.mask.lower() not in ("ffffffff", "0xffffffff"):
            q["mask"] = self.mask
        return urllib.parse.urlencode(q, quote_via=urllib.parse.quote, safe="*()/")


def explorer_specs(lab_dir: Path) -> list[ExplorerSpec]:
    """`@explore ld 4 lane*32*4|ffffffff|title` lines of labs/NN_name/figures.txt."""
    f = lab_dir / "figures.txt"
    out: list[ExplorerSpec] = []
    if not f.is_file():
        return out
    for raw in f.read_text(encoding="utf-8").splitlines():
        if raw.startswith("@explore "):
            parts = [p.strip() for p in raw[len("@explore "):].split("|")]
            spec = parts[0].split(None, 2)
            if len(spec) == 3:
                out.append(ExplorerSpec(spec[0], spec[1], spec[2].replace(" ", ""),
                                        parts[1] if len(parts) > 1 else "",
                                        parts[2] if len(parts) > 2 else ""))
    return out


# ------------------------------------------------------------------------------------------------
# The access a question asks about (used by the leak test and the hardware page)
# ------------------------------------------------------------------------------------------------
def lane_eval(expr: str, **env: int) -> list[int] | None:
    """Each lane's value of a lane expression (HTML entities decoded) as a 32-bit offset, with the
    variables of `env` besides `lane` (x=...); None when it does not parse or fails in some lane.
    The evaluator is the course's one, python/banklab/lab/expr.py: C's operators, as `banklab
    explain` (no Python eval: Python's // and % floor where C truncates)."""
    try:
        e = banklab_expr.Expr(html.unescape(expr), ("lane",) + tuple(env))
        return [e.eval(lane=lane, **env) & 0xFFFFFFFF for lane in range(32)]
    except banklab_expr.ExprError:
        return None


Pattern = tuple[str, int, list[int]]   # (op, width, byte offsets of the active lanes)


def answered_questions(lab) -> list[dict]:
    """The questions of a lab (a banklab.lab.labs.Lab), each with the keys of its answer table in
    solutions/NN_name/answers.toml (`access`, `mask`, `value`) merged in; a question without an
    answer (and every question where the file does not exist: the student release) as the
    description has it. Read through python/banklab/lab (Lab.answers()), as the judge's generator reads them."""
    answers = lab.answers() or {}
    return [{**q, **answers.get(q.get("name", ""), {})} for q in lab.questions]


def access_patterns(q: dict, x: int | None = None) -> list[Pattern]:
    """The accesses a question of a lab's description asks about: its `access` (one access line
    `op width expression`, or a list of them) over the lanes of its `mask` (all 32 by default),
    with `x` (the question's unknown: a pad, ...) set to the given value. [] when the question
    names no access, or uses x and none is given."""
    acc = q.get("access")
    if not acc:
        return []
    lines = acc if isinstance(acc, list) else [acc]
    mask = int(str(q.get("mask", "0xffffffff")), 16)
    lanes = [lane for lane in range(32) if mask >> lane & 1]
    out = []
    for line in lines:
        parts = str(line).split(None, 2)
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        op, width, expr = parts
        uses_x = re.search(r"\bx\b", expr)
        if uses_x and x is None:
            continue
        offs = lane_eval(expr, x=x) if uses_x else lane_eval(expr)
        if offs is not None:
            out.append((op, int(width), [offs[lane] for lane in lanes]))
    return out


def question_x(q: dict, answers: dict[str, int]) -> int | None:
    """The value of a question's x given the lab's answers: the answer of the question `x` names,
    or, for a question that asks for the smallest x, its own answer."""
    if isinstance(q.get("x"), str):
        return answers.get(q["x"])
    if q.get("asks") == "smallest":
        return answers.get(q.get("name", ""))
    return None


def x_values(q: dict) -> list[int]:
    """Every x a question's `x_range = [first, last, step]` allows (last excluded)."""
    r = q.get("x_range")
    if isinstance(r, list) and len(r) == 3 and all(isinstance(v, int) for v in r) and r[2] > 0:
        return list(range(r[0], r[1], r[2]))
    return []


def same_pattern(a: tuple[str, int, list[int]], b: tuple[str, int, list[int]]) -> bool:
    """Same op and width, the same number of active lanes, and offsets equal up to one shift of
    every lane by a multiple of the width (which moves every lane by the same number of banks:
    the same conflicts)."""
    if a[0] != b[0] or a[1] != b[1] or len(a[2]) != len(b[2]) or not a[2]:
        return False
    d = a[2][0] - b[2][0]
    return all(x - y == d for x, y in zip(a[2], b[2])) and d % max(a[1], 4) == 0


# ------------------------------------------------------------------------------------------------
# The student release has no solutions/, so its own build of the site cannot know which accesses
# the labs ask about. It carries instead what the student site leaves out (STUDENT_HIDDEN, written
# from the course repository by `lab_work.py hidden --source COURSE > RELEASE/docs/...` when the
# release is made): measured rows (pattern ids of common/data/h200_wavefronts_named.csv) and
# figures, each with the lab that asks about it; no access line and no answer.
# ------------------------------------------------------------------------------------------------
STUDENT_HIDDEN = Path("docs") / "student_site_hidden.txt"
MEASURED = Path("common") / "data" / "h200_wavefronts_named.csv"


def measured_rows(root: Path) -> dict[str, Pattern]:
    """{pattern id: (op, width, 32 offsets)} of the measured rows with every lane active."""
    import csv  # noqa: PLC0415
    f = Path(root) / MEASURED
    if not f.is_file():
        return {}
    with f.open(newline="", encoding="utf-8") as fh:
        return {r["id"]: (r["op"], int(r["width"]), [int(x) for x in r["offsets"].split()])
                for r in csv.DictReader(fh) if r.get("mask", "ffffffff").lower() == "ffffffff"}


def hidden_lines(root: Path) -> list[str]:
    """What the student site leaves out, from the answers: `labNN row ID` and `labNN figure NAME`."""
    graded = graded_patterns(root)
    out = []
    for mid, pat in measured_rows(root).items():
        lab = next((lab for lab, _n, qp in graded if same_pattern(pat, qp)), None)
        if lab:
            out.append(f"lab{lab} row {mid}")
    for f in sources.read_all_figures(root):
        lab = graded_figure_lab(f, root)
        if lab:
            out.append(f"lab{lab} figure {f.name}")
    return out


def _hidden_patterns(root: Path, labs: set[str]) -> list[tuple[str, str, Pattern]]:
    """The patterns STUDENT_HIDDEN names for `labs` (those without answers here)."""
    f = Path(root) / STUDENT_HIDDEN
    if not labs or not f.is_file():
        return []
    rows = measured_rows(root)
    figs = {fig.name: fig for fig in sources.read_all_figures(root)}
    out = []
    for line in f.read_text(encoding="utf-8").splitlines():
        m = re.fullmatch(r"lab(\d\d) (row|figure) (\S+)", line.strip())
        if not m or m.group(1) not in labs:
            continue
        lab, kind, name = m.groups()
        if kind == "row" and name in rows:
            out.append((lab, name, rows[name]))
        elif kind == "figure" and name in figs:
            spec = figs[name].spec.split(None, 2)
            offs = lane_eval(spec[2]) if len(spec) == 3 and spec[1].isdigit() else None
            if offs:
                out.append((lab, name, (spec[0], int(spec[1]), offs)))
    return out


def graded_patterns(root: Path) -> list[tuple[str, str, Pattern]]:
    """(lab number, constant, pattern) of every access a prediction question of a lab asks
    about (its answer's `access` in solutions/NN_name/answers.toml); for a question with an
    unknown x, the pattern of every x its x_range allows (without the other answers, any of them
    could be the one asked). For a lab without answers.toml (the student release): the measured
    rows and figures STUDENT_HIDDEN names."""
    out = []
    unanswered = set()
    for lab in sources.find_labs(root):
        if lab.info.answers() is None:
            unanswered.add(lab.num)
            continue
        for q in answered_questions(lab.info) + _variant_questions(lab.info):
            xs = x_values(q) if re.search(r"\bx\b", " ".join(q.get("access", []) if isinstance(
                q.get("access"), list) else [str(q.get("access", ""))])) else [None]
            for x in xs or [None]:
                for p in access_patterns(q, x):
                    out.append((lab.num, q["name"], p))
    return out + _hidden_patterns(root, unanswered)


def _variant_questions(lab) -> list[dict]:
    """The questions of each variant k >= 1 of a lab (banklab.lab.variants), their answers merged in
    as answered_questions does: a variant's student reads the same site (issue 44 item 2)."""
    v = banklab_variants.read(lab)
    out = []
    for k in range(1, v.count if v else 0):
        answers = banklab_variants.answers(lab, k) or {}
        out += [{**q, **answers.get(q.get("name", ""), {})}
                for q in banklab_variants.description(lab, k).get("questions", [])]
    return out


@functools.lru_cache(maxsize=None)
def _graded_patterns(root: Path) -> tuple:
    return tuple(graded_patterns(root))


def graded_figure_lab(fig: sources.Figure, root: Path) -> str | None:
    """The lab one of whose questions asks about the access a figure of no lab draws (a drawing
    states its wavefronts: on the pages that show such a figure every lab's answers count), or None."""
    spec = fig.spec.split(None, 2)
    if fig.lab is not None or len(spec) != 3 or not spec[1].isdigit() \
            or (fig.mask or "ffffffff").lower() not in ("ffffffff", "0xffffffff"):
        return None
    offs = lane_eval(spec[2])
    if not offs:
        return None
    pat = (spec[0], int(spec[1]), offs)
    return next((lab for lab, _name, qp in _graded_patterns(root) if same_pattern(pat, qp)), None)


def _main(argv: list[str]) -> int:
    """`lab_work.py hidden --source COURSE`: what the student site leaves out (hidden_lines), for
    the student release's docs/student_site_hidden.txt."""
    import argparse  # noqa: PLC0415
    ap = argparse.ArgumentParser(description=_main.__doc__)
    ap.add_argument("command", choices=["hidden"])
    ap.add_argument("--source", type=Path, required=True)
    a = ap.parse_args(argv)
    root = a.source.resolve()
    if not any(lab.info.answers() is not None for lab in sources.find_labs(root)):
        print(f"{root}: no solutions/NN_name/answers.toml: run this in the course repository", file=sys.stderr)
        return 1
    print("# What the student site leaves out (written when the release is made: python3 python/banklab_run.py -m banklab.docs.lab_work hidden).")
    print("# Each line: the lab that asks about it, then a measured row of")
    print("# common/data/h200_wavefronts_named.csv or a figure. Regenerate it; do not edit.")
    for line in hidden_lines(root):
        print(line)
    return 0


if __name__ == "__main__":
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.exit(_main(sys.argv[1:]))
