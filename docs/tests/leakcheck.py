#!/usr/bin/env python3
"""The leak test: the default course site must not give a graded answer.

  leakcheck.py site --html DIR --source S --answers ANSWERS [--banklab EXE]
        every course page of the built site: no leak (exit 1 and a list when there is one)
  leakcheck.py tree --tree RELEASE --source S --answers ANSWERS
        every text file of a student release (README, handouts, workflows, code, the labs'
        descriptions labs/NN_name/judge/lab.toml, which hold no answer since the answers moved to
        solutions/NN_name/answers.toml, and the site's HTML if it was built there): no leak
  leakcheck.py old  --pages DIR --source S --answers ANSWERS --expect FILE [--banklab EXE]
        the first-edition pages (docs/tests/leak_fixtures/old_site/): every leak the issue
        lists (FILE, one `page | rule | key` a line) must be reported, so the checker is proven
        to fail on them

ANSWERS is the output of the program docs/scripts/gen_answers.py generates and nvcc compiles at
build time from solutions/NN_name/kernel.cu: the value of every `predict::` constant, and the
offsets of every access function whose code differs from the stub's. Nothing is typed by hand.

What is checked: the text of the course pages (the pages written in Markdown: front page, labs,
hardware, banklab command, performance, the model's API page; not the API reference generated
from common/include, which documents the library's helpers), split into units: a table row (each
cell prefixed with its column heading), a list item, a sentence, a line of a code block, a
figure (its title and description: what the drawing states). The "Your work" section of a lab
page is the student's own kernel.cu, copied verbatim, and is not checked.

The rules (a leak is reported with its page, rule, the unit and what it gives away):

expression   The key expressions of a solution: the code lines where the solution's access
             functions and constants differ from the stub's. A unit leaks when it contains
             (a) the solution's expression itself (spaces, casts and `banklab::` ignored), or
             (b) an operator the solution adds to the stub's expression, between the same two
             operands, also abbreviated to their first letter (the solution's `col ^ (row % 32)`
             gives `c ^ r`), or (c) a template argument list the solution adds, its named
             constants evaluated (`Swizzle<3, 4, 3>`, or `Swizzle<B, 4, S>` with B = S = 3),
             or (d) a stub line that uses a constant the solution changes,
             evaluated with the solution's value: array extents (`tile[TILE_DIM][TILE_DIM +
             kPad]` gives `[32][33]`) and calls (`padded_index(row, col, TILE_DIM, kPad)` gives
             `padded_index(_, _, 32, 1)`).
pattern      A drawn or commanded access (a figure, a bank-explorer link, and on a lab page a
             `banklab explain ... "expr"` command of the handout; not the usage text of
             `banklab --help` on the command's page) whose 32 offsets are the offsets of a solution's access function
             for some fixed other argument (up to the element size: x1, x2, x4, x8, x16), and
             differ from the stub's: a drawing of the solved pattern.
value        A unit that states the answer to a prediction. Small numbers are everywhere ("1",
             "32"), so the rule is keyed on the question's context, three ways:
             (a) the exact access: a measured-table row or sentence naming a pattern id of
             common/data/h200_wavefronts_named.csv, or a figure, whose access (op, width, 32
             offsets, up to a shift by a multiple of the width) is the access the question asks
             about (its `access` in solutions/NN_name/answers.toml: `ld 16 (lane / 2) * 32`), and that
             states the value next to the question's unit (wavefronts, conflicts: "8 wavefronts", "wavefronts: 8");
             (b) the question's own words: the unit contains the value as a count (standing
             alone, not inside an expression such as `lane*32*4` or `a[32][32]`, not a count of
             something else such as "4 bytes" or "32 lanes") AND every distinctive word of the
             question's constant name (kSwizzledColumnReadWavefronts: swizzled, column, read;
             synonyms: read/load, chunk/float4, saved/less, ...; a number belongs to the word
             before it: "stride 4"), where "swizzled"/"padded" must not be negated; a value of
             three or more digits that is not a power of two (4224) is specific enough on its
             own next to the question's unit;
             (c) before and after: "from 32 wavefronts to 4" where 32 answers kUnX... and 4 the
             matching kX... question, with the X question's other words in the unit.
             Measured-table rows count as units, each cell prefixed with its column heading.
             The access of a question is its answer's `access` line(s) in
             solutions/NN_name/answers.toml (with its `mask`; the `x` of the description
             labs/NN_name/judge/lab.toml set from the answers), not its wording.

Which labs count where: every lab's answers on a page that is not a lab page; on lab M's page
those of lab M and later (earlier labs are done by then: their answers may be used as facts).
"""
from __future__ import annotations

