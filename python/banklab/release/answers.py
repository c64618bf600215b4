"""No answer in what students get: the line-by-line check of a student release against the
course's solutions (issue 22, item 4).

  instructor/release/check_no_answers.py RELEASE [--course ROOT]
        exit 0: no hit; 1: hits (one line each); 2: the check could not read what it needs

  instructor/release/check_no_answers.py RELEASE --grade-stubs JUDGE
        ... and what grading each untouched stub of the release prints (the same rules)

RELEASE is a folder written by instructor/make-release; ROOT (default: this course) holds solutions/.
Every file of the release that reads as UTF-8 text is checked, line by line. Three rules:

solutions  The release holds no solutions/ folder and no answers file (any file named
           answers.toml).

line       No distinctive line of a solution. The lines of solutions/NN_name/kernel.cu are split
           into their code and their `//` comment, and each part is compared as a sequence of C
           tokens (identifiers, numbers, punctuation; whitespace and quotes ignored). A part is
           distinctive when
             - the stub labs/NN_name/kernel.cu does not hold it (its tokens are not a run of the
               stub's tokens anywhere: "LAB TODO: wavefronts of ..." in the stub makes the
               solution's "wavefronts of ..." common), and
             - code: it has at least MIN_TOKENS tokens and MIN_CHARS characters besides spaces,
               and is not made of braces, a preprocessor line or a generic CUDA idiom (GENERIC
               below: `__syncthreads();`, a `for` header, `return x;` ...);
             - a comment: it has at least MIN_COMMENT_TOKENS tokens (shorter notes such as
               "every lane in one bank" or "four quarter-warps" are the course's common words).
           A release line leaks when a distinctive part's tokens are a contiguous run of its tokens.

answer     No answer of solutions/NN_name/answers.toml:
             - access  the access whose wavefronts the question asks for is the question's own
                       premise (the handouts draw the stub's accesses and show the `banklab
                       explain` command for them), so it is an answer only (i) keyed to its
                       question: the question's constant and the access expression on one line
                       (as the description held them before), or (ii) when it holds the layout
                       the lab asks to design, an XOR swizzle (`^`): then the expression is
                       checked anywhere (`(lane * 32 + (7 ^ lane)) * 4`, say);
             - value   the formula (such as `32 * 34 * 4`) as a run of tokens, standing alone: not an
                       operand of a bigger expression (no binary operator next to either end:
                       `6 & 3 ^ 7` does not hold `3 ^ 7`; as tokens, `132 * 34 * 4` does not
                       hold `32 * 34 * 4` either);
             - number  the value the model grades against (the solution's own constant
                       `kName = ...`, evaluated with python/banklab/lab/expr.py). Small numbers
                       are everywhere, so a number counts only in its question's context: the
                       question's constant assigned (`kName = <expression of that value>`,
                       `kName: ...`), in any file.

A per-student release (make-release --student, --variant, --roster: its stubs name a variant) is
checked against that variant's answers too: access lines, formulas and graded numbers (the model's
counts: the built `banklab` or $BANKLAB_CLI; without it the check cannot run: exit 2).

Messages name the release's file and line and the solution line or the question whose answer it
holds, never the text or the value itself (the output may land in logs students read).
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path


HERE = Path(__file__).resolve().parent
COURSE = HERE.parents[2]   # python/banklab/release/ -> the course repository

MIN_TOKENS = 4          # a distinctive part has at least this many tokens ...
MIN_CHARS = 12          # ... and this many characters besides spaces
MIN_COMMENT_TOKENS = 7  # a comment part is distinctive from this many tokens on
# Parts too generic to tell a solution (matched on the part, spaces removed).
GENERIC = [re.compile(p) for p in (
    r"[{}();,]*",                                   # braces and friends
    r"#.*",                                         # preprocessor lines
    r"__syncthreads\(\);",
    r"for\(int\w+=\w+;\w+<[\w.:]+;(\+\+\w+|\w+\+\+|\w+\+=[\w.:]+)\)\{?",   # a plain loop header
    r"return[\w.:]*;",                              # return a name or a number
    r"(\w+::)*\w+\[\w+\]=\w+\[\w+\];",              # copy one element
    r"constexprint\w+=-?\d+;",                      # defined below: numbers are the answer rule's
)]
TOKEN_RE = re.compile(r"[A-Za-z_]\w*|0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?[fFuUlL]*|::|<<|>>|->|\S")
QUOTES = {'"', "'", "`"}
SEP = "\x00"   # joins tokens into one string, so that a run of tokens is a substring


def tokens(text: str) -> tuple[str, ...]:
    return tuple(t for t in TOKEN_RE.findall(text) if t not in QUOTES)


BINARY_OPS = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"}


def glued(tok: str) -> bool:
    """A neighbour that makes a formula an operand of something bigger: a binary operator
    (`6 & 3 ^ 7` is `(6 & 3) ^ 7`). Tokens already keep `132 * 34 * 4` from holding `32 * 34 * 4`."""
    return tok in BINARY_OPS


def contains(hay: tuple[str, ...], needle: tuple[str, ...], alone: bool = False) -> bool:
    """`needle` is a contiguous run of `hay` (alone: with no word token glued to either end)."""
    n = len(needle)
    if not n or n > len(hay):
        return False
    first = needle[0]
    for i in range(len(hay) - n + 1):
        if hay[i] == first and hay[i:i + n] == needle:
            if alone and ((i > 0 and glued(hay[i - 1])) or (i + n < len(hay) and glued(hay[i + n]))):
                continue
            return True
    return False


def split_comment(line: str) -> tuple[str, str]:
    """A C++ line's code and its // comment (a `//` inside a string literal is code)."""
    in_str = None
    for i, c in enumerate(line):
        if in_str:
            if c == "\\":
                continue
            if c == in_str:
                in_str = None
        elif c in "\"'":
            in_str = c
        elif line.startswith("//", i):
            return line[:i], line[i + 2:]
    return line, ""


