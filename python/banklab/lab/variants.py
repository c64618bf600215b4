"""Per-student variants of a lab (issue 35; docs/dev/VARIANTS.md): every student works out their own
numbers. What a variant changes is data: parameters in the lab's description (`[variants]` of
labs/NN_name/judge/lab.toml) and templates of the answers' access lines
(solutions/NN_name/variants.toml, instructor side); a variant's answers are counted by the model,
never written by hand.

  read(lab)                       the lab's Variants, or None when it declares none
  choose(lab, student, seed, n)   the student's variant: HMAC-SHA256(seed, "lab NN:" + id) mod n
  description(lab, k)             the description of variant k (variant 0: the lab as written)
  answers(lab, k)                 the answers of variant k (variants.toml rendered)
  stub(lab, k), solution(lab, k)  the stub and the solved kernel.cu of variant k
  named_variant(text, lab)        the variant a kernel.cu names (its `// banklab variant:` line), or None
  (the C++ of every variant's questions for the judge: banklab.lab.gen.variants_source)

    python3 python/banklab_run.py -m banklab.lab.variants --lab 01 --list
    python3 python/banklab_run.py -m banklab.lab.variants --lab 01 --student s123 --course-seed SEED
        [--write-stub F] [--write-solution F]
(`banklab variant ...` runs this module: tools/main.cpp.)
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import hmac
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from banklab.lab import expr as banklab_expr
from banklab.lab import lab_tests
from banklab.lab import labs as banklab_labs
from banklab.lab.schema import DescriptionError

#: The answers' templates of a lab's variants: solutions/NN_name/variants.toml (never in a release).
ANSWERS_FILE = "variants.toml"
#: The line a variant's kernel.cu carries: the judge reads it (grader/judge/variants.cpp, the same form).
MARKER = "// banklab variant: lab {lab} variant {k} ({params}). Keep this line: your file is graded as this variant."
MARKER_RE = re.compile(r"^//\s*banklab variant: lab (\d\d) variant (\d+)\b", re.M)
#: The course seed's environment variable (the instructor's course configuration, never the release).
SEED_ENV = "BANKLAB_COURSE_SEED"
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclasses.dataclass
class Variants:
    """A lab's variants: `params` names, one row of `values` per variant (row 0: the lab as written),
    question texts (`what`, `hint`: templates by question name), kernel.cu's replacements
    [[text of the lab, template], ...] and the answers' templates (None in the student release);
    `asked`: the questions each at_minimum test's message leaves its counts to, in variants >= 1,
    by the test's name (where the lab's own `asked` names a question a variant asks of another access)."""
    lab: banklab_labs.Lab
    params: list[str]
    values: list[list]
    what: dict[str, str]
    hint: dict[str, str]
    kernel: list[tuple[str, str]]
    answer_templates: dict[str, dict] | None
    release: int | None = None   # the variant a student's release is (make-release writes `release = K`)
    #: The solution's own replacements (variants.toml `solution_kernel`, instructor side: the text
    #: would state an answer in the stub's lab.toml), applied after `kernel`, variants >= 1.
    solution_kernel: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    asked: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.values)

    def params_of(self, k: int) -> dict[str, object]:
        self.check_index(k)
        return dict(zip(self.params, self.values[k]))

    def describe(self, k: int) -> str:
        return ", ".join(f"{p} = {v}" for p, v in self.params_of(k).items())

    def check_index(self, k: int) -> None:
        if not 0 <= k < self.count:
            raise DescriptionError(f"lab {self.lab.number} has variants 0 to {self.count - 1}, not {k}")


def _problems(v: dict, questions: set[str], where: str, tests: set[str] = frozenset()) -> list[str]:
    """What is wrong with a description's [variants] table (the schema's part for variants);
    `tests`: the lab's at_minimum tests (the keys `asked` may have)."""
    p = []
    known = {"params", "values", "what", "hint", "kernel", "release", "asked"}
    p += [f"{where}: unknown key {k!r} (params, values, what, hint, kernel, release, asked)" for k in v if k not in known]
    params, values = v.get("params"), v.get("values")
    if not isinstance(params, list) or not params or not all(isinstance(x, str) and re.fullmatch(r"[A-Za-z_]\w*", x)
                                                             for x in params):
        p.append(f"{where}: `params` must be a list of names")
        return p
    if not isinstance(values, list) or len(values) < 2 or not all(isinstance(r, list) and len(r) == len(params)
                                                                  for r in values):
        p.append(f"{where}: `values` must be a list of at least 2 rows (row 0: the lab as written), "
                 f"each one value per param ({len(params)})")
    elif len({tuple(r) for r in values}) != len(values):
        p.append(f"{where}: two rows of `values` are the same variant")
    for key in ("what", "hint"):
        t = v.get(key, {})
        if not isinstance(t, dict) or not all(isinstance(s, str) for s in t.values()):
            p.append(f"{where}: `{key}` must map question names to templates")
            continue
        p += [f"{where}: `{key}` names {n!r}, which is no question of the lab" for n in t if n not in questions]
    asked = v.get("asked", {})
    if not isinstance(asked, dict) or not all(isinstance(x, list) and all(isinstance(n, str) for n in x)
                                              for x in asked.values()):
        p.append(f"{where}: `asked` must map at_minimum tests to lists of question names")
    else:
        p += [f"{where}: `asked` names {t!r}, which is no at_minimum test of the lab" for t in asked if t not in tests]
        p += [f"{where}: `asked` of {t} names {n!r}, which is no question of the lab"
              for t, x in asked.items() for n in x if n not in questions]
    r = v.get("release", 0)
    if not isinstance(r, int) or isinstance(r, bool) or not 0 <= r < (len(values) if isinstance(values, list) else 0):
        p.append(f"{where}: `release` (the variant of a student's release: make-release writes it) must be one of "
                 f"the variants, 0 to {len(values) - 1 if isinstance(values, list) else '?'}")
    k = v.get("kernel", [])
    if not isinstance(k, list) or not all(isinstance(r, list) and len(r) == 2 and all(isinstance(s, str) for s in r)
                                          for r in k):
        p.append(f"{where}: `kernel` must be a list of [text of the lab's kernel.cu, template] pairs")
    return p