import argparse
import html
import html.parser
import json
import re
import sys
import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[2] / "python" / "banklab_run.py"))  # banklab's path, set in one place

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True
from banklab.docs import lab_work  # noqa: E402
from banklab.docs import sources  # noqa: E402
from banklab.lab import labs as banklab_labs  # noqa: E402

# ------------------------------------------------------------------------------------------------
# Page text -> units
# ------------------------------------------------------------------------------------------------
SKIP_CLASSES = {"banklab-work", "toc", "banklab-labnav"}


class Units(html.parser.HTMLParser):
    """Text units of one page: table rows, list items, paragraphs (split into sentences later),
    code lines, figure labels, links' targets (explorer links)."""

    BLOCK = {"p", "li", "tr", "h1", "h2", "h3", "h4", "pre", "dt", "dd", "blockquote"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.units: list[tuple[str, str]] = []   # (kind, text)
        self.stack: list[tuple[str, bool]] = []  # (tag, skipping)
        self.buf: list[str] = []
        self.kind = "text"
        self.header: list[str] = []
        self.row: list[str] = []
        self.cell: list[str] | None = None
        self.in_thead_row = False

    @property
    def skipping(self) -> bool:
        return any(s for _, s in self.stack)

    def flush(self, kind: str | None = None) -> None:
        text = " ".join("".join(self.buf).split())
        if text:
            self.units.append((kind or self.kind, text))
        self.buf = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        skip = bool(classes & SKIP_CLASSES) or tag in ("script", "style")
        if tag in ("br", "img", "input", "link", "meta", "hr", "area", "col", "source"):
            if tag == "img" and a.get("alt") and not self.skipping:
                self.units.append(("figure", a["alt"]))
            return
        self.stack.append((tag, skip))
        if self.skipping:
            return
        if tag == "object" and a.get("aria-label"):
            self.units.append(("figure", a["aria-label"] + " [" + (a.get("data") or "") + "]"))
        if tag == "a" and a.get("href", "").startswith("explorer.html?"):
            self.units.append(("link", a["href"]))
        if tag == "div" and "line" in classes:
            self.flush()
            self.kind = "code"
        if tag in self.BLOCK:
            self.flush()
            self.kind = "code" if tag == "pre" else "text"
        if tag == "tr":
            self.row = []
            self.in_thead_row = False
        if tag in ("td", "th"):
            self.cell = []
            if tag == "th":
                self.in_thead_row = True

    def handle_endtag(self, tag):
        # pop to the matching tag (HTML from Doxygen is well formed enough)
        while self.stack:
            t, s = self.stack.pop()
            if t == tag:
                break
        if self.skipping:
            return
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None
            return
        if tag == "tr":
            if self.in_thead_row:
                self.header = self.row
            else:
                cells = [f"{h}: {c}" if h else c for h, c in zip(self.header + [""] * len(self.row), self.row)]
                self.units.append(("row", " | ".join(cells)))
            self.buf = []
            return
        if tag == "div" and self.kind == "code":
            self.flush("code")
            self.kind = "text"
        elif tag in self.BLOCK:
            self.flush()

    def handle_data(self, data):
        if self.skipping:
            return
        if self.cell is not None:
            self.cell.append(data)
        else:
            self.buf.append(data)


def page_units(text: str) -> list[tuple[str, str]]:
    # only the page body: from the title to the footer
    i = text.find('<div class="header">')
    text = text[i:] if i >= 0 else text
    p = Units()
    p.feed(text)
    p.flush()
    out = []
    for kind, t in p.units:
        if kind == "text":
            for s in re.split(r"(?<=[.!?:;])\s+(?=[A-Z(`\"'])", t):
                out.append(("text", s))
        else:
            out.append((kind, t))
    return out


COURSE_PAGE_RE = re.compile(r"^(index|labs|hardware|banklab_cli|gpu_perf|reference|explorer|search_course)\.html$")


def course_pages(html_dir: Path, root: Path) -> list[Path]:
    """The course pages of the built site: the fixed ones and every lab's page (its page id)."""
    ids = {lab.page_id for lab in sources.find_labs(root)}
    return sorted(p for p in html_dir.glob("*.html") if COURSE_PAGE_RE.match(p.name) or p.stem in ids)


# ------------------------------------------------------------------------------------------------
# Answers
# ------------------------------------------------------------------------------------------------
def read_answers(path: Path) -> tuple[dict, list]:
    predicts: dict[str, dict[str, int]] = {}
    accesses: list[dict] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        d = json.loads(line)
        if d["kind"] == "predict":
            predicts.setdefault(d["lab"], {})[d["name"]] = d["value"]
        else:
            accesses.append(d)
    return predicts, accesses


# ------------------------------------------------------------------------------------------------
# Rule "expression": key expressions from the diff of stub and solution
# ------------------------------------------------------------------------------------------------
def strip_comments(code: str) -> str:
    return re.sub(r"//[^\n]*", "", code)


def norm(s: str) -> str:
    s = html.unescape(s)
    s = re.sub(r"static_cast<[^<>]*>", "", s)
    s = s.replace("banklab::", "").replace("std::", "")
    return re.sub(r"\s+", "", s)


def int_constants(text: str) -> dict[str, int]:
    """`constexpr ... NAME = <integer expression>;` of a kernel.cu, evaluated in order."""
    env: dict[str, int] = {"kWarpSize": 32, "kNumBanks": 32}
    for m in re.finditer(r"constexpr\s+[\w:]+\s+(\w+)\s*=\s*([^;]+);", strip_comments(text)):
        v = eval_int(m.group(2), env)
        if v is not None:
            env[m.group(1)] = v
    return env


def eval_int(expr: str, env: dict[str, int]) -> int | None:
    e = re.sub(r"static_cast<[^<>]*>", "", expr)
    e = re.sub(r"banklab::|std::", "", e)
    e = re.sub(r"(\d+)[uUlL]+\b", r"\1", e)
    if not re.fullmatch(r"[\w\s+\-*/%()^&|<>~]+", e):
        return None
    names = set(re.findall(r"[A-Za-z_]\w*", e))
    if not names <= set(env):
        return None
    e = re.sub(r"(?<![/])/(?![/])", "//", e)
    try:
        v = eval(e, {"__builtins__": {}}, dict(env))  # noqa: S307 - integer arithmetic on known names
    except Exception:
        return None
    return v if isinstance(v, int) else None


OPS = ["<<", ">>", "^", "%", "+", "-", "*", "/", "&", "|"]
TOKEN_RE = re.compile(r"<<|>>|[A-Za-z_]\w*|\d+|[^\sA-Za-z_\d]")


def operand(tokens: list[str], i: int, step: int) -> str | None:
    j = i + step
    while 0 <= j < len(tokens) and tokens[j] in ("(", ")"):
        j += step
    if 0 <= j < len(tokens) and re.match(r"[A-Za-z_]\w*$|\d+$", tokens[j]):
        return tokens[j]
    return None


def alt(name: str, env: dict[str, int]) -> str:
    opts = {re.escape(name)}
    if name in env:
        opts.add(str(env[name]))
    elif re.match(r"[a-z]", name) and len(name) > 1:
        opts.add(re.escape(name[0]))
    return "(?:" + "|".join(sorted(opts, key=len, reverse=True)) + ")"


class KeyExpr:
    def __init__(self, lab: str, what: str, regex: re.Pattern, show: str):
        self.lab, self.what, self.regex, self.show = lab, what, regex, show


def key_expressions(root: Path) -> list[KeyExpr]:
    keys: list[KeyExpr] = []
    for lab in sources.find_labs(root, "solutions"):
        sol_f, stub_f = lab.path / "kernel.cu", root / "labs" / lab.folder / "kernel.cu"
        if not (sol_f.is_file() and stub_f.is_file()):
            continue
        sol, stub = sol_f.read_text(encoding="utf-8"), stub_f.read_text(encoding="utf-8")
        env = int_constants(sol)
        stub_env = int_constants(stub)
        sol_lines = lab_work_code_outside_predict(sol)
        stub_lines = set(norm(x) for x in lab_work_code_outside_predict(stub))
        for line in sol_lines:
            if norm(line) in stub_lines or not norm(line):
                continue
            m = re.search(r"return\s+(.+?);|constexpr\s+[\w:]+\s+\w+\s*=\s*(.+?);", line)
            expr = (m.group(1) or m.group(2)) if m else line.strip().rstrip(";{}")
            e = norm(expr)
            stub_expr = stub_counterpart(stub, line)
            # (a) the expression itself
            if len(e) >= 6 and not re.fullmatch(r"[\w]+", e):
                keys.append(KeyExpr(lab.num, "expression", re.compile(re.escape(e)), expr.strip()))
            # (b) operators the solution adds, with their operands
            toks = TOKEN_RE.findall(expr)
            stoks = TOKEN_RE.findall(stub_expr or "")
            for op in OPS:
                if toks.count(op) <= stoks.count(op):
                    continue
                for i, t in enumerate(toks):
                    if t != op:
                        continue
                    left, right = operand(toks, i, -1), operand(toks, i, +1)
                    if not left or not right or left.isdigit() and right.isdigit():
                        continue
                    if left.isdigit() or right.isdigit():
                        continue  # `x * 4`: too common to be a key on its own
                    pat = rf"(?<![\w.]){alt(left, env)}\)*\s*{re.escape(op)}\s*\(*{alt(right, env)}(?![\w(])"
                    pats = [pat]
                    if op in ("^", "+", "*", "&", "|"):
                        pats.append(rf"(?<![\w.]){alt(right, env)}\)*\s*{re.escape(op)}\s*\(*{alt(left, env)}(?![\w(])")
                    keys.append(KeyExpr(lab.num, "expression", re.compile("|".join(pats)),
                                        f"{left} {op} {right} (from `{expr.strip()}`)"))
            # (c) template arguments the solution adds, named constants evaluated (Swizzle<B, 4, S>
            # with the solution's B = 3, S = 3 is the key Swizzle<3, 4, 3>)
            for tm in re.finditer(r"(\w+)<([\w\s,]+)>", expr):
                vals = [eval_int(a, env) for a in tm.group(2).split(",")]
                if tm.group(0).replace(" ", "") not in norm(stub) and all(v is not None for v in vals):
                    args = r"\s*,\s*".join(str(v) for v in vals)
                    shown = f"{tm.group(1)}<{', '.join(map(str, vals))}>"
                    keys.append(KeyExpr(lab.num, "expression", re.compile(rf"{tm.group(1)}\s*<\s*{args}\s*>"),
                                        shown if shown.replace(" ", "") == tm.group(0).replace(" ", "")
                                        else f"{shown} (from `{tm.group(0)}`)"))
        # (d) constants the solution changes, substituted into the stub's uses
        changed = {n for n, v in env.items() if n in stub_env and stub_env[n] != v}
        for n in changed:
            for line in stub.splitlines():
                if not re.search(rf"\b{n}\b", line) or re.search(rf"constexpr\s+[\w:]+\s+{n}\s*=", line):
                    continue
                for am in re.finditer(r"\w+((?:\[[^\[\]]+\])+)", line):
                    dims = re.findall(r"\[([^\[\]]+)\]", am.group(1))
                    if not any(re.search(rf"\b{n}\b", d) for d in dims):
                        continue
                    vals = [eval_int(d, env) for d in dims]
                    if all(v is not None for v in vals):
                        rx = r"\s*".join(rf"\[\s*{v}\s*\]" for v in vals)
                        keys.append(KeyExpr(lab.num, "expression", re.compile(rx),
                                            "".join(f"[{v}]" for v in vals) + f" (from `{am.group(0)}` with {n} = {env[n]})"))
                for cm in re.finditer(r"(\w+)\(([^()]*\b" + n + r"\b[^()]*)\)", line):
                    args = [x.strip() for x in cm.group(2).split(",")]
                    parts = []
                    for x in args:
                        v = eval_int(x, env)
                        parts.append(rf"\s*{v}\s*" if v is not None else r"[^,()]+")
                    keys.append(KeyExpr(lab.num, "expression", re.compile(rf"{cm.group(1)}\(" + ",".join(parts) + r"\)"),
                                        f"{cm.group(1)}(...) with {n} = {env[n]} (from `{cm.group(0)}`)"))
    return keys


def lab_work_code_outside_predict(text: str) -> list[str]:
    lines = text.splitlines()
    p0, p1 = lab_work._predict_range(lines)
    out = []
    for i, line in enumerate(lines):
        if p0 <= i < p1:
            continue
        c = strip_comments(line).rstrip()
        if c.strip():
            out.append(c)
    return out


def stub_counterpart(stub: str, sol_line: str) -> str | None:
    """The stub's line for the same declaration (same constant name), or the stub's return
    expression of the same function."""
    m = re.search(r"constexpr\s+[\w:]+\s+(\w+)\s*=", sol_line)
    if m:
        sm = re.search(rf"constexpr\s+[\w:]+\s+{m.group(1)}\s*=\s*([^;]+);", stub)
        return sm.group(1) if sm else None
    rets = re.findall(r"return\s+([^;]+);", strip_comments(stub))
    return " ".join(rets)


# ------------------------------------------------------------------------------------------------
# Rule "pattern": drawn / commanded accesses equal to a solution's access pattern
# ------------------------------------------------------------------------------------------------
def patterns_in(kind: str, text: str, figures: dict[str, sources.Figure],
                commands: bool = True) -> list[tuple[str, list[int]]]:
    found = []
    if kind == "figure":
        m = re.search(r"\[([\w.]+)\.svg\]$", text)
        if m and m.group(1) in figures:
            spec = figures[m.group(1)].spec.split(None, 2)
            if len(spec) == 3:
                v = lab_work.lane_eval(spec[2])
                if v:
                    found.append((f"figure {m.group(1)}: {figures[m.group(1)].spec}", v))
    if kind == "link":
        import urllib.parse
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(text).query)
        if "expr" in q:
            v = lab_work.lane_eval(q["expr"][0])
            if v:
                found.append((f"explorer link {q['expr'][0]}", v))
    for m in re.finditer(r"banklab explain\s+(?:ld|st)\s+\d+\s+[\"']([^\"']+)[\"']",
                         html.unescape(text) if commands else ""):
        v = lab_work.lane_eval(m.group(1))
        if v:
            found.append((f"banklab explain \"{m.group(1)}\"", v))
    return found