def is_generic(part: str, comment: bool) -> bool:
    squeezed = re.sub(r"\s+", "", part)
    if comment:
        return len(tokens(part)) < MIN_COMMENT_TOKENS
    return (len(squeezed) < MIN_CHARS or len(tokens(part)) < MIN_TOKENS
            or any(g.fullmatch(squeezed) for g in GENERIC))


@dataclass
class Needle:
    toks: tuple[str, ...]
    what: str            # names the source (a solution's file:line, a question), never the text
    alone: bool = False
    key: str | None = None   # only on a line that also names this question's constant

    @functools.cached_property
    def joined(self) -> str:
        return SEP + SEP.join(self.toks) + SEP


@dataclass
class Answer:
    lab: str
    name: str
    value: int | None


def lab_folders(course: Path) -> list[str]:
    from banklab.lab import labs as banklab_labs  # noqa: E402
    return [lab.folder for lab in banklab_labs.find_labs(course).values()]


def solution_needles(course: Path, folder: str) -> list[Needle]:
    stub = course / "labs" / folder / "kernel.cu"
    sol = course / "solutions" / folder / "kernel.cu"
    stub_toks = tokens(stub.read_text())
    out, seen = [], set()
    for n, line in enumerate(sol.read_text().splitlines(), 1):
        for comment, part in enumerate(split_comment(line)):
            t = tokens(part)
            if not t or t in seen or is_generic(part, bool(comment)) or contains(stub_toks, t):
                continue
            seen.add(t)
            out.append(Needle(t, f"solutions/{folder}/kernel.cu:{n}"))
    return out


def answers_needles(answers: dict, lab: str, file: str) -> tuple[list[Needle], list[str]]:
    """The needles of one answers table (the lab's, or a variant's rendered from its templates): each
    answer's access expressions (a swizzled one, with ^, keyed by nothing: it is searched alone) and
    its value formula; and the access lines that do not parse (a broken answer must not pass silently)."""
    from banklab.lab import expr as banklab_expr  # noqa: E402
    needles, problems = [], []
    for name, a in answers.items():
        if not isinstance(a, dict):
            continue
        where = f"{lab}, {name}"
        accesses = a.get("access", [])
        for line in [accesses] if isinstance(accesses, str) else accesses:
            try:
                expr = tokens(banklab_expr.split_access(line)[2])
            except Exception as e:   # noqa: BLE001
                problems.append(f"{file}: {name}: access does not parse ({type(e).__name__})")
                continue
            if len(expr) < 2:
                continue   # `lane` alone is no one's answer: every question about a warp's lanes names it
            needles.append(Needle(expr, f"{where} (its access expression)", key=None if "^" in expr else name))
        if "value" in a:
            needles.append(Needle(tokens(str(a["value"])), f"{where} (its value formula)", alone=True))
    return needles, problems