def read(lab: banklab_labs.Lab) -> Variants | None:
    """The variants lab.toml declares (and, in the instructor's tree, variants.toml's templates)."""
    d = lab.description
    v = d.get("variants")
    if v is None:
        return None
    where = "[variants]"   # the caller names the file (gen.py, banklab variant)
    problems = _problems(v, {q["name"] for q in d.get("questions", [])}, where,
                         {test for test, _, _ in lab_tests.at_minimum_tests(d)})
    if problems:
        raise DescriptionError("; ".join(problems))
    path = lab.solution_dir / ANSWERS_FILE
    templates, own = None, []
    if path.is_file():
        raw = banklab_labs.read_answers(path)
        templates = {k: dict(t) for k, t in raw.items() if isinstance(t, dict)}
        own = raw.get("solution_kernel", [])
        if not (isinstance(own, list) and all(isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r)
                                              for r in own)):
            raise DescriptionError(f"solutions/{lab.folder}/{ANSWERS_FILE}: `solution_kernel` must be a list of "
                                   "[text of the lab's solution, template] pairs")
    return Variants(lab, list(v["params"]), [list(r) for r in v["values"]], dict(v.get("what", {})),
                    dict(v.get("hint", {})), [(a, b) for a, b in v.get("kernel", [])], templates, v.get("release"),
                    [(a, b) for a, b in own], {t: list(x) for t, x in v.get("asked", {}).items()})


def render(template: str, params: dict[str, object]) -> str:
    """`{name}` of a param replaced by its value; every other `{...}` (a question's `{x}`) kept."""
    return _PLACEHOLDER.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), template)


def choose(lab: str, student: str, seed: str, count: int) -> int:
    """The variant of `student` in lab `lab`: HMAC-SHA256 keyed by the course seed over "lab NN:id"
    (the id stripped and in lower case: LMS exports spell a login in either case), modulo the lab's
    count. Without the seed nobody can tell a student's variant from the id."""
    if not seed:
        raise ValueError("no course seed: give --course-seed or set " + SEED_ENV + " (the instructor's course configuration)")
    mac = hmac.new(seed.encode(), f"lab {lab}:{student.strip().lower()}".encode(), hashlib.sha256).digest()
    return int.from_bytes(mac, "big") % count