def later_lab(page_lab: str | None, lab: str) -> bool:
    """Whether lab `lab`'s answers must not be on this page: every lab's on a page that is not a
    lab page, and on lab M's page those of lab M and later (earlier labs are done by then:
    their answers may be used as known facts)."""
    return page_lab is None or lab >= page_lab


def element_scale(function: str) -> int:
    """An access function named ..._offset returns bytes; the others an index of 4-byte floats."""
    return 1 if "offset" in function else 4


def affine(offs: list[int]) -> bool:
    d = offs[1] - offs[0]
    return all(offs[i + 1] - offs[i] == d for i in range(len(offs) - 1))


# ------------------------------------------------------------------------------------------------
# Rule "value"
# ------------------------------------------------------------------------------------------------
SYNONYMS = {
    "read": r"\bread|\bload|\bld\b", "load": r"\bload|\bread|\bld\b", "reads": r"\bread|\bload",
    "store": r"\bstor|\bwrit|\bst\b", "stores": r"\bstor|\bwrit", "chunk": r"chunk|float4|16-byte", "float4": r"float4|16-byte|chunk",
    "float2": r"float2|8-byte", "column": r"column|col\b", "row": r"\brow", "padded": r"padd?|\[33\]",
    "unpadded": r"unpadded|no pad|without pad|\[32\]\[32\]", "swizzled": r"swizzl",
    "unswizzled": r"unswizzled|no swizzle|without (?:a )?swizzle|not swizzled", "saved": r"sav|less|fewer|smaller",
    "bytes": r"byte", "contiguous": r"contiguous|consecutive|stride ?1\b|stride1", "same": r"same|one address|address 0|offset 0",
    "address": r"address|offset", "double": r"double|8-byte", "char": r"char|1-byte", "stride": r"stride",
    "pair": r"pair|i\^1", "shared": r"shar|i\^1", "ncu": r"ncu|nsight|counter", "conflicts": r"conflict",
    "groups": r"group", "words": r"word", "bank": r"bank", "banks": r"bank", "word": r"word", "pad": r"pad",
    "padding": r"padd?", "saves": r"sav|less|fewer|smaller",
}
STOP = {"k", "wavefronts", "wavefront", "of", "the", "a", "per", "one", "is", "all", "lanes", "lane", "to", "in",
        "on", "at", "and", "predicted", "tile", "first", "second", "over", "by", "with"}
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 8: "eight", 16: "sixteen", 32: "thirty-two"}
UNIT_WORDS = {"wavefronts": r"wavefronts?|wavefront", "bytes": r"bytes?|B\b", "bank": r"bank", "word": r"word",
              "pad": r"pad|double", "conflicts": r"conflicts?"}


