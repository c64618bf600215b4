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
"""
from __future__ import annotations

import dataclasses
import html
import re
import urllib.parse
from pathlib import Path

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
def lane_eval(expr: str) -> list[int] | None:
    e = html.unescape(expr).replace(" ", "")
    if not re.fullmatch(r"[\dxa-fA-F+\-*/%&|^<>~()lane]+", e):
        return None
    py = re.sub(r"(?<![/])/(?![/])", "//", e)
    out = []
    for lane in range(32):
        try:
            v = eval(py, {"__builtins__": {}}, {"lane": lane})  # noqa: S307 - integer arithmetic
        except Exception:
            return None
        out.append(v & 0xFFFFFFFF)
    return out


def question_pattern(question: str) -> tuple[str, int, list[int]] | None:
    """(op, width, offsets) of a question that spells its access out: "float4 load, lane i at
    (i / 2) * 32", "lane i STORES to word i * 32", "all 32 lanes LOAD the same word", "lanes
    0-15 load word 0, lanes 16-31 load word 32", "every lane at offset 0". None otherwise."""
    q = html.unescape(question)
    op = "st" if re.search(r"\bstore|\bSTORE", q) else "ld"
    width = 16 if "float4" in q else 8 if ("float2" in q or "double" in q) else 1 if "char" in q else 4
    m = re.search(r"\bstride S = (\d+)\b", q)
    if m:  # lab 01: "lane i reads word i * S"
        return ("ld", 4, [lane * int(m.group(1)) * 4 & 0xFFFFFFFF for lane in range(32)])
    m = re.search(r"lane i (?:at|reads at) ([^,;]+?)(?: \(|[.;]|$)", q)
    scale = 1
    if not m:
        m = re.search(r"lane i (?:loads|reads|STORES to|stores to|writes) word ([^,;]+?)(?: \(|[.;]|$)", q)
        scale = 4
    if m:
        offs = lane_eval(re.sub(r"\bi\b", "lane", m.group(1)))
        return (op, width, [o * scale for o in offs]) if offs else None
    if re.search(r"every lane at (?:offset|address) 0|all 32 lanes (?:LOAD|STORE|load|store)\w* (?:to )?the same word", q):
        return (op, width, [0] * 32)
    m = re.search(r"lanes 0-15 load word (\d+), lanes 16-31 load word (\d+)", q)
    if m:
        return (op, width, [int(m.group(1)) * 4] * 16 + [int(m.group(2)) * 4] * 16)
    return None


def same_pattern(a: tuple[str, int, list[int]], b: tuple[str, int, list[int]]) -> bool:
    """Same op and width, and offsets equal up to one shift of every lane by a multiple of the
    width (which moves every lane by the same number of banks: the same conflicts)."""
    if a[0] != b[0] or a[1] != b[1]:
        return False
    d = a[2][0] - b[2][0]
    return all(x - y == d for x, y in zip(a[2], b[2])) and d % max(a[1], 4) == 0


def graded_patterns(root: Path) -> list[tuple[str, str, tuple[str, int, list[int]]]]:
    """(lab number, constant, pattern) of every prediction question of labs/NN_name/kernel.cu
    whose access the question spells out ("that same load": the question before it)."""
    out = []
    base = root / "labs"
    for lab in sorted(base.iterdir()) if base.is_dir() else []:
        k = lab / "kernel.cu"
        m = re.match(r"^(\d\d)_", lab.name)
        if not (m and k.is_file()):
            continue
        prev = None
        for q in questions(k.read_text(encoding="utf-8")):
            qp = question_pattern(q.question)
            if qp is None and re.search(r"\bthat same (?:load|store|access)\b", q.question):
                qp = prev
            if qp:
                out.append((m.group(1), q.name, qp))
            prev = qp
    return out