def description(lab: banklab_labs.Lab, k: int) -> dict:
    """The description of variant k, as read from lab.toml (raw: gen.py's check runs on it)."""
    v = read(lab)
    d = copy.deepcopy(lab.description)
    if v is None or k == 0:
        return d
    params = v.params_of(k)
    for q in d["questions"]:
        for key, templates in (("what", v.what), ("hint", v.hint)):
            if q["name"] in templates:
                q[key] = render(templates[q["name"]], params)
    for test, _, am in lab_tests.at_minimum_tests(d):
        if test in v.asked:
            am.pop("asked", None)
            if v.asked[test]:
                am["asked"] = list(v.asked[test])
    return d


def answers(lab: banklab_labs.Lab, k: int) -> dict | None:
    """The answers of variant k: answers.toml, with variants.toml's templates rendered in."""
    base = lab.answers()
    v = read(lab)
    if base is None or v is None or k == 0:
        return base
    v.check_index(k)
    if v.answer_templates is None:
        raise DescriptionError(f"lab {lab.number} has variants but no solutions/{lab.folder}/{ANSWERS_FILE}")
    out = copy.deepcopy(base)
    params = v.params_of(k)
    for name, t in v.answer_templates.items():
        if name not in out:
            raise DescriptionError(f"{ANSWERS_FILE} [{name}]: no question of lab {lab.number} is named {name!r}")
        out[name] = {key: render(val, params) if isinstance(val, str) else val for key, val in t.items()}
    return out


def _replaced(text: str, v: Variants, k: int, what: str) -> str:
    params = v.params_of(k)
    for old, template in v.kernel:
        if old not in text:
            raise DescriptionError(f"labs/{v.lab.folder}/judge/lab.toml [variants] kernel: {what} has no text {old!r}")
        text = text.replace(old, render(template, params))
    marker = MARKER.format(lab=v.lab.number, k=k, params=v.describe(k))
    m = re.search(r"^#include", text, re.M)   # the marker after the file's opening comment
    at = m.start() if m else 0
    return text[:at] + marker + "\n" + text[at:]


def stub(lab: banklab_labs.Lab, k: int, text: str | None = None) -> str:
    """The stub of variant k (variant 0: the lab's kernel.cu as it is). `text`: another kernel.cu made
    from the stub (a selftest cheat, grader/selftest/run_cases.py --variant) rendered the same way."""
    text = lab.stub.read_text() if text is None else text
    v = read(lab)
    if v is None or k == 0:
        return text
    v.check_index(k)
    return _replaced(text, v, k, "the stub")


def banklab_cli() -> str:
    """The built `banklab` command (the model's one implementation): $BANKLAB_CLI, else a build of the course."""
    env = os.environ.get("BANKLAB_CLI")
    if env:
        return env
    root = banklab_labs.repo_root()
    for p in sorted(root.glob("build/*/tools/banklab")):
        if os.access(p, os.X_OK):
            return str(p)
    found = shutil.which("banklab")
    if not found:
        raise DescriptionError("the model's `banklab` command is not built (cmake --build build/dev --target banklab), "
                               "or set BANKLAB_CLI")
    return found