def name_words(name: str) -> list[str]:
    n = re.sub(r"^k", "", name)
    parts = re.findall(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|\d+|[a-z]+", n)
    words = []
    i = 0
    while i < len(parts):
        p = parts[i].lower()
        if p in ("float", "double") and i + 1 < len(parts) and parts[i + 1].isdigit():
            p += parts[i + 1]
            i += 1
        words.append(p)
        i += 1
    merged: list[str] = []
    for w in words:  # "stride", "4" -> "stride 4": the number belongs to the word before it
        if w.isdigit() and merged and not merged[-1][-1].isdigit():
            merged[-1] = f"{merged[-1]} {w}"
        else:
            merged.append(w)
    return [w for w in merged if w not in STOP]


def word_rx(w: str) -> str:
    if " " in w:
        word, num = w.rsplit(" ", 1)
        return rf"(?:{word_rx(word)})\w*\s*(?:S\s*)?=?\s*{num}(?![\d])"
    if w in SYNONYMS:
        return SYNONYMS[w]
    if w.isdigit():
        return rf"(?<![\w.]){w}(?![\w])"
    return re.escape(w[:-1] if w.endswith("s") and len(w) > 4 else w)


def unit_kind(name: str) -> str:
    """What the question counts: kBank.../kWord... ask for a bank or a word index, ...Bytes for
    bytes, ...Conflicts for the counter, ...Pad for a pad, kStoredColumn... for a column; all the
    others for wavefronts."""
    m = re.match(r"k(?:First|Second)?(Bank|Word)", name)
    if m:
        return m.group(1).lower()
    for k, unit in (("Wavefronts", "wavefronts"), ("Bytes", "bytes"), ("Conflicts", "conflicts"),
                    ("Pad", "pad"), ("Column", "column")):
        if k in name:
            return unit
    return "wavefronts"


def states_value(text: str, v: int, unit: str) -> bool:
    """v as a count: standing alone, not inside an expression or an array extent."""
    num = rf"{v}" + (rf"|{NUMBER_WORDS[v]}" if v in NUMBER_WORDS else "")
    for m in re.finditer(rf"(?<![\w.*/+\-\[^<>%&|])(?:{num})(?![\w*/\]^<>%&|]|\.\d|\s*[*/+^]\s*\w|,\d)", text, re.I):
        before, after = text[max(0, m.start() - 40):m.start()], text[m.end():m.end() + 40]
        other = re.match(r"\s*(bytes?|B\b|lanes?|warps?|threads?|words?|rows?|%|x\b|GB|ms|bits?)", after, re.I)
        if other and not (unit and re.fullmatch(UNIT_WORDS.get(unit, unit), other.group(1), re.I)):
            continue  # "4 bytes", "32 lanes": a count of something else than the question's
        if unit == "bank" and re.search(r"bank", text, re.I):
            return True  # "a float4 covers four banks", "bank 7": the word anywhere in the unit
        if unit and unit in UNIT_WORDS:
            if re.search(rf"^\s*(?:\S+\s+){{0,2}}?(?:{UNIT_WORDS[unit]})", after, re.I) or \
               re.search(rf"(?:{UNIT_WORDS[unit]})\S*\s*(?:=|:|is|of|from \d+ to|to)?\s*$", before, re.I):
                return True
            continue
        return True
    return False


def negated(text: str, word: str) -> bool:
    return bool(re.search(rf"\b(?:un|no |not |without ){word}", text, re.I))


# ------------------------------------------------------------------------------------------------
# Rule "value", keyed on the exact pattern: a measured row or a figure of the question's access
# ------------------------------------------------------------------------------------------------
def measured_patterns(root: Path) -> dict[str, tuple[str, int, list[int], int]]:
    out = {}
    csv = root / "common" / "data" / "h200_wavefronts_named.csv"
    if csv.is_file():
        import csv as csvmod
        with csv.open(encoding="utf-8") as f:
            for row in csvmod.DictReader(f):
                if row.get("mask", "").lower() != "ffffffff":
                    continue
                out[row["id"]] = (row["op"], int(row["width"]), [int(x) for x in row["offsets"].split()],
                                  int(row["wavefronts"]))
    return out


# ------------------------------------------------------------------------------------------------
def check_pages(pages: list[Path], root: Path, answers: Path) -> list[str]:
    predicts, accesses = read_answers(answers)
    keys = key_expressions(root)
    figures = {f.name: f for f in sources.read_all_figures(root)}
    # The access each question asks about: its answer's `access` line(s)
    # (solutions/NN_name/answers.toml), with its x (a pad, ...) set from the answers.
    qpatterns: dict[tuple[str, str], list[tuple[str, int, list[int]]]] = {}
    for lab in sources.find_labs(root):
        for q in lab_work.answered_questions(lab.info):
            x = lab_work.question_x(q, predicts.get(lab.num, {}))
            qpatterns[(lab.num, q["name"])] = lab_work.access_patterns(q, x)
    measured = measured_patterns(root)
    leaks: list[str] = []
    for page in pages:
        units = page_units(page.read_text(encoding="utf-8"))
        page_lab = banklab_labs.lab_number(page.name) if page.name.startswith("lab") else None
        for kind, text in units:
            # pattern-keyed values: a measured row or a figure of the exact access a question asks about
            shown: list[tuple[str, tuple[str, int, list[int]]]] = []
            for mid in set(re.findall(r"\bn_\w+", text)):
                if mid in measured:
                    op, w, offs, _ = measured[mid]
                    shown.append((mid, (op, w, offs)))
            if kind == "figure":
                fm = re.search(r"\[([\w.]+)\.svg\]$", text)
                f = figures.get(fm.group(1)) if fm else None
                if f and not f.mask or f and f.mask.lower() in ("ffffffff", "0xffffffff"):
                    spec = f.spec.split(None, 2)
                    offs = lab_work.lane_eval(spec[2]) if len(spec) == 3 else None
                    if offs:
                        shown.append((f"figure {f.name}", (spec[0], int(spec[1]), offs)))
            for what, pat in shown:
                for (lab, name), qps in qpatterns.items():
                    if not later_lab(page_lab, lab) or not any(lab_work.same_pattern(pat, qp) for qp in qps):
                        continue
                    v = predicts.get(lab, {}).get(name)
                    if v is not None and states_value(html.unescape(text), v, unit_kind(name)):
                        leaks.append(f"{page.stem} | value | lab {lab}: {name} = {v} ({what} is the question's "
                                     f"access) | {text[:160]}")
            # expression
            nt = norm(text)
            for k in keys:
                if not later_lab(page_lab, k.lab):
                    continue
                if k.regex.search(nt) or k.regex.search(html.unescape(text)):
                    leaks.append(f"{page.stem} | expression | lab {k.lab}: {k.show} | {text[:160]}")
            # pattern
            for what, offs in patterns_in(kind, text, figures, commands=page_lab is not None):
                for a in accesses:
                    if not later_lab(page_lab, a["lab"]):
                        continue
                    sol = [x * element_scale(a["name"]) for x in a["sol"]]
                    stub_all = [[x * element_scale(b["name"]) for x in b["stub"]] for b in accesses
                                if b["lab"] == a["lab"] and b["name"] == a["name"]]
                    if sol != [x * element_scale(a["name"]) for x in a["stub"]] and offs == sol \
                            and offs not in stub_all:
                        leaks.append(f"{page.stem} | pattern | lab {a['lab']}: {what} = the solution's "
                                     f"{a['name']}() with the {a['fixed']} argument {a['k']} | {text[:160]}")
                        break
            # value
            names_measured = kind == "row" and any(mid in measured for mid in re.findall(r"\bn_\w+", text))
            low_all = html.unescape(text)
            for lab, vals in predicts.items():
                if not later_lab(page_lab, lab):
                    continue
                # "from 32 wavefronts to 4": the un-X question's answer, then the X question's
                for name, v in vals.items():
                    um = re.match(r"k(Un|Not)(\w+)$", name)
                    other = f"k{um.group(2)[:1].upper()}{um.group(2)[1:]}" if um else ""
                    if other not in vals:
                        continue
                    words = [w for w in name_words(other) if w not in ("swizzled", "padded")]
                    if re.search(rf"from\s+{v}\b.{{0,40}}?\bto\s+{vals[other]}\b", low_all) and \
                            all(re.search(word_rx(w), low_all, re.I) for w in words):
                        leaks.append(f"{page.stem} | value | lab {lab}: {other} = {vals[other]} (from {v} "
                                     f"for {name} to {vals[other]}) | {text[:160]}")
                if names_measured:
                    continue  # a measured row: the exact-pattern rule above decides
                for name, v in vals.items():
                    if v < 0:
                        continue
                    unit = unit_kind(name)
                    words = name_words(name)
                    if not words:
                        continue
                    specific = v >= 100 and (v & (v - 1)) != 0
                    low = html.unescape(text)
                    if not states_value(low, v, unit if unit in UNIT_WORDS else ""):
                        continue
                    if specific and unit in UNIT_WORDS and states_value(low, v, unit):
                        if True:
                            leaks.append(f"{page.stem} | value | lab {lab}: {name} = {v} | {text[:160]}")
                        continue
                    ok = True
                    for w in words:
                        if not re.search(word_rx(w), low, re.I):
                            ok = False
                            break
                        if w in ("swizzled", "padded") and negated(low, w[:-2] if w.endswith("ed") else w):
                            ok = False
                            break
                    if ok:
                        leaks.append(f"{page.stem} | value | lab {lab}: {name} = {v} | {text[:160]}")
    # one line per (page, rule, key, unit)
    return sorted(set(leaks))


#: What the tree check reads: every text file of a student release (README, handouts, workflow
#: files, the site's HTML when it was built, code). A lab's own files count as that lab's page.
TREE_SKIP_DIRS = {".git", "node_modules", "build"}
#: What a student reads as text: prose, pages, workflow and data files. Code (.cu, .cpp, .py, ...)
#: is the grader's, the model's and the student's own stub, as the site's rules also leave the
#: stub ("Your work") and the model's API reference unchecked; the site's HTML is checked whole.
TREE_TEXT = {".md", ".txt", ".html", ".htm", ".json", ".yml", ".yaml", ".toml", ".csv", ".svg", ""}


def text_as_html(text: str) -> str:
    """Markdown or plain text as the HTML the site would make of it, as far as units go: a
    Markdown table becomes a table (so that each cell is read with its column heading, as on the
    site), any other line a paragraph."""
    out, table = [], []
    cells = lambda l: [html.escape(c.strip()) for c in l.strip().strip("|").split("|")]

    def flush():
        if table:
            rows = [r for r in table if not re.fullmatch(r"\|?[\s:|-]+\|?", r.strip())]
            if rows:
                out.append("<table><tr>" + "".join(f"<th>{c}</th>" for c in cells(rows[0])) + "</tr>"
                           + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in cells(r)) + "</tr>" for r in rows[1:])
                           + "</table>\n")
            table.clear()
    for line in text.splitlines():
        if line.lstrip().startswith("|"):
            table.append(line)
            continue
        flush()
        if line.strip():
            out.append(f"<p>{html.escape(line)}</p>\n")
    flush()
    return "".join(out)


