"""What the untouched stub's own instructions answer (issue 44 item 2; instructor side): the
count questions whose access is one of the stub's warp instructions, and the checks that no
at_minimum message and no sentence of the handout about the stub states their answers. Used by
test_no_answer_shown.py (its text says the rules); `model` is anything with its Model's
counts([(access line, TMA mode)]) -> [(wavefronts, minimum)].
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from banklab.lab import lab_tests


@dataclass(frozen=True)
class Asked:
    name: str
    asks: str
    op: str
    width: int
    mask: int
    offsets: tuple[int, ...]
    answer: int
    at_minimum: bool


def same_access(width: int, mask: int, offsets: tuple[int, ...], q: Asked) -> bool:
    """The same lanes' pattern: equal width and mask, offsets apart by one constant (a multiple of the width)."""
    if width != q.width or mask != q.mask or len(offsets) != len(q.offsets) or not offsets:
        return False
    d = offsets[0] - q.offsets[0]
    return d % width == 0 and all(a - b == d for a, b in zip(offsets, q.offsets))


def probe_accesses(probe: str) -> dict[str, tuple[str, int, list[int], list[tuple[int, ...]]]]:
    """The warp instructions of a probe's records (answers.txt: `access NAME OP WIDTH N D1..DN`, then
    one line of every warp instruction's 32 lanes' offsets, the dims in row-major order)."""
    out = {}
    lines = probe.splitlines()
    for i, line in enumerate(lines):
        f = line.split()
        if len(f) >= 5 and f[0] == "access" and i + 1 < len(lines):
            dims = [int(x) for x in f[5:5 + int(f[4])]]
            vals = [int(x) for x in lines[i + 1].split()]
            out[f[1]] = (f[2], int(f[3]), dims, [tuple(vals[j:j + 32]) for j in range(0, len(vals), 32)])
    return out


def counted_alike(op: str, width: int, q: Asked) -> bool:
    """The model counts q's access as it counts an instruction of this op and width: the same width,
    and the same op or a load and a store (a store's lanes conflict as a load's)."""
    return width == q.width and (op == q.op or {op, q.op} <= {"ld", "st"})


def said_asked(message: str) -> list[str] | None:
    """The predictions an at_minimum message leaves its counts to (None: it names none)."""
    m = re.search(r"\(your predictions? (.+?) asks? it\)", message)
    return m.group(1).split(" and ") if m else None


def stub_accesses(probe: str, model, asked: list[Asked]) -> list[Asked]:
    """The count questions whose access is one of the stub's warp instructions, not at its minimum
    (the stub's own cost is their answer)."""
    found = []
    for op, width, _dims, rows in probe_accesses(probe).values():
        counts = model.counts([(f"{op} {width} ffffffff " + " ".join(map(str, o)), "none") for o in rows])
        for offs, (w, mn) in zip(rows, counts):
            found += [q for q in asked if w != mn and q.asks != "smallest" and q not in found
                      and counted_alike(op, width, q) and same_access(width, 0xFFFFFFFF, tuple(offs), q)]
    return found


def prose_problems(where: str, text: str, stubs: list[Asked]) -> list[str]:
    """Sentences of `text` that name the stub and state a stub question's answer as a count."""
    out = []
    for sentence in re.split(r"(?<=[.;:])\s+", re.sub(r"\s+", " ", text)):
        if not re.search(r"\bstub\b", sentence, re.I):
            continue
        for q in stubs:
            if re.search(rf"(?<![\d,.]){q.answer}(?:\)?\s*wavefronts?\b|\s+per instruction\b|-way\b)", sentence):
                out.append(f"{q.name}: {where} states the stub's count in a sentence about the stub "
                           f"(\"{sentence[:60]}...\")")
    return out