def model_answers(d: dict, answers_k: dict, names: set[str] | None = None) -> dict[str, int]:
    """The answer of each question of `names` (all: None) as the model counts it (`banklab predict`,
    the one model) or, for a `value`, as the course's expression language computes it: the solved
    file's predictions. A value that reads the student's own tables has no answer of its own here."""
    lines, wanted, result = [], [], {}
    for q in d["questions"]:
        if names is not None and q["name"] not in names:
            continue
        a = answers_k[q["name"]]
        if q["asks"] == "value" and "value" in a and not re.search(r"[A-Za-z_]\w*\s*\(", a["value"]):
            result[q["name"]] = banklab_expr.evaluate(a["value"])
            continue
        # (`tma_swizzle` names the mode of the self-check command only: the access line is already
        # the swizzled offsets, as answers.toml writes it, so the model counts it as any other.)
        if q["asks"] not in ("wavefronts", "excess_wavefronts") or "x" in q or "x_range" in q:
            raise DescriptionError(f"question {q['name']} ({q['asks']}): a variant's solved file takes plain wavefront "
                                   "and constant value questions so far (docs/dev/VARIANTS.md, what is left)")
        acc = banklab_expr.parse_access(a["access"], a.get("mask", "0xffffffff"))
        lines.append(f"{acc.op} {acc.width} {acc.mask:08x} " + " ".join(map(str, acc.offsets)))
        wanted.append(q)
    if not lines:
        return result
    out = subprocess.run([banklab_cli(), "predict", "-"], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=False)
    rows = out.stdout.splitlines()
    if out.returncode or len(rows) != len(wanted):
        raise DescriptionError(f"banklab predict failed: {out.stderr.strip()}")
    for q, row in zip(wanted, rows):
        w = int(row.split()[0])
        m = int(re.search(r"\bmin=(\d+)", row).group(1))
        result[q["name"]] = w - m if q["asks"] == "excess_wavefronts" else w
    return result


def solution(lab: banklab_labs.Lab, k: int, text: str | None = None, keep: set[str] = frozenset()) -> str:
    """The solved kernel.cu of variant k: the lab's solution with the variant's texts, and each
    prediction the model's count for the variant (its comment, about the base numbers, dropped).
    `text`: another kernel.cu of the lab's (a selftest case: the solution with its patch,
    grader/selftest/variant_case.py) rendered the same way, its predictions named in `keep` left as written."""
    text = lab.solution.read_text() if text is None else text
    v = read(lab)
    if v is None or k == 0:
        return text
    v.check_index(k)
    # The questions a variant changes (templated in variants.toml); the others keep the solution's own.
    truth = model_answers(description(lab, k), answers(lab, k), set(v.answer_templates or {}) - set(keep))
    text = _replaced(text, v, k, "the solution")
    for old, template in v.solution_kernel:
        if old not in text:
            raise DescriptionError(f"solutions/{lab.folder}/{ANSWERS_FILE} solution_kernel: the solution has no text {old!r}")
        text = text.replace(old, render(template, v.params_of(k)))
    for name, n in truth.items():
        text, hits = re.subn(rf"(constexpr int {name} = )[^;\n]*;[^\n]*", rf"\g<1>{n};", text)
        if hits != 1:
            raise DescriptionError(f"solutions/{lab.folder}/kernel.cu: no single `constexpr int {name} = N;`")
    return text


def named_variant(text: str, lab: str) -> int | None:
    """The variant a kernel.cu names on its marker line for lab `lab`, or None."""
    m = MARKER_RE.search(text)
    return int(m.group(2)) if m and m.group(1) == lab else None


def _rendered_problem(lab: banklab_labs.Lab, k: int, text: str) -> str | None:
    """What is wrong with variant k's rendered kernel.cu: its line names another variant (or none),
    or the kernel's replacements took a question's `constexpr int NAME =` away or doubled it."""
    if named_variant(text, lab.number) != k:
        return f"names variant {named_variant(text, lab.number)} on its `// banklab variant:` line, not {k}"
    lost = [q["name"] for q in lab.description.get("questions", [])
            if len(re.findall(rf"\bconstexpr int {q['name']} =", text)) != 1]
    return f"does not define once each question's constant: {', '.join(lost)} (the [variants] kernel replacements)" \
        if lost else None


def _check_release_variant(lab: banklab_labs.Lab, v: "Variants", k: int, stub_text: str, where: str) -> list[str]:
    """A release for one student or one variant (make-release --student/--variant/--roster): its stub
    is variant k's already (re-rendering it would apply the replacements twice). Checked: k is one of
    the lab's variants, k's description (and answers, where the tree has them) passes the generator's
    check, and the stub names k on its line and defines every question's constant once."""
    from banklab.lab.description import check as check_description
    v.check_index(k)
    check_description(description(lab, k), copy.deepcopy(answers(lab, k)))
    problem = _rendered_problem(lab, k, stub_text)
    return [f"{where}: the stub (variant {k}, a release for one student) {problem}"] if problem else []


