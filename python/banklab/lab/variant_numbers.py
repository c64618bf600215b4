"""Variant 0's numbers left in a lab's hand-written text (issue 44 item 4): what a handout says of
the lab as written that a student of another variant reads as their own.

A lab's handout (labs/NN_name/README.md) is the same in every variant's release (only its "Your
numbers" section is rendered), while the stub is rendered per variant (banklab.lab.variants.stub).
A constant of the stub whose value the variants change (kChunkTileBytes: 4096 in variant 0, 8192
in variant 4) must not stand in the handout with variant 0's value beside its name (`kChunkTileBytes`
4096, kChunksPerRow = 8), nor as "4096-byte tile" (the number, "-byte" and a word of the
constant's name): the handout names the constant, and the student's stub gives the number.

  check(lab)   one message per line of the handout that states such a number, and per comment
               of a variant's rendered stub that states variant 0's value of a constant whose value
               is another in that variant (a comment the [variants] kernel replacements left as
               the lab's: `kChunkTileBytes = ...;  // 4096` in a stub whose tile is 8192 bytes)

Python 3 standard library only; the course's labs-check runs it for every lab with variants.
"""
from __future__ import annotations

import re

from banklab.lab import expr as banklab_expr
from banklab.lab import labs as banklab_labs
from banklab.lab import variants as banklab_variants

#: A constant of a stub: `constexpr int kName = EXPRESSION;` (or an upper-case name: TILE_DIM).
CONSTANT = re.compile(r"^[ \t]*(?:static[ \t]+)?(?:inline[ \t]+)?constexpr[ \t]+[\w:]+[ \t]+(k[A-Z]\w*|[A-Z][A-Z0-9_]+)"
                      r"[ \t]*=[ \t]*([^;\n]+);", re.M)
#: How far from a constant's name its number may stand, in characters of one sentence.
NEAR = 40


def stub_constants(text: str) -> dict[str, int]:
    """The stub's constants that the lane-expression language evaluates (integers, + - * / % << >>
    & | ^, earlier constants), by name; the rest (sizeof, casts) are left out."""
    env: dict[str, int] = {}
    for m in CONSTANT.finditer(text):
        try:
            env[m.group(1)] = banklab_expr.parse(m.group(2).strip(), tuple(env)).eval(**env)
        except (banklab_expr.ExprError, TypeError, ValueError, ZeroDivisionError):
            continue
    return env


def varying_constants(lab: banklab_labs.Lab) -> dict[str, tuple[int, int, int]]:
    """{name: (variant 0's value, another variant k, its value)} for each constant the variants change."""
    v = banklab_variants.read(lab)
    if v is None:
        return {}
    first = stub_constants(banklab_variants.stub(lab, 0))
    out: dict[str, tuple[int, int, int]] = {}
    for k in range(1, v.count):
        for name, value in stub_constants(banklab_variants.stub(lab, k)).items():
            if name in first and value != first[name] and name not in out:
                out[name] = (first[name], k, value)
    return out


def _words(name: str) -> list[str]:
    """kChunkTileBytes -> ["chunk", "tile"] (its words of 4 letters or more, "bytes" left out)."""
    parts = re.findall(r"[A-Z][a-z]+|[A-Z]+(?![a-z])", name[1:] if name.startswith("k") else name.title().replace("_", ""))
    return [p.lower() for p in parts if len(p) >= 4 and p.lower() not in ("byte", "bytes")]


def _stated(line: str, name: str, v0: int) -> re.Match | None:
    """Where `line` states `name` with the number v0 (beside its name, or as "v0-byte <a word of it>")."""
    num = rf"(?<!\w)(?<!\d\.){v0}(?!\w)(?!\.\d)"
    near = (rf"\b{name}\b[^.;\n]{{0,{NEAR}}}?{num}", rf"{num}[^.;\n]{{0,{NEAR}}}?\b{name}\b")
    byte_word = [rf"{num}-byte\s+{w}\b" for w in _words(name)]
    return next((m for p in (*near, *byte_word) if (m := re.search(p, line))), None)


def _stub_comments(lab: banklab_labs.Lab) -> list[str]:
    """Each variant k >= 1's rendered stub: a comment stating variant 0's value of a constant whose
    value in k is another. The comment's own line is read with the code before it (the constant's
    name stands there: `constexpr ... kChunkTileBytes = ...;  // 4096`)."""
    v = banklab_variants.read(lab)
    if v is None:
        return []
    first = stub_constants(banklab_variants.stub(lab, 0))
    out = []
    for k in range(1, v.count):
        text = banklab_variants.stub(lab, k)
        mine = stub_constants(text)
        differ = {n: first[n] for n in mine if n in first and mine[n] != first[n]}
        for i, line in enumerate(text.splitlines(), 1):
            if "//" not in line or line.lstrip().startswith("// banklab variant:"):
                continue
            code, comment = line.split("//", 1)
            for name, v0 in sorted(differ.items()):
                m = _stated(comment, name, v0)
                if m is None and re.search(rf"\b{name}\b", code):   # the constant's own line
                    m = re.search(rf"(?<!\w)(?<!\d\.){v0}(?!\w)(?!\.\d)", comment)
                if m:
                    out.append(f"labs/{lab.folder}/kernel.cu as variant {k}:{i}: {m.group(0)!r} states {name} = {v0}, "
                               f"variant 0's number (variant {k}'s {name} is {mine[name]}): replace the comment in "
                               f"labs/{lab.folder}/judge/lab.toml [variants] kernel with a template of the variant's numbers")
    return out


def check(lab: banklab_labs.Lab) -> list[str]:
    varying = varying_constants(lab)
    if not varying:
        return []
    out = []
    if lab.handout.is_file():
        rel = f"labs/{lab.folder}/README.md"
        for i, line in enumerate(lab.handout.read_text(encoding="utf-8").splitlines(), 1):
            for name, (v0, k, vk) in sorted(varying.items()):
                m = _stated(line, name, v0)
                if m:
                    out.append(f"{rel}:{i}: {m.group(0)!r} states {name} = {v0}, variant 0's number (variant {k}'s "
                               f"stub has {vk}): the handout is every variant's; name {name} without its value (the "
                               "student's stub gives it), or say it in the variant's description")
    return out + _stub_comments(lab)