def asked_problems(d: dict, asked: list[Asked], probe: str, verdicts: list[dict], model) -> list[str]:
    """What is wrong with the variant's at_minimum `asked` (the module's text): a question of another
    access named, a question of a stub's instruction left out, a message naming others."""
    out, by_name = [], {q.name: q for q in asked}
    warps = probe_accesses(probe)
    said = {str(v.get("test", "")).split(".", 1)[-1]: said_asked(str(v.get("message", "")))
            for v in verdicts if v.get("status") == "failed" and str(v.get("test", "")).split(".", 1)[0].endswith("Layout")}
    for test, t, am in lab_tests.at_minimum_tests(d):
        names = list(am.get("asked", []))
        for name in names:
            q = by_name.get(name)
            if q is None:
                out.append(f"{test}: `asked` names {name}, which asks no count of an access")
            elif not counted_alike(t["op"], t["width"], q):
                out.append(f"{test}: `asked` names {name}, a question about a {q.op} of {q.width} bytes, but the test's "
                           f"instruction {t['name']} is a {t['op']} of {t['width']} bytes: the message names a question "
                           "about another access")
        if t["name"] in warps:
            op, width, dims, rows = warps[t["name"]]
            only = am.get("only", {})
            keep = []
            for flat, offs in enumerate(rows):
                idx, rest = [], flat
                for dim in reversed(dims):
                    idx.append(rest % dim)
                    rest //= dim
                idx.reverse()
                if all(idx[t["index"].index(n)] == v for n, v in only.items() if n in t.get("index", [])):
                    keep.append(offs)
            counts = model.counts([(f"{op} {width} ffffffff " + " ".join(map(str, o)), "none") for o in keep])
            for offs, (w, mn) in zip(keep, counts):
                if w == mn:
                    continue
                for q in asked:
                    if q.asks != "smallest" and q.name not in names and counted_alike(op, width, q) and \
                            same_access(width, 0xFFFFFFFF, tuple(offs), q):
                        out.append(f"{test}: the stub's {t['name']} is {q.name}'s access, which `asked` leaves out: "
                                   "its message would print the count")
        if test in said and (said[test] or []) != names:
            out.append(f"{test}: the stub's message names {' and '.join(said[test] or []) or 'no prediction'} where the "
                       f"variant's `asked` is {' and '.join(names) or 'none'}")
    return list(dict.fromkeys(out))


class Planted:
    """The model's counts of the planted accesses (as test_no_answer_shown.Model counts): a column
    of 4-byte words (its words 32 apart) 32 wavefronts, anything else 1."""

    def counts(self, lines):
        return [(32, 1) if [int(x) for x in line.split()[3:]] == list(range(0, 4096, 128)) else (1, 1)
                for line, _ in lines]


def check_the_asked_rule(asked: list[Asked]) -> list[str]:
    """Planted cases of `asked`: a question of another width named, a stub's instruction that is a
    question's access left out, a message naming another question; the right `asked` passes."""
    col = " ".join(map(str, range(0, 4096, 128)))
    probe = f"begin read\naccess read ld 4 1 2\n {col} " + " ".join(map(str, range(0, 128, 4))) + "\n"
    wide = Asked("kWide", "wavefronts", "ld", 8, 0xFFFFFFFF, tuple(range(0, 256, 8)), 1, True)

    def d(names):
        am = {"test": "ReadIsConflictFree", **({"asked": names} if names else {})}
        return {"instructions": [{"name": "read", "op": "ld", "width": 4, "index": ["i"], "at_minimum": am}]}

    def msg(names):
        said = f" (your prediction {' and '.join(names)} asks it)" if names else ", takes 32 wavefronts (minimum 1)"
        return [{"test": "Lab99Layout.ReadIsConflictFree", "status": "failed", "message": "The worst" + said}]
    qs = asked + [wide]
    cases = {"another width named": (d(["kPlanted", "kWide"]), msg(["kPlanted", "kWide"])),
             "the stub's access left out": (d([]), msg([])),
             "the message names another": (d(["kPlanted"]), msg(["kWide"]))}
    fails = [f"the asked rule misses a planted case: {what}" for what, (dd, m) in cases.items()
             if not asked_problems(dd, qs, probe, m, Planted())]
    right = asked_problems(d(["kPlanted"]), qs, probe, msg(["kPlanted"]), Planted())
    if right:
        fails.append(f"the asked rule flags a right `asked`: {right}")
    return fails