def check_lab(lab: banklab_labs.Lab) -> list[str]:
    """The course's labs-check's part for variants: the [variants] table; for every variant, its
    description and answers pass the generator's check, its stub and solution take the kernel's
    replacements and still define every question's constant once, each names its own variant on its
    `// banklab variant:` line (what the judge reads), and no two variants have the same answers.
    (The model's counts of a variant's solved file are the judge tests' part: they need the built banklab.)"""
    from banklab.lab.description import check as check_description
    where = f"labs/{lab.folder}/judge/lab.toml [variants]"
    try:
        v = read(lab)
        if v is None:
            return []
        stub_text = lab.stub.read_text() if lab.stub.is_file() else ""
        own = named_variant(stub_text, lab.number)
        problems = _check_release_variant(lab, v, own, stub_text, where) if own else []
        if not problems and v.release is not None and (own or 0) != v.release:
            problems = [f"{where}: `release = {v.release}` (the variant of this release, make-release wrote it) but "
                        "the stub names " + (f"variant {own}" if own is not None else "no variant") + " on its line"]
        if own or problems:
            return problems
        seen: dict[str, int] = {}
        for k in range(1, v.count):
            a = answers(lab, k)
            check_description(description(lab, k), copy.deepcopy(a))
            texts = {"stub": stub(lab, k)}
            if lab.solution.is_file():
                texts["solution"] = _replaced(lab.solution.read_text(), v, k, "the solution")
            for what, text in texts.items():
                problem = _rendered_problem(lab, k, text)
                if problem:
                    return [f"{where}: variant {k}'s {what} {problem}"]
            if a is not None:
                key = repr(sorted((n, sorted(t.items())) for n, t in a.items()))
                if key in seen or key == repr(sorted((n, sorted(t.items())) for n, t in (lab.answers() or {}).items())):
                    return [f"{where}: variant {k} has the same answers as variant {seen.get(key, 0)}"]
                seen[key] = k
    except DescriptionError as e:
        return [f"{where}: {e}"]
    return []


def _lab(number: str) -> banklab_labs.Lab:
    labs = banklab_labs.find_labs()
    number = number.zfill(2)
    if number not in labs:
        raise DescriptionError(f"no lab {number} (labs: {', '.join(labs)})")
    return labs[number]


def main(argv: list[str]) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="banklab variant", description="A lab's per-student variants (docs/dev/VARIANTS.md).")
    ap.add_argument("--lab", required=True)
    ap.add_argument("--list", action="store_true", help="the lab's variants and their parameters")
    ap.add_argument("--student", help="a student's id (the LMS login)")
    ap.add_argument("--course-seed", default=os.environ.get(SEED_ENV), help=f"the course's seed (default ${SEED_ENV})")
    ap.add_argument("--variant", type=int, help="a variant by number instead of a student's")
    ap.add_argument("--write-stub", metavar="FILE")
    ap.add_argument("--write-solution", metavar="FILE", help="instructor only: the variant's solved kernel.cu")
    a = ap.parse_args(argv)
    try:
        lab = _lab(a.lab)
        v = read(lab)
        if v is None:
            print(f"lab {lab.number} has no variants: every student gets labs/{lab.folder}/kernel.cu")
            return 0 if a.list else 1
        if a.list:
            for k in range(v.count):
                print(f"lab {lab.number} variant {k}: {v.describe(k)}{' (the lab as written)' if k == 0 else ''}")
            return 0
        if a.variant is not None:
            k = a.variant
            v.check_index(k)
        elif a.student:
            k = choose(lab.number, a.student, a.course_seed or "", v.count)
        else:
            ap.error("give --list, --student ID (with --course-seed) or --variant K")
        print(f"lab {lab.number} variant {k}: {v.describe(k)}")
        if a.write_stub:
            Path(a.write_stub).write_text(stub(lab, k))
        if a.write_solution:
            Path(a.write_solution).write_text(solution(lab, k))
        return 0
    except (DescriptionError, ValueError) as e:
        print(f"banklab variant: lab {a.lab}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