def tree_pages(tree: Path, tmp: Path) -> list[Path]:
    """Every text file under `tree` as a page the checker reads: HTML files as they are, any other
    text file one unit per line (escaped). A file under labs/NN_name/ is named like lab NN's page
    (so that lab NN's and later labs' answers count there, as on the site)."""
    pages = []
    for f in sorted(tree.rglob("*")):
        rel = f.relative_to(tree)
        if not f.is_file() or f.is_symlink() or TREE_SKIP_DIRS & set(rel.parts) or f.suffix not in TREE_TEXT:
            continue
        if f.name == banklab_labs.DESCRIPTION:
            # A lab's description is the grader's data, as its code is: the questions' premises,
            # which the stub's own comments state too. The release check (banklab.release.answers) checks it
            # for answers (it holds none: they are in solutions/NN_name/answers.toml).
            continue
        try:
            text = f.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "\0" in text:
            continue
        n = banklab_labs.lab_number(rel)   # labs/05_swizzle/..., docs/pages/lab05_...: lab 05's
        flat = str(rel).replace("/", "__")
        name = (f"lab{n}_{flat}" if n else f"file__{flat}") + ".html"
        if f.suffix in (".html", ".htm"):
            body = text
        else:
            body = '<div class="header"></div>' + text_as_html(text)
        (tmp / name).write_text(body, encoding="utf-8")
        pages.append(tmp / name)
    return pages


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["site", "old", "tree"])
    ap.add_argument("--tree", type=Path, help="tree: a student release (every text file is checked)")
    ap.add_argument("--html", type=Path)
    ap.add_argument("--pages", type=Path)
    ap.add_argument("--source", type=Path, required=True)
    ap.add_argument("--answers", type=Path, required=True)
    ap.add_argument("--expect", type=Path)
    ap.add_argument("--missing", default="")
    a = ap.parse_args()
    if a.missing:
        print(f"SKIP: the course site cannot be built here: {a.missing}")
        return 77
    if not a.answers.is_file():
        print(f"FAIL: {a.answers} does not exist: the docs build makes it (gen_answers.py + nvcc)")
        return 1
    root = a.source.resolve()
    if a.command == "tree":
        import tempfile
        with tempfile.TemporaryDirectory(prefix="leakcheck-tree-") as tmp:
            pages = tree_pages(a.tree, Path(tmp))
            leaks = check_pages(pages, root, a.answers)
        for l in leaks:
            print("LEAK: " + l)
        print(f"{len(pages)} files of {a.tree} checked against the answers of "
              f"{len(read_answers(a.answers)[0])} labs: {len(leaks)} leak(s)")
        return 1 if leaks else 0
    if a.command == "site":
        pages = course_pages(a.html, root)
        if not pages:
            print(f"FAIL: no course page in {a.html}")
            return 1
        leaks = check_pages(pages, root, a.answers)
        for l in leaks:
            print("LEAK: " + l)
        print(f"{len(pages)} course pages checked against the answers of "
              f"{len(read_answers(a.answers)[0])} labs: {len(leaks)} leak(s)")
        return 1 if leaks else 0
    pages = sorted(a.pages.glob("*.html"))
    leaks = check_pages(pages, root, a.answers)
    for l in leaks:
        print("reported: " + l)
    missing = 0
    for raw in a.expect.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        page, rule, key = [x.strip() for x in raw.split("|", 2)]
        if not any(l.startswith(f"{page} | {rule} |") and key in l for l in leaks):
            print(f"FAIL: the checker does not report the listed leak: {raw}")
            missing += 1
    print(f"{len(pages)} first-edition pages: {len(leaks)} leak(s) reported, "
          f"{missing} listed leak(s) missed")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