def answer_needles(course: Path, folder: str) -> tuple[list[Needle], list[Answer], list[str]]:
    """The access lines, formulas and graded numbers of a lab's answers; and what could not be read."""
    from banklab.lab import expr as banklab_expr  # noqa: E402
    from banklab.lab import labs as banklab_labs  # noqa: E402
    answers = banklab_labs.read_answers(course / "solutions" / folder / banklab_labs.ANSWERS)
    sol_text = (course / "solutions" / folder / "kernel.cu").read_text()
    needles, problems = answers_needles(answers, f"lab {folder}", f"solutions/{folder}/answers.toml")
    values = []
    for name, a in answers.items():
        if not isinstance(a, dict):
            continue
        m = re.search(r"\b%s\s*=\s*([^;]+);" % re.escape(name), sol_text)
        value = None
        if m:
            try:
                value = banklab_expr.evaluate(m.group(1))
            except Exception:   # noqa: BLE001
                problems.append(f"solutions/{folder}/kernel.cu: the constant {name} is not a plain expression")
        else:
            problems.append(f"solutions/{folder}/kernel.cu: no constant {name} (the answer the model grades)")
        values.append(Answer(folder, name, value))
    return needles, values, problems


def variant_needles(course: Path, release: Path, folder: str) -> tuple[list[Needle], list[Answer], list[str]]:
    """A per-student release (make-release --student/--variant/--roster): the access lines, formulas
    and graded numbers (the model's counts: banklab.lab.variants.model_answers, the built `banklab`)
    of the variant its stub names, checked like the lab's."""
    from banklab.lab import labs as banklab_labs  # noqa: E402
    from banklab.lab import variants as banklab_variants  # noqa: E402
    from banklab.lab.schema import DescriptionError  # noqa: E402
    stub = release / "labs" / folder / "kernel.cu"
    lab = banklab_labs.find_labs(course).get(folder[:2])
    k = banklab_variants.named_variant(stub.read_text(), folder[:2]) if stub.is_file() else None
    if lab is None or not k:
        return [], [], []
    v = banklab_variants.read(lab)
    answers_k = banklab_variants.answers(lab, k) or {}
    out, problems = answers_needles(answers_k, f"lab {folder} variant {k}", f"solutions/{folder}/variants.toml")
    try:   # the numbers the judge grades this variant against (the questions the variant changes)
        values = banklab_variants.model_answers(banklab_variants.description(lab, k), answers_k,
                                                set(v.answer_templates or {}) if v else set())
    except (DescriptionError, OSError) as e:
        return out, [], problems + [f"lab {folder} variant {k}: its graded numbers cannot be counted ({e})"]
    return out, [Answer(folder, n, val) for n, val in values.items()], problems


def release_files(release: Path):
    for f in sorted(release.rglob("*")):
        rel = f.relative_to(release)
        if not f.is_file() or rel.parts[0] in (".git", "build"):
            continue
        try:
            yield str(rel), f.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue


def stub_messages(release: Path, judge: str, work: Path) -> list[tuple[str, str]]:
    """What grading each untouched stub of the release prints (the CPU tier's messages, with the
    judge given: the release's own, or the course's, whose messages carry the graded feedback), as
    (name, text) pairs for the same rules as the release's files."""
    import json
    import subprocess
    from banklab.lab import labs as banklab_labs  # noqa: PLC0415
    out = []
    for n, lab in banklab_labs.find_labs(release).items():
        g = work / f"lab{n}"
        r = subprocess.run([judge, "grade", "--lab", n, "--source", str(lab.stub), "--work", str(g / "w"),
                            "--json", str(g / "grade.json"), "--tier", "cpu"], capture_output=True, text=True,
                           timeout=900)
        text = r.stdout
        if (g / "grade.json").is_file():
            text += "\n" + "\n".join(str(v.get("message", ""))
                                      for v in json.loads((g / "grade.json").read_text()).get("verdicts", []))
        out.append((f"(the messages of grading labs/{lab.folder}/kernel.cu, untouched)", text))
    return out


