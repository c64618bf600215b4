#!/usr/bin/env python3
"""No prediction's answer is shown before the student's own work (issue 44 item 2).

  test_no_answer_shown.py --judge BANKLAB_JUDGE --banklab BANKLAB --root ROOT
      (CTest: release.NoPredictionIsShownBeforeTheStudentsWork; instructor side: it reads the answers)

For every lab and every variant (the lab as written only, for a lab without variants), what a student
reads before any work of their own:
  - the untouched stub of the variant graded on both tiers, the GPU tier on the emulator
    (BANKLAB_EMULATE=1 banklab-judge grade --tier all --variant K: no GPU needed; a GPU test the
    emulator does not judge, a timing test or one it reports "not judged (emulator: ...)", gives
    no message of the stub's): every verdict's message (its hints, its summary lines, the traced
    test's lines, each "Worst instance" and its totals) and every `banklab explain` command it
    prints, run, with what it prints;
  - the variant's handout as its release has it (banklab.release.per_student.readme_with_numbers,
    what instructor/make-release --variant K writes), its `banklab explain` commands, run, and its
    explorer links (<!-- explore: ... -->);
  - the lab's figures (labs/NN_name/figures.txt: figures and @explore lines), drawn by the model,
    and the site's shared figures and pages (docs/figures.txt, docs/pages/*.md: their figures,
    explorer links and `banklab explain` commands), which every student sees;
  - the variant's stub (its comments), its `banklab explain` commands;
  - every hint of the variant's description (each question's, each at_minimum test's, those the stub
    fails and those it passes alike: a later edit shows them), its `banklab explain` commands.

An at_minimum test's `asked` (the variant's: lab.toml [variants] asked for variants >= 1) names the
questions its message leaves the instruction's counts to. Checked for each variant: every question
it names asks an access of the instruction's width and kind (a load or store of the same width, or
the same op: the model counts them alike), so the message never names a question about another
access; every question whose access is one of the untouched stub's warp instructions of that test
(its probe's table), not at its minimum, is named (the message would print its count); and the
stub's message names exactly those (`your prediction(s) ... ask(s) it`).

The handout's prose about the untouched stub ("With the stub each of them takes 32 wavefronts", "In
the stub, load wavefronts are 8,192 (8 per instruction)") states the answer of a question whose
access is one of the stub's warp instructions (its probe's table, not at its minimum) when a sentence
that names the stub has the answer before "wavefront(s)", "per instruction" or "-way".

`--table FILE` writes the result, one row a lab and variant (lab, variant, questions, GPU tests
judged on the emulator, accesses shown, answers stated, problems of `asked`), as a Markdown table
that can be quoted.

Each of those shows an access (op, width, mask, each active lane's byte offset after a TMA
swizzle mode) with the model's numbers printed for it (N wavefronts, minimum M). A question of
labs/NN_name/judge/lab.toml whose answer is a count of its own access (asks `wavefronts` or
`excess_wavefronts`: the access of solutions/NN_name/answers.toml, or variants.toml's for the
variant; the model's count through `banklab predict`) is *stated* when:
  1. a shown access is the question's access (same width and mask, the same lanes' offsets up to
     one constant added to every lane, a multiple of the width: the same pattern at another column
     or base, which the model counts the same) and the number printed for it is the answer (the
     wavefronts, or wavefronts minus the minimum for `excess_wavefronts`); or
  2. a shown access is some question's access (as in 1) and the minimum printed for it is the
     answer of another question of the same width and mask whose access is at its minimum (the
     question of the same access once conflict-free).
  3. a `smallest` question's access at its answer's x (the smallest pad that makes it conflict-free)
     is shown drawn at its minimum.
`value` questions (a bank, a byte offset) have no count of an access: the release's answer check
(banklab.release.answers) looks for their formulas.

A judge's message shows an access by its `See it: banklab explain --line "..."` command: every
"N wavefronts, minimum M" printed since the previous one is shown for it, and a traced line's
totals ("K warp instructions, N wavefronts, minimum M") per instruction too (N / K, M / K).

Nothing this prints holds an answer: a failure names the lab, the variant, the question and where
its access was shown, never the number. Before the course is checked the rule is checked on
planted cases (one that states an answer, one of another mask and one of another width that do not;
a traced message of the GPU tier that states one, and the same line worded as the judge words an
access a prediction asks about, which does not).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from banklab.docs import lab_work
from banklab.docs import sources
from banklab.lab import expr as banklab_expr
from banklab.lab import lab_tests
from banklab.lab import labs as banklab_labs
from banklab.lab import variants as banklab_variants
from banklab.release import per_student
from stub_counts import Asked, asked_problems, check_the_asked_rule, prose_problems, same_access, stub_accesses

# `banklab explain ARGS`: in a message (the CLI's path before it), in a handout (in backquotes or
# a line of its own), in a stub's comment. ARGS end at a backquote or the line's end.
EXPLAIN = re.compile(r"banklab'?\s+explain\s+([^`\n]*)")
EXPLORE = re.compile(r"<!--\s*explore:\s*(\S+)\s+(\d+)\s+(.+?)(?:\s*\|\s*([0-9A-Fa-fx]+))?\s*-->")
PRINTED = re.compile(r"(\d+) wavefronts? \(minimum (\d+)\)|(\d+) wavefronts?, minimum (\d+)")
TOTALS = re.compile(r"(\d+) warp instructions, (\d+) wavefronts, minimum (\d+)")   # a traced line's
SEE_IT = re.compile(r'explain --line "([^"]+)"')
TMA_BITS = {"none": 0, "32": 1, "64": 3, "128": 7}


@dataclass(frozen=True)
class Shown:
    """An access a student reads, with the numbers printed for it, and where."""
    where: str
    width: int
    mask: int
    offsets: tuple[int, ...]    # the active lanes', in lane order, after the TMA swizzle
    wavefronts: int
    minimum: int
    text: str                   # how it was shown (a command, a figure line): student-visible


def swizzled(acc: banklab_expr.Access, mode: str) -> tuple[int, ...]:
    bits = TMA_BITS[mode]
    return tuple(o ^ (((o >> 7) & bits) << 4) for o in acc.active())


def leaks(shown: list[Shown], asked: list[Asked]) -> list[str]:
    """Which questions each shown access states (rules 1 and 2 of the module's text)."""
    out = []
    for s in shown:
        matches = [q for q in asked if same_access(s.width, s.mask, s.offsets, q)]
        for q in matches:
            if q.asks == "smallest":   # the access at the answer's x, drawn at its minimum: the pad that works
                if s.wavefronts == s.minimum:
                    out.append(f"{q.name}: the access at its answer is shown at its minimum by {s.where}: {s.text}")
                continue
            value = s.wavefronts - s.minimum if q.asks == "excess_wavefronts" else s.wavefronts
            if value == q.answer:
                out.append(f"{q.name}: its access is shown with its {q.asks.replace('_', ' ')} by {s.where}: {s.text}")
        if matches:
            for q in asked:
                if (q.at_minimum and q.asks != "smallest" and q.width == s.width and q.mask == s.mask and q.answer == s.minimum
                        and q not in matches):
                    out.append(f"{q.name} (an access at its minimum): the minimum printed by {s.where} for "
                               f"{matches[0].name}'s access is its answer: {s.text}")
    return out


class Model:
    """The course's one model, the built `banklab`: its counts (predict) and its drawings (explain)."""

    def __init__(self, banklab: str):
        self.banklab = banklab
        self.cache: dict[tuple, tuple[int, int]] = {}

    def counts(self, lines: list[tuple[str, str]]) -> list[tuple[int, int]]:
        """(wavefronts, minimum) of each (access line 'op width mask off0 ... off31', TMA mode)."""
        todo = sorted({x for x in lines if x not in self.cache})
        for mode in sorted({m for _, m in todo}):
            batch = [line for line, m in todo if m == mode]
            r = subprocess.run([self.banklab, "predict", "--tma-swizzle", mode, "-"], input="\n".join(batch) + "\n",
                               capture_output=True, text=True, timeout=120)
            rows = r.stdout.splitlines()
            if r.returncode or len(rows) != len(batch):
                raise SystemExit(f"FAIL: banklab predict: {r.stderr.strip()[:500]}")
            for line, row in zip(batch, rows):
                self.cache[(line, mode)] = (int(row.split()[0]), int(re.search(r"\bmin=(\d+)", row).group(1)))
        return [self.cache[x] for x in lines]

    def explain(self, args: list[str]) -> str | None:
        """What `banklab explain ARGS` prints (None: it refuses them)."""
        if "--color" not in args:
            args = args + ["--color", "never"]
        r = subprocess.run([self.banklab, "explain", *args], capture_output=True, text=True, timeout=120)
        return r.stdout if r.returncode == 0 else None


def line_of(acc: banklab_expr.Access) -> str:
    return f"{acc.op} {acc.width} {acc.mask:08x} " + " ".join(map(str, acc.offsets))


def explain_access(args: list[str]) -> tuple[banklab_expr.Access, str] | None:
    """The access `banklab explain ARGS` draws, and its TMA mode (None: not an access, e.g. a
    placeholder such as '<your expression of lane>' or EXPR)."""
    opts = {"--mask": "ffffffff", "--tma-swizzle": "none", "--line": None}
    pos, i = [], 0
    while i < len(args):
        a = args[i]
        if a in ("--mask", "--tma-swizzle", "--line", "--color", "--svg", "--title"):
            if i + 1 >= len(args):
                return None
            opts[a] = args[i + 1]
            i += 2
        elif a in ("-q", "--quiet"):
            i += 1
        elif a.startswith("-"):
            return None
        else:
            pos.append(a)
            i += 1
    try:
        if opts["--line"] is not None:
            f = opts["--line"].split()
            acc = banklab_expr.Access(banklab_expr.parse_op(f[0]), int(f[1]), int(f[2], 16), tuple(int(x) for x in f[3:]))
            if len(acc.offsets) != 32:
                return None
        else:
            if len(pos) == 1:
                pos = pos[0].split(None, 2)
            if len(pos) != 3:
                return None
            acc = banklab_expr.parse_access(" ".join(pos), opts["--mask"])
        if opts["--tma-swizzle"] not in TMA_BITS:
            return None
        return acc, opts["--tma-swizzle"]
    except (banklab_expr.ExprError, ValueError, IndexError):
        return None


def commands_shown(where: str, text: str, model: Model) -> list[Shown]:
    """Each `banklab explain` command of `text` that draws an access, run: what it prints for it."""
    out = []
    for m in EXPLAIN.finditer(text):
        raw = m.group(1).strip().rstrip(".,;:)")
        try:
            args = shlex.split(raw)
        except ValueError:
            continue
        got = explain_access(args)
        if got is None:
            continue
        acc, mode = got
        printed = model.explain(args)
        nums = PRINTED.search(printed or "")
        if not nums:
            continue
        w, mn = (int(x) for x in (nums.group(1, 2) if nums.group(1) else nums.group(3, 4)))
        out.append(Shown(where, acc.width, acc.mask, swizzled(acc, mode), w, mn, f"banklab explain {raw}"))
    return out


def message_shown(where: str, message: str) -> list[Shown]:
    """A judge's message that states numbers ("takes N wavefronts, minimum M", a traced line's "K
    warp instructions, N wavefronts, minimum M. Worst instance: N wavefronts, minimum M") before the
    access of a `See it:` command: those numbers, as printed since the command before it, for that
    access (a traced line's totals also per instruction)."""
    out, start = [], 0
    for see in SEE_IT.finditer(message):
        segment, start = message[start:see.start()], see.end()
        got = explain_access(["--line", see.group(1)])
        if got is None:
            continue
        acc, mode = got
        nums = [tuple(int(x) for x in (m.group(1, 2) if m.group(1) else m.group(3, 4))) for m in PRINTED.finditer(segment)]
        for m in TOTALS.finditer(segment):
            k, w, mn = (int(x) for x in m.groups())
            if k and w % k == 0 and mn % k == 0:
                nums.append((w // k, mn // k))
        # (how it was shown, without the numbers: this test's output holds no answer)
        out += [Shown(where + " (its text)", acc.width, acc.mask, swizzled(acc, mode), w, mn,
                      "its 'N wavefronts, minimum M' beside its See it command") for w, mn in dict.fromkeys(nums)]
    return out


def drawn(where: str, specs: list[tuple[str, str, str]], model: Model) -> list[Shown]:
    """Figures and explorer links ((op width expression, mask, how it is written)), as the model draws them."""
    accs = []
    for spec, mask, text in specs:
        try:
            f = spec.split()
            if len(f) >= 35 and re.fullmatch(r"[0-9a-fA-F]{1,8}", f[2]):   # a whole access line
                acc = banklab_expr.Access(banklab_expr.parse_op(f[0]), int(f[1]), int(f[2], 16), tuple(map(int, f[3:])))
            else:
                acc = banklab_expr.parse_access(spec, mask or "ffffffff")
        except (banklab_expr.ExprError, ValueError, IndexError):
            continue
        accs.append((acc, text))
    counts = model.counts([(line_of(a), "none") for a, _ in accs])
    return [Shown(where, a.width, a.mask, tuple(a.active()), w, mn, text) for (a, text), (w, mn) in zip(accs, counts)]


def figure_specs(path: Path) -> list[tuple[str, str, str]]:
    out = []
    if not path.is_file():
        return out
    for raw in path.read_text().splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        parts = [p.strip() for p in (raw[len("@explore "):] if raw.startswith("@explore ") else raw).split("|")]
        spec, mask = (parts[0], parts[1] if len(parts) > 1 else "") if raw.startswith("@explore ") else \
            (parts[1] if len(parts) > 1 else "", parts[2] if len(parts) > 2 else "")
        out.append((spec, mask, raw))
    return out


def questions(lab: banklab_labs.Lab, k: int, model: Model) -> list[Asked]:
    """The variant's questions that ask a count of their own access (or the smallest x that makes it
    conflict-free), with their answers (the model's)."""
    d = banklab_variants.description(lab, k)
    ans = banklab_variants.answers(lab, k) or {}
    qs = {q["name"]: q for q in d.get("questions", [])}

    def acc_of(name: str, x: int | None) -> banklab_expr.Access:
        a = ans[name]
        env = {} if x is None else {"x": x}
        return banklab_expr.parse_access(a["access"], a.get("mask", "0xffffffff"), **env)

    smallest: dict[str, int] = {}
    for name, q in qs.items():
        if q["asks"] == "smallest" and name in ans:
            first, last, step = q["x_range"]
            xs = list(range(first, last + 1, step))
            valid = []
            for x in xs:
                try:
                    valid.append((x, acc_of(name, x)))
                except banklab_expr.ExprError:
                    continue   # not a valid access at this x (an offset the width does not divide)
            counts = model.counts([(line_of(acc), "none") for _, acc in valid])
            smallest[name] = next((x for (x, _), (w, mn) in zip(valid, counts) if w == mn), -1)
    out = []
    for name, x in smallest.items():
        if x >= 0:
            acc = acc_of(name, x)
            out.append(Asked(name, "smallest", acc.op, acc.width, acc.mask, tuple(acc.active()), x, False))
    for name, q in qs.items():
        if q["asks"] not in ("wavefronts", "excess_wavefronts") or name not in ans:
            continue
        x = None
        if "x_range" in q:
            x = smallest.get(q.get("x", ""), q["x_range"][0])
            if x < 0:
                x = q["x_range"][0]
        acc = acc_of(name, x)
        (w, mn), = model.counts([(line_of(acc), "none")])
        answer = w - mn if q["asks"] == "excess_wavefronts" else w
        out.append(Asked(name, q["asks"], acc.op, acc.width, acc.mask, tuple(acc.active()), answer,
                         q["asks"] == "wavefronts" and w == mn))
    return out


def grade(judge: str, lab: banklab_labs.Lab, k: int | None, text: str, work: Path) -> tuple[list[dict], str]:
    """The verdicts of `text` graded on both tiers, the GPU tier on the emulator (BANKLAB_EMULATE=1:
    the judge's twin runs its GPU tests without a GPU), and its probe's records (answers.txt)."""
    work.mkdir(parents=True)
    src = work / "kernel.cu"
    src.write_text(text)
    out = work / "grade.json"
    cmd = [judge, "grade", "--lab", lab.number, "--source", str(src), "--work", str(work / "w"), "--json", str(out),
           "--tier", "all"] + ([] if k is None else ["--variant", str(k)])
    env = dict(os.environ, BANKLAB_EMULATE="1")
    env.pop("BANKLAB_JUDGE_ONE_TEST_PER_PROCESS", None)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    if not out.is_file():
        raise SystemExit(f"FAIL: lab {lab.number}: banklab-judge grade wrote no grade ({r.returncode}):\n"
                         f"{r.stdout[-2000:]}{r.stderr[-2000:]}")
    data = json.loads(out.read_text())
    probe = work / "w" / "answers.txt"
    return [v for v in data.get("verdicts", []) if isinstance(v, dict)], probe.read_text() if probe.is_file() else ""


def judged_on_the_emulator(verdicts: list[dict]) -> int:
    """GPU tests the emulator judged (passed or failed; a timing test and one it reports "not judged
    (emulator: ...)" are skipped)."""
    return sum(1 for v in verdicts if v.get("tier") == "gpu" and v.get("emulated") is True
               and v.get("status") in ("passed", "failed"))


def shown_to(lab: banklab_labs.Lab, k: int, has_variants: bool, stub: str, verdicts: list[dict], root: Path,
             model: Model) -> list[Shown]:
    """Everything a student of variant k reads before their own work, as accesses with their numbers."""
    shown: list[Shown] = []
    for v in verdicts:
        msg = str(v.get("message", ""))
        where = f"the stub's message {v.get('test')}"
        shown += message_shown(where, msg) + commands_shown(where, msg, model)
    readme = lab.handout.read_text()
    if has_variants:
        readme = per_student.readme_with_numbers(readme, lab, k)
    shown += commands_shown(f"the handout labs/{lab.folder}/README.md", readme, model)
    shown += drawn(f"an explorer link of labs/{lab.folder}/README.md",
                   [(f"{m.group(1)} {m.group(2)} {m.group(3)}", m.group(4) or "", m.group(0)) for m in EXPLORE.finditer(readme)],
                   model)
    shown += drawn(f"labs/{lab.folder}/figures.txt", figure_specs(lab.dir / "figures.txt"), model)
    shown += commands_shown(f"the stub labs/{lab.folder}/kernel.cu", stub, model)
    for where, hint in hints(banklab_variants.description(lab, k)):
        shown += commands_shown(f"the hint of {where}", hint, model)
    return shown


def hints(d: dict) -> list[tuple[str, str]]:
    """Every hint of a description: each question's and each at_minimum test's, with its name."""
    out = [(q["name"], q["hint"]) for q in d.get("questions", []) if q.get("hint")]
    return out + [(f"Layout.{test}", am["hint"]) for test, _, am in lab_tests.at_minimum_tests(d) if am.get("hint")]


def site_shown(root: Path, model: Model) -> list[Shown]:
    """What the site shows every student: its shared figures (docs/figures.txt, but those the
    student site leaves out, a drawing of an access a lab asks about: lab_work.graded_figure_lab)
    and its pages' explorer links and `banklab explain` commands (docs/pages/*.md)."""
    left_out = {f.name for f in sources.read_all_figures(root) if f.lab is None and lab_work.graded_figure_lab(f, root)}
    shown = drawn("docs/figures.txt", [s for s in figure_specs(root / "docs" / "figures.txt")
                                       if s[2].split("|")[0].strip() not in left_out], model)
    for page in sorted((root / "docs" / "pages").glob("*.md")):
        text = page.read_text()
        where = f"the site's page docs/pages/{page.name}"
        shown += commands_shown(where, text, model)
        shown += drawn(f"an explorer link of {where}", [(f"{m.group(1)} {m.group(2)} {m.group(3)}", m.group(4) or "",
                                                        m.group(0)) for m in EXPLORE.finditer(text)], model)
    return shown


def check_the_rule() -> list[str]:
    """Planted cases: the rule catches an answer stated for the question's own access (at another
    column), its minimum and a pad drawn conflict-free, and passes the same access over half the
    lanes and at another width."""
    col = tuple(range(0, 4096, 128))
    swz = tuple(128 * i + 4 * (5 ^ i) for i in range(32))
    asked = [Asked("kPlanted", "wavefronts", "ld", 4, 0xFFFFFFFF, tuple(o + 20 for o in col), 32, False),
             Asked("kPlantedAtMinimum", "wavefronts", "ld", 4, 0xFFFFFFFF, swz, 1, True),
             Asked("kPlantedPad", "smallest", "ld", 4, 0xFFFFFFFF, tuple(132 * i for i in range(32)), 1, False)]
    stated = leaks([Shown("a planted message", 4, 0xFFFFFFFF, col, 32, 1, "planted"),
                    Shown("a planted pad", 4, 0xFFFFFFFF, tuple(132 * i + 8 for i in range(32)), 1, 1, "planted")], asked)
    fails = []
    if {f.split(":")[0].split(" ")[0] for f in stated} != {"kPlanted", "kPlantedAtMinimum", "kPlantedPad"}:
        fails.append(f"the rule misses a planted statement of an answer, its minimum or a pad that works: {stated}")
    fails += check_the_asked_rule(asked)
    said = "Per tile the kernel runs 32 loads. With the stub each of them takes 32 wavefronts: fix it."
    if not prose_problems("a planted handout", said, asked[:1]) or \
            prose_problems("a planted handout", said.replace("the stub", "your layout"), asked[:1]) or \
            prose_problems("a planted handout", "The stub runs 32 loads a tile.", asked[:1]):
        fails.append("the prose rule misses a stub's count stated in a sentence, or flags one that states none")
    for s in (Shown("half the lanes", 4, 0x0000FFFF, col[:16], 16, 1, "planted"),
              Shown("another width", 8, 0xFFFFFFFF, tuple(2 * o for o in col), 32, 2, "planted")):
        if leaks([s], asked):
            fails.append(f"the rule flags an access no question asks ({s.where})")
    return fails + check_the_gpu_messages(asked, col)


def check_the_gpu_messages(asked: list[Asked], col: tuple[int, ...]) -> list[str]:
    """Planted traced messages of the GPU tier (trace_check.cpp's words): a line that prints the
    figures of a question's access, in its worst instance or only in its totals, states the answer
    (and the minimum); the same line as the judge words an access a prediction asks about, and a line
    of an access no question asks (another width) with its figures, state none."""
    head = "lab99::k (96 x 256): traced 8 shared-memory warp instructions on 1 source line(s), 256 wavefronts in all.\n"
    banks = "  lanes 0-31: bank 0 must serve 32 different words: word 0 (lane 0), word 32 (lane 1) ...\n"

    def see(width, offs):
        return f'    See it: /b/tools/banklab explain --line "ld {width} ffffffff {" ".join(map(str, offs))}"\n'
    worst = "Worst instance: 32 wavefronts, minimum 1 (31 extra); grouping: warp.\n"
    cases = {
        "a traced line's worst instance": (head + "  kernel.cu:43 (k): 8 warp instructions, 256 wavefronts, minimum 8. "
                                           + worst + banks + see(4, col), {"kPlanted", "kPlantedAtMinimum"}),
        "a traced line's totals": (head + "  kernel.cu:43 (k): 8 warp instructions, 256 wavefronts, minimum 8.\n"
                                   + see(4, col), {"kPlanted", "kPlantedAtMinimum"}),
        "the line worded for a prediction that asks it": (
            head + "  kernel.cu:43 (k): 8 warp instructions; the worst takes more wavefronts than its minimum; how many, "
            "and the minimum, are for you to work out (your prediction kPlanted asks it). Where its lanes collide:\n"
            + banks + "    Check yourself: write the byte address of lane's element as an expression of lane, then run\n"
            "    /b/tools/banklab explain ld 4 '<your expression of lane>'\n", set()),
        "a line of an access no question asks": (head + "  kernel.cu:50 (k): 8 warp instructions, 256 wavefronts, "
                                                 "minimum 16. " + worst.replace("minimum 1 ", "minimum 2 ") + banks
                                                 + see(8, tuple(2 * o for o in col)), set()),
    }
    fails = []
    for what, (message, expected) in cases.items():
        got = {f.split(":")[0].split(" ")[0] for f in leaks(message_shown("a planted GPU message", message), asked)}
        if got != expected:
            fails.append(f"the rule over a GPU message ({what}) finds {sorted(got) or 'nothing'} stated, "
                         f"not {sorted(expected) or 'nothing'}")
    return fails


def write_table(path: Path, rows: list[tuple[str, int, int, int, int, int, int]]) -> None:
    """The result as a Markdown table (lab, variant, questions, GPU tests judged on the emulator,
    accesses shown, answers stated, problems of `asked`)."""
    lines = ["| lab | variant | questions of a count | GPU tests judged (emulated) | accesses shown | answers found stated "
             "| problems of `asked` |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {n} | {k} | {q} | {g} | {s} | {f} | {w} |" for n, k, q, g, s, f, w in rows]
    lines.append(f"\n{len(rows)} lab variants, {sum(r[2] for r in rows)} questions of a count, {sum(r[3] for r in rows)} "
                 f"GPU tests judged on the emulator; answers found stated: {sum(r[5] for r in rows)}; problems of "
                 f"`asked`: {sum(r[6] for r in rows)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--banklab", required=True)
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--lab", action="append", help="only these labs (default: all)")
    ap.add_argument("--table", type=Path, help="write the result here, a Markdown table")
    a = ap.parse_args()
    root = a.root.resolve()
    model = Model(a.banklab)
    fails = check_the_rule()
    labs = banklab_labs.find_labs(root)
    jobs = []
    for n, lab in sorted(labs.items()):
        if a.lab and n not in a.lab:
            continue
        v = banklab_variants.read(lab)
        for k in range(v.count if v else 1):
            jobs.append((lab, k, v is not None))
    with tempfile.TemporaryDirectory(prefix="banklab_shown_") as tmp:
        def one(job):
            lab, k, has_variants = job
            stub = banklab_variants.stub(lab, k)
            verdicts, probe = grade(a.judge, lab, k if has_variants else None, stub, Path(tmp) / f"{lab.number}-{k}")
            return job, stub, verdicts, probe
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            graded = list(pool.map(one, jobs))
    checked, rows = 0, []
    site = site_shown(root, model)
    for (lab, k, has_variants), stub, verdicts, probe in graded:
        asked = questions(lab, k, model)
        shown = shown_to(lab, k, has_variants, stub, verdicts, root, model) + site
        found = list(dict.fromkeys(leaks(shown, asked)))
        wrong = asked_problems(banklab_variants.description(lab, k), asked, probe, verdicts, model)
        readme = lab.handout.read_text()
        found += prose_problems(f"the handout labs/{lab.folder}/README.md",
                                per_student.readme_with_numbers(readme, lab, k) if has_variants else readme,
                                stub_accesses(probe, model, asked))
        checked += len(asked)
        gpu = judged_on_the_emulator(verdicts)
        rows.append((lab.number, k, len(asked), gpu, len(shown), len(found), len(wrong)))
        status = "ok  " if not found and not wrong else "FAIL"
        print(f"{status} lab {lab.number} variant {k}: {len(asked)} questions of a count, {gpu} GPU tests judged on "
              f"the emulator, {len(shown)} accesses shown, {len(found)} answers stated, {len(wrong)} problems of `asked`")
        fails += [f"lab {lab.number} variant {k}: {f}" for f in found + wrong]
    if a.table:
        write_table(a.table, rows)
    if checked < 10:
        fails.append(f"only {checked} questions checked: the collector is broken")
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