def check(release: Path, course: Path, extra: list[tuple[str, str]] = ()) -> tuple[list[str], list[str], dict]:
    """(hits, problems, counts) for `release` (and the `extra` texts: a stub's messages) against the
    solutions of `course`."""
    hits, problems = [], []
    if (release / "solutions").exists():
        hits.append("solutions/: the release holds the solutions folder (instructor/release/instructor-only.txt must list it)")
    needles: list[Needle] = []
    answers: list[Answer] = []
    n_lines = 0
    for folder in lab_folders(course):
        sol = solution_needles(course, folder)
        n_lines += len(sol)
        a_needles, vals, probs = answer_needles(course, folder)
        v_needles, v_vals, v_probs = variant_needles(course, release, folder)
        needles += sol + a_needles + v_needles
        answers += vals + v_vals
        problems += probs + v_probs
    by_first: dict[str, list[Needle]] = {}
    for nd in needles:
        by_first.setdefault(nd.toks[0], []).append(nd)
    assign: dict[str, list[Answer]] = {}   # a name's graded values: the lab's and its variant's
    for a in answers:
        if a.value is not None:
            assign.setdefault(a.name, []).append(a)
    assign_re = re.compile(r"\b(%s)\b\s*(?:=|:)\s*([^;,\n]+)" % "|".join(map(re.escape, sorted(assign)))) \
        if assign else None
    from banklab.lab import expr as banklab_expr  # noqa: E402
    n_files = 0
    for rel, text in [*release_files(release), *extra]:
        n_files += 1
        if Path(rel).name == "answers.toml":
            hits.append(f"{rel}: an answers file in the release")
        for n, line in enumerate(text.splitlines(), 1):
            lt = tokens(line)
            if not lt:
                continue
            firsts = set(lt)
            joined = SEP + SEP.join(lt) + SEP
            for first in firsts & by_first.keys():
                for nd in by_first[first]:
                    if (nd.key is None or nd.key in firsts) and nd.joined in joined and \
                            (not nd.alone or contains(lt, nd.toks, nd.alone)):
                        hits.append(f"{rel}:{n}: holds {nd.what}")
            if assign_re:
                for m in assign_re.finditer(line):
                    rhs = re.sub(r"[\"'`]|//.*|\[|\]|\|.*", "", m.group(2)).strip().rstrip(".)")
                    try:
                        v = banklab_expr.evaluate(rhs)
                    except Exception:   # noqa: BLE001 (not a number: a name, prose)
                        continue
                    for a in assign[m.group(1)]:
                        if v == a.value:
                            hits.append(f"{rel}:{n}: assigns lab {a.lab}, {a.name} its graded value")
    counts = {"files": n_files, "solution_lines": n_lines, "answers": len(answers),
              "answer_needles": len(needles) - n_lines}
    return sorted(set(hits)), problems, counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("release", type=Path)
    ap.add_argument("--course", type=Path, default=COURSE, help="the course repository (with solutions/)")
    ap.add_argument("--grade-stubs", metavar="JUDGE",
                    help="also grade each stub of the release with this banklab-judge (CPU tier) and check what it prints")
    a = ap.parse_args()
    if not (a.course / "solutions").is_dir():
        print(f"check_no_answers: {a.course} has no solutions/: run it in the course repository", file=sys.stderr)
        return 2
    if not a.release.is_dir():
        print(f"check_no_answers: no release at {a.release}: make one with instructor/make-release OUT", file=sys.stderr)
        return 2
    extra = []
    if a.grade_stubs:
        import tempfile
        with tempfile.TemporaryDirectory(prefix="banklab_stub_messages_") as tmp:
            extra = stub_messages(a.release.resolve(), a.grade_stubs, Path(tmp))
    hits, problems, c = check(a.release.resolve(), a.course.resolve(), extra)
    if problems:
        print("check_no_answers: cannot check every answer:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 2
    print(f"check_no_answers: {c['files']} files of the release against {c['solution_lines']} distinctive "
          f"solution lines and {c['answers']} answers ({c['answer_needles']} access expressions and formulas)")
    if hits:
        print(f"{len(hits)} hit(s): the release gives answers away. Fix the course file the release copies "
              "(reformulate it, or leave it out in instructor/release/instructor-only.txt), then run "
              "instructor/make-release again:\n  " + "\n  ".join(hits))
        return 1
    print("check_no_answers: no hit")
    return 0


