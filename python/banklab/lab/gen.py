#!/usr/bin/env python3
"""Generates a lab's C++ from its description (docs/dev/LAB_CONTRACT.md, "The lab's description").

    banklab_gen.py labs/05_swizzle/judge/lab.toml OUTDIR [--probe labs/05_swizzle/judge/probe.cu]
                   [--answers solutions/05_swizzle/answers.toml]

writes, only when their text changes:
  OUTDIR/grader/lab05_description.hpp   the description as C++ data (standard library only)
  OUTDIR/grader/lab05_probe.hpp  the probe's main(): every constant, table, instruction,
                                 prediction and launcher call, each calling a function that
                                 labs/05_swizzle/judge/probe.cu defines (no #include: the judge compiles
                                 it after the student's file, grader/judge/build.cpp)
  OUTDIR/lab05_questions_test.cpp one TEST(Lab05Predictions, <test>) per question, each calling
                                 grader::AnswersQuestion (grader/judge/checks.cpp), and one
                                 TEST(Lab05Layout, <test>) per `at_minimum` of an instruction, each
                                 calling grader::AllAtMinimumWavefronts
  OUTDIR/grader/lab05_judge.hpp  the judge's view of the description (never the probe's): each
                                 instruction's warp instructions as the probe tabulated them, named by
                                 its `label` (lab05_judge::row_write()), each [[kernels]] entry's
                                 compiled name (lab05_judge::kernel_transpose_swizzled), the hints

    banklab_gen.py --mangle NAMESPACE KERNEL "PARAMS"   prints the symbol a __global__ function gets
    banklab_gen.py --list-tests labs/05_swizzle/judge/lab.toml prints the tests generated from the description
    banklab_gen.py --driver [--check]   writes (or checks) tools/trace/tests/lab_driver_labs.inc, the
                                        trace driver's table of every lab's launches
    banklab_gen.py --batch OUTDIR TOML PROBE ANSWERS [TOML PROBE ANSWERS ...]   the first form for
                                        several labs in one process (CMake's configure step)

The description is checked first: an unknown, missing or ill-typed key, a bad op or width, an
expression that does not parse, a duplicate name, a question out of its place: the build fails
with the file and the key. With --probe, the probe must define exactly the functions the header
declares (one per table, instruction and launcher).
"""
import os
import re
import sys

try:
    import tomllib
except ImportError:  # before Python 3.11
    sys.exit("tools/lablib/banklab_gen.py needs Python 3.11 or newer (tomllib) to read the labs' descriptions")

# The lane-expression language and the op table: banklab/lab/expr.py.
from banklab.lab import expr as banklab_expr  # noqa: E402
from banklab.lab import labs as banklab_labs  # noqa: E402  (judge_dir()/folder_of(): where a lab's judge files are)
from banklab.lab.predictions import check_question_keys, prediction_range, table_value  # noqa: E402

OPS = banklab_expr.OPS   # op -> its widths, read from the model (common/include/banklab/model.hpp)
ASKS = ("wavefronts", "value", "excess_wavefronts", "smallest")
ROLES = ("correct", "traced", "timing", "perf")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# key: (type, required). Types: str, int, list-of-str, ...
TOP = {"title": (str, True), "summary": (str, True),
       "namespace": (str, True), "points": (dict, True), "selftest": (dict, False), "probe": (dict, True), "tables": ("tables", True),
       "instructions": ("tables", True), "launches": ("tables", True), "questions": ("tables", True),
       "kernels": ("tables", False)}
PROBE = {"constants": ("strs", True)}
TABLE = {"name": (str, True), "dims": ("dims", True)}
INSTRUCTION = {"name": (str, True), "kernel": (str, True), "op": (str, True), "width": (int, True),
               "dims": ("dims", True), "what": (str, True), "index": ("strs", False), "label": (str, False),
               "at_minimum": ("at_minimum", False)}
# One "at the model's minimum" test of an instruction: TEST(LabNNLayout, <test>), every warp
# instruction of the table (or those whose indices `only` fixes) valid and at the model's minimum,
# failing with `hint` (or with the hint of the at_minimum test `hint_of`, above).
AT_MINIMUM = {"test": (str, True), "hint": (str, False), "hint_of": (str, False), "only": (dict, False)}
# A kernel the GPU tier finds in the student's compiled code: its parameters as kernel.cu declares
# them give its symbol (Itanium mangling, mangle() below).
KERNEL = {"name": (str, True), "params": (str, True)}
LAUNCH = {"launcher": (str, True), "kernel": (str, True), "sizes": ("sizes", True), "roles": ("strs", False)}
QUESTION = {"name": (str, True), "test": (str, True), "asks": (str, True), "what": (str, False), "hint": (str, True),
            "x": (str, False), "x_range": ("ints", False), "yours": (str, False), "yours_works": (str, False),
            "range": ("ints", False), "range_what": (str, False), "tma_swizzle": (str, False)}
# A question's answer (solutions/NN_name/answers.toml, a table named by the question).
ANSWER = {"access": (str, False), "mask": (str, False), "value": (str, False)}
# What each kind of question needs (besides name, test, asks, hint) and may have: in the
# description, and in its answer.
NEEDS = {"wavefronts": ({"what"}, {"x", "x_range", "tma_swizzle"}),
         "value": ({"range", "range_what"}, set()),
         "excess_wavefronts": (set(), set()),
         "smallest": ({"what", "x_range", "yours", "yours_works"}, set())}
ANSWER_NEEDS = {"wavefronts": ({"access"}, {"mask"}),
                "value": ({"value"}, set()),
                "excess_wavefronts": ({"access"}, {"mask"}),
                "smallest": ({"access"}, {"mask"})}


class DescriptionError(Exception):
    pass


# ---- the lane-expression language: tools/lablib/banklab_expr.py, the C++ evaluator's twin ---------
# (its grammar, C semantics and messages; tested against tools/lib/src/expr.cpp by the CTest
# cli.ExprPythonAgreesWithCpp). The ops and their widths are the model's (banklab_expr.OPS).

def tokenize(text):
    """The names `text` uses, as ("var", name) pairs (the only tokens callers look at)."""
    return [("var", v) for v in sorted(parse_expr(text, ("lane", "x")).uses())]


def parse_expr(text, variables):
    """Parses `text`; names other than `variables` are errors."""
    try:
        return banklab_expr.Expr(text, tuple(variables))
    except banklab_expr.ExprError as e:
        raise DescriptionError(f"in {text!r}, {e}") from None


def eval_expr(text, **env):
    """The value of `text` with C's operators on 64-bit integers (overflow is an error)."""
    e = parse_expr(text, tuple(env))
    try:
        return e.eval(**env)
    except banklab_expr.ExprError as err:
        raise DescriptionError(str(err)) from None


def split_access(line):
    """'ld 4 (lane*32+5)*4' -> ('ld', 4, '(lane*32+5)*4'), the op and width the model's."""
    try:
        return banklab_expr.split_access(line)
    except banklab_expr.ExprError as e:
        raise DescriptionError(f"{line!r}: {e}") from None


# ---- checking a description ----------------------------------------------------------------------

def check_keys(where, table, schema):
    if not isinstance(table, dict):
        raise DescriptionError(f"{where}: expected a table")
    for k in table:
        if k not in schema:
            raise DescriptionError(f"{where}: unknown key {k!r} (known: {', '.join(schema)})")
    for k, (typ, required) in schema.items():
        if k not in table:
            if required:
                raise DescriptionError(f"{where}: missing key {k!r}")
            continue
        v = table[k]
        ok = {str: lambda v: isinstance(v, str), int: lambda v: type(v) is int, dict: lambda v: isinstance(v, dict),
              "strs": lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v),
              "ints": lambda v: isinstance(v, list) and all(type(s) is int for s in v),
              "dims": lambda v: isinstance(v, list) and len(v) >= 1 and all(isinstance(s, (str, int)) for s in v),
              "sizes": lambda v: isinstance(v, list) and len(v) >= 1 and all(
                  isinstance(s, list) and len(s) >= 1 and all(type(n) is int and n > 0 for n in s) for s in v),
              "tables": lambda v: isinstance(v, list),
              "at_minimum": lambda v: isinstance(v, dict) or (isinstance(v, list) and len(v) >= 1 and all(
                  isinstance(t, dict) for t in v))}[typ](v)
        if not ok:
            what = {str: "a string", int: "an integer", dict: "a table", "strs": "a list of strings",
                    "ints": "a list of integers", "dims": "a non-empty list of C++ expressions (strings)",
                    "sizes": "a non-empty list of lists of positive integers", "tables": "an array of tables",
                    "at_minimum": "a table { test = \"...\", hint = \"...\" } or a list of them"}[typ]
            raise DescriptionError(f"{where}: key {k!r} must be {what}")


def unique(where, names, what):
    seen = set()
    for n in names:
        if n in seen:
            raise DescriptionError(f"{where}: two {what} named {n!r}")
        seen.add(n)


def identifier(where, key, v):
    if not IDENT.match(v):
        raise DescriptionError(f"{where}: key {key!r} = {v!r} is not a C++ identifier")


def check(d, answers=None):
    """Checks description `d` and, when given (the instructor's tree), its answers {name: {...}},
    which it merges into the questions (d["answers"] says whether there were any)."""
    for k in ("lab", "folder"):
        if k in d:
            raise DescriptionError(f"key {k!r} is not a key of a description any more: the lab's number and folder "
                                   "are its folder's name (labs/NN_name/); delete the line")
    check_keys("top level", d, TOP)
    identifier("top level", "namespace", d["namespace"])
    check_keys("[probe]", d["probe"], PROBE)
    d["constants"] = d["probe"]["constants"]
    for c in d["constants"]:
        identifier("[probe]", "constants", c)
    unique("[probe] constants", d["constants"], "constants")
    for n, t in enumerate(d["tables"], 1):
        w = f"[[tables]] #{n}"
        check_keys(w, t, TABLE)
        identifier(w, "name", t["name"])
    unique("[[tables]]", [t["name"] for t in d["tables"]], "tables")
    for n, t in enumerate(d["instructions"], 1):
        w = f"[[instructions]] #{n} ({t.get('name', '?')})"
        check_keys(w, t, INSTRUCTION)
        identifier(w, "name", t["name"])
        identifier(w, "kernel", t["kernel"])
        if t["op"] not in OPS:
            raise DescriptionError(f"{w}: key 'op' = {t['op']!r} is not one of {', '.join(OPS)}")
        if t["width"] not in OPS[t["op"]]:
            raise DescriptionError(f"{w}: key 'width' = {t['width']}: {t['op']} takes {', '.join(map(str, OPS[t['op']]))}")
    unique("[[instructions]]", [t["name"] for t in d["instructions"]], "instructions")
    check_instruction_tests(d)
    d["kernels"] = d.get("kernels", [])
    for n, k in enumerate(d["kernels"], 1):
        w = f"[[kernels]] #{n} ({k.get('name', '?')})"
        check_keys(w, k, KERNEL)
        identifier(w, "name", k["name"])
        try:
            k["symbol"] = mangle(d["namespace"], k["name"], k["params"])
        except DescriptionError as e:
            raise DescriptionError(f"{w}: key 'params': {e}") from None
    unique("[[kernels]]", [k["name"] for k in d["kernels"]], "kernels")
    known = {k["name"] for k in d["kernels"]}
    if known:
        for t in d["instructions"] + d["launches"]:
            if t["kernel"] not in known:
                raise DescriptionError(f"kernel {t['kernel']!r} (of {t.get('name', t.get('launcher'))}) has no [[kernels]] "
                                       f"entry: add one with name = {t['kernel']!r} and its params as kernel.cu declares them")
    for n, t in enumerate(d["launches"], 1):
        w = f"[[launches]] #{n} ({t.get('launcher', '?')})"
        check_keys(w, t, LAUNCH)
        identifier(w, "launcher", t["launcher"])
        identifier(w, "kernel", t["kernel"])
        if len({len(s) for s in t["sizes"]}) != 1:
            raise DescriptionError(f"{w}: key 'sizes': every size must have as many numbers")
        if "roles" in t:
            if len(t["roles"]) != len(t["sizes"]):
                raise DescriptionError(f"{w}: key 'roles' must have one role per size")
            for r in t["roles"]:
                if r not in ROLES:
                    raise DescriptionError(f"{w}: key 'roles': {r!r} is not one of {', '.join(ROLES)}")
            unique(f"{w} roles", t["roles"], "sizes with the role")
    unique("[[launches]]", [t["launcher"] for t in d["launches"]], "launches of the launcher")
    names, tests = [], []
    for n, q in enumerate(d["questions"], 1):
        w = f"[[questions]] #{n} ({q.get('name', '?')})"
        check_keys(w, q, QUESTION)
        identifier(w, "name", q["name"])
        identifier(w, "test", q["test"])
        if q["asks"] not in ASKS:
            raise DescriptionError(f"{w}: key 'asks' = {q['asks']!r} is not one of {', '.join(ASKS)}")
        for k in ("access", "mask", "value"):
            if k in q:
                raise DescriptionError(f"{w}: key {k!r} is the question's answer: it goes in solutions/<lab>/answers.toml, "
                                       f"under [{q['name']}], never in the description students get")
        need, may = NEEDS[q["asks"]]
        for k in need:
            if k not in q:
                raise DescriptionError(f"{w}: missing key {k!r} (asks = {q['asks']!r} needs {', '.join(sorted(need))})")
        for k in set(q) - need - may - {"name", "test", "asks", "hint"}:
            raise DescriptionError(f"{w}: key {k!r} does not go with asks = {q['asks']!r}")
        if answers is not None:
            a = answers.get(q["name"])
            aw = f"answers.toml [{q['name']}]"
            if not isinstance(a, dict):
                raise DescriptionError(f"{w}: no answer: add a table [{q['name']}] to solutions/<lab>/answers.toml")
            check_keys(aw, a, ANSWER)
            need_a, may_a = ANSWER_NEEDS[q["asks"]]
            for k in need_a:
                if k not in a:
                    raise DescriptionError(f"{aw}: missing key {k!r} (asks = {q['asks']!r} needs {', '.join(sorted(need_a))})")
            for k in set(a) - need_a - may_a:
                raise DescriptionError(f"{aw}: key {k!r} does not go with asks = {q['asks']!r}")
            q.update(a)
        if ("x" in q) != ("x_range" in q) and q["asks"] != "smallest":
            raise DescriptionError(f"{w}: keys 'x' and 'x_range' go together")
        has_x = "x_range" in q
        if has_x:
            r = q["x_range"]
            if len(r) != 3 or r[2] <= 0 or r[1] < r[0]:
                raise DescriptionError(f"{w}: key 'x_range' must be [first, last, step] with step > 0 and last >= first")
        for problem in check_question_keys(q):
            raise DescriptionError(f"{w}: {problem}")
        if "x" in q and q["x"] not in names:
            raise DescriptionError(f"{w}: key 'x' = {q['x']!r} names no question before this one")
        variables = ("lane", "x") if has_x else ("lane",)
        if "access" in q:
            try:
                op, width, expr = split_access(q["access"])
                e = parse_expr(expr, variables)
                for x in (range(r[0], r[1] + 1, r[2]) if has_x else [0]):
                    for lane in range(32):
                        try:
                            off = e.eval(lane=lane, x=x)
                        except banklab_expr.ExprError as err:
                            raise DescriptionError(str(err)) from None
                        if not 0 <= off <= 0xffffffff:
                            raise DescriptionError(f"lane {lane}{f', x = {x}' if has_x else ''}: offset {off} is outside shared memory")
            except DescriptionError as e:
                raise DescriptionError(f"{w}: key 'access': {e}") from None
        if "mask" in q:
            if not re.fullmatch(r"0x[0-9a-fA-F]{1,8}", q["mask"]) or int(q["mask"], 16) == 0:
                raise DescriptionError(f"{w}: key 'mask' = {q['mask']!r} is not a non-zero hexadecimal mask (\"0x0000ffff\")")
        if "value" in q:
            # It may read the student's own layout (banklab_predictions.table_value).
            plain, value_of = table_value(q["value"], {t["name"] for t in d.get("tables", [])}, cstr)
            try:
                q["_value"] = eval_expr(plain)
            except DescriptionError as e:
                raise DescriptionError(f"{w}: key 'value': {e}") from None
            if value_of:
                q["_value_of"] = value_of
            elif not q["range"][0] <= q["_value"] <= q["range"][1]:
                raise DescriptionError(f"{w}: the answer is outside the question's range {q['range']}")
        if "what" in q:
            try:
                what_parts(q["what"], has_x)
            except DescriptionError as e:
                raise DescriptionError(f"{w}: key 'what': {e}") from None
        names.append(q["name"])
        if q["test"] in tests and tests[-1] != q["test"]:
            raise DescriptionError(f"{w}: key 'test' = {q['test']!r}: questions of one test must follow each other")
        tests.append(q["test"])
    unique("[[questions]]", names, "questions")
    d["answers"] = answers is not None
    if answers is not None:
        for k in answers:
            if k not in names:
                raise DescriptionError(f"answers.toml [{k}]: no question of the description is named {k!r}")


def what_parts(text, has_x):
    """'tile[32][{32 + x}]' -> ['tile[32][', ('expr', '32 + x'), ']'] ({...} only where x exists)."""
    parts, pos = [], 0
    for m in re.finditer(r"\{([^{}]*)\}", text):
        if not has_x:
            raise DescriptionError("{...} is filled in only in a question with x")
        parse_expr(m.group(1), ("x",))
        parts += [text[pos:m.start()], ("expr", m.group(1))]
        pos = m.end()
    if "{" in text[pos:] or "}" in text[pos:]:
        raise DescriptionError("unmatched { or }")
    parts.append(text[pos:])
    return [p for p in parts if p != ""]


# ---- the judge's tests of the instructions -------------------------------------------------------

def label_parts(text, variables):
    """'warp {w}, row {4 * w}: {t: A|B}' -> ['warp ', ('expr', 'w'), ...]; ('pick', 't', ['A', 'B'])
    for a word picked by the expression's value (0 -> the first)."""
    parts, pos = [], 0
    for m in re.finditer(r"\{([^{}]*)\}", text):
        inner = m.group(1)
        expr, sep, words = inner.partition(":")
        parse_expr(expr, variables)
        parts.append(text[pos:m.start()])
        if sep:
            ws = [x.strip() for x in words.split("|")]
            if len(ws) < 2 or any(not x for x in ws):
                raise DescriptionError(f"{{{inner}}}: after ':' come the words to pick from, separated by '|' "
                                       "(\"{t: A|B}\" says A where t is 0, B where it is 1)")
            parts.append(("pick", expr.strip(), ws))
        else:
            parts.append(("expr", expr.strip()))
        pos = m.end()
    if "{" in text[pos:] or "}" in text[pos:]:
        raise DescriptionError("unmatched { or }")
    parts.append(text[pos:])
    return [p for p in parts if p != ""]


def at_minimum_tests(t):
    a = t.get("at_minimum", [])
    return [a] if isinstance(a, dict) else a


def check_instruction_tests(d):
    """index, label and at_minimum of each instruction (see the description's format comment)."""
    consts = d["constants"]
    tests, hints = {}, {}
    for n, t in enumerate(d["instructions"], 1):
        w = f"[[instructions]] #{n} ({t['name']})"
        index = t.get("index")
        if index is not None:
            if len(index) != len(t["dims"]):
                raise DescriptionError(f"{w}: key 'index' names {len(index)} indices for {len(t['dims'])} dims: "
                                       "one name per dimension, in the order of dims")
            for v in index:
                identifier(w, "index", v)
                if v in consts or v in ("lane", "only", "index_"):
                    raise DescriptionError(f"{w}: key 'index': {v!r} is a constant of the probe or the lane: "
                                           "give the index another name")
            unique(f"{w} index", index, "indices")
        if "label" in t:
            if index is None:
                raise DescriptionError(f"{w}: key 'label' needs key 'index' (the names its {{...}} use for "
                                       "the table's indices, one per dim)")
            try:
                t["_label"] = label_parts(t["label"], tuple(index) + tuple(consts))
            except DescriptionError as e:
                raise DescriptionError(f"{w}: key 'label': {e} (a label may use the names of key 'index' "
                                       f"[{', '.join(index)}] and the probe's constants)") from None
        ams = at_minimum_tests(t)
        if ams and "label" not in t:
            raise DescriptionError(f"{w}: key 'at_minimum' needs key 'label': a failure names the worst warp "
                                   "instruction by its label")
        for k, am in enumerate(ams, 1):
            aw = f"{w} at_minimum #{k}"
            check_keys(aw, am, AT_MINIMUM)
            identifier(aw, "test", am["test"])
            if ("hint" in am) == ("hint_of" in am):
                raise DescriptionError(f"{aw}: give either 'hint' (what to try, never the answer) or 'hint_of' "
                                       "(an instruction above whose hint fits this one too)")
            if "hint_of" in am and am["hint_of"] not in hints:
                raise DescriptionError(f"{aw}: key 'hint_of' = {am['hint_of']!r} names no at_minimum test above with "
                                       "a hint of its own")
            for v, x in am.get("only", {}).items():
                if v not in (index or []):
                    raise DescriptionError(f"{aw}: key 'only': {v!r} is not one of key 'index' "
                                           f"[{', '.join(index or [])}]")
                if type(x) is not int or x < 0:
                    raise DescriptionError(f"{aw}: key 'only': {v} = {x!r} must be an index (an integer >= 0)")
            if am["test"] in tests:
                raise DescriptionError(f"{aw}: key 'test' = {am['test']!r} is already the test of "
                                       f"{tests[am['test']]}: one test per at_minimum")
            tests[am["test"]] = t["name"]
            if "hint" in am:
                hints[am["test"]] = am["hint"]
    d["_hints"] = hints


# Itanium C++ ABI mangling of `namespace::kernel(params)`, for the parameter types kernels take.
BUILTIN = {"void": "v", "bool": "b", "char": "c", "signed char": "a", "unsigned char": "h", "short": "s",
           "unsigned short": "t", "int": "i", "signed": "i", "signed int": "i", "unsigned": "j",
           "unsigned int": "j", "long": "l", "unsigned long": "m", "long long": "x", "unsigned long long": "y",
           "float": "f", "double": "d", "size_t": "m", "std::size_t": "m"}
ALIASES = {"half": "__half", "nv_bfloat16": "__nv_bfloat16"}   # cuda_fp16.h / cuda_bf16.h typedefs of structs
QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict"}


def parse_param(p):
    """'const float* __restrict__ in' -> (base, const_of_base, [const of each pointer level])."""
    toks = re.findall(r"[A-Za-z_][A-Za-z0-9_:]*|\*|&|\S", p)
    bad = [x for x in toks if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_:]*|\*", x)]
    if bad:
        raise DescriptionError(f"parameter {p.strip()!r}: {bad[0]!r} is not part of the types the labs' kernels take "
                               "(pointers, const, built-in and struct types)")
    if "*" in toks:
        first = toks.index("*")
        head, tail = toks[:first], toks[first:]
    else:
        head, tail = toks, []
    const_base = any(x in ("const",) for x in head)
    words = [x for x in head if x not in QUALIFIERS]
    levels = []
    for x in tail:
        if x == "*":
            levels.append(False)
        elif x == "const":
            levels[-1] = True
    if not tail and len(words) >= 2 and " ".join(words) not in BUILTIN:
        words = words[:-1]   # the parameter's name
    if not words:
        raise DescriptionError(f"parameter {p.strip()!r} has no type")
    base = " ".join(words)
    if base not in BUILTIN and len(words) > 1:
        raise DescriptionError(f"parameter {p.strip()!r}: {base!r} is not a type the mangler knows (built-in: "
                               f"{', '.join(sorted(BUILTIN))}; or one struct name such as float4)")
    return base, const_base, levels


def mangle(namespace, name, params):
    """The symbol of __global__ void namespace::name(params): '_ZN5lab0416transpose_paddedEPfPKfii'."""
    subs = [f"{len(namespace)}{namespace}"]   # the substitution candidates (unsubstituted), in order

    def sub(i):
        digits, n = "", i - 1
        while i > 0:
            digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n % 36] + digits
            n //= 36
            if n == 0:
                break
        return f"S{digits}_"

    def canon(t):
        return t[1] if t[0] in ("builtin", "struct") else t[0] + canon(t[1])

    def emit(t):
        if t[0] == "builtin":
            return t[1]   # never a candidate
        c = canon(t)
        if c in subs:
            return sub(subs.index(c))
        text = c if t[0] == "struct" else t[0] + emit(t[1])
        subs.append(c)
        return text

    out = []
    plist = params.split(",") if params.strip() not in ("", "void") else []
    for p in plist:
        base, const_base, levels = parse_param(p)
        if levels:
            levels[-1] = False   # the parameter's own const (top level) is not part of its type
        else:
            const_base = False
        if base in BUILTIN:
            t = ("builtin", BUILTIN[base])
        else:
            b = ALIASES.get(base, base)
            if "::" in b:
                raise DescriptionError(f"parameter {p.strip()!r}: a type inside a namespace is not supported")
            t = ("struct", f"{len(b)}{b}")
        if const_base:
            t = ("K", t)
        for c in levels:
            t = ("P", t)
            if c:
                t = ("K", t)
        out.append(emit(t))
    return f"_ZN{len(namespace)}{namespace}{len(name)}{name}E" + ("".join(out) or "v")


def readable(namespace, name, params):
    return f"{namespace}::{name}(" + ", ".join(" ".join(p.split()) for p in params.split(",") if p.strip()) + ")"


def cpp_label(parts):
    """The C++ expression of a label (index names and constants are long long in scope)."""
    out = []
    for p in parts:
        if isinstance(p, str):
            out.append(f"std::string({cstr(p)})")
        elif p[0] == "expr":
            out.append(f"std::to_string({cexpr(p[1])})")
        else:
            words = ", ".join(cstr(x) for x in p[2])
            out.append(f"grader::pick({cexpr(p[1])}, {{{words}}})")
    return " + ".join(out) if out else 'std::string()'


def judge_header(d, toml_name):
    ns = f"lab{d['lab']}_judge"
    L = [f"// Generated by tools/lablib/banklab_gen.py from {toml_name} at build time: do not edit. The",
         "// judge's side of the description (never compiled into the probe): each instruction's warp",
         "// instructions named by its label, the kernels' compiled names, the at_minimum tests' hints.",
         "#pragma once\n",
         "#include <string>",
         "#include <vector>\n",
         '#include "grader/grader.hpp"',
         '#include "grader/lab_judge.hpp"\n',
         f"namespace {ns} {{\n"]
    for k in d["kernels"]:
        L.append(f"/// {readable(d['namespace'], k['name'], k['params'])}")
        L.append(f"inline constexpr grader_desc::Kernel kernel_{k['name']}{{{cstr(k['name'])}, {cstr(k['symbol'])}, "
                 f"{cstr(readable(d['namespace'], k['name'], k['params']))}}};")
    if d["kernels"]:
        L.append("")
    for name, h in d["_hints"].items():
        L.append(f"inline constexpr const char* hint_{name} = {cstr(h)};")
    if d["_hints"]:
        L.append("")
    for t in d["instructions"]:
        if "_label" not in t:
            continue
        used = set()
        for p in t["_label"]:
            if not isinstance(p, str):
                used |= parse_expr(p[1], tuple(t["index"]) + tuple(d["constants"])).uses()
        L.append(f"/// {t['name']} ({t['what']}): one per warp instruction the probe tabulated, in the")
        L.append(f"/// order of the indices [{', '.join(t['index'])}]; `only`: one index per dim, -1 for any.")
        L.append(f"inline std::vector<grader::Instruction> {t['name']}(const std::vector<int>& only = {{}}) {{")
        for c in d["constants"]:
            if c in used:
                L.append(f"  const long long {c} = grader::answers().value({cstr(c)});")
        caps = ", ".join(c for c in d["constants"] if c in used)
        L.append(f"  return grader::all_of(grader::answers().access({cstr(t['name'])}), only, [{caps}](const std::vector<int>& index_) {{")
        for k, v in enumerate(t["index"]):
            if v in used:
                L.append(f"    const long long {v} = index_[{k}];")
        L.append(f"    return {cpp_label(t['_label'])};")
        L.append("  });")
        L.append("}\n")
    for k in dict.fromkeys(t["kernel"] for t in d["instructions"]):
        mine = [t for t in d["instructions"] if t["kernel"] == k]
        if all("_label" in t for t in mine):
            L.append(f"/// Every shared-memory instruction of {k} the description lists, in its order.")
            L.append(f"inline std::vector<grader::Instruction> instructions_of_{k}() {{")
            L.append(f"  return grader::joined({{{', '.join(t['name'] + '()' for t in mine)}}});")
            L.append("}\n")
    L.append(f"}}  // namespace {ns}")
    return "\n".join(L) + "\n"


def instruction_tests(d):
    L = []
    for t in d["instructions"]:
        for am in at_minimum_tests(t):
            only = am.get("only", {})
            arg = ""
            if only:
                arg = "{" + ", ".join(str(only.get(v, -1)) for v in t["index"]) + "}"
            hint = f"lab{d['lab']}_judge::hint_{am.get('hint_of', am['test'])}"
            L.append(f"TEST(Lab{d['lab']}Layout, {am['test']}) {{")
            L.append(f"  BANKLAB_EXPECT(grader::AllAtMinimumWavefronts(lab{d['lab']}_judge::{t['name']}({arg}), {hint}));")
            L.append("}\n")
    return L


def test_names(d):
    names = [f"Lab{d['lab']}Layout.{am['test']}" for t in d["instructions"] for am in at_minimum_tests(t)]
    for q in d["questions"]:
        n = f"Lab{d['lab']}Predictions.{q['test']}"
        if n not in names:
            names.append(n)
    return names


# ---- C++ -----------------------------------------------------------------------------------------

def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def cexpr(expr):
    """An expression as C++ over long long lane and x (0x constants stay as they are)."""
    return expr.strip()


def header(d, toml_name):
    ns = f"lab{d['lab']}_desc"
    L = []
    L.append(f"// Generated by tools/lablib/banklab_gen.py from {toml_name} at build time: do not edit. The format:")
    L.append("// docs/dev/LAB_CONTRACT.md, \"The lab's description\". Standard library only: the judge's header")
    L.append("// snapshot gives it to the probe's compile (grader/judge/build.cpp).")
    L.append("#pragma once\n")
    L.append('#include "grader/lab_description.hpp"\n')
    L.append(f"namespace {ns} {{\n")
    L.append(f"inline constexpr const char* kLab = {cstr(d['lab'])};")
    L.append(f"inline constexpr const char* kFolder = {cstr(d['folder'])};")
    L.append(f"inline constexpr const char* kJudgeDir = {cstr(d.get('judge_dir', 'labs/' + d['folder'] + '/judge'))};"
             "  // the judge's files (probe.cu, test.cu), from the source root")
    L.append(f"inline constexpr const char* kNamespace = {cstr(d['namespace'])};")
    L.append("inline constexpr const char* kConstants[] = {" + ", ".join(cstr(c) for c in d["constants"]) + "};")
    L.append("inline const grader_desc::Table kTables[] = {")
    for t in d["tables"]:
        L.append(f"    {{{cstr(t['name'])}, {{{', '.join(cstr(str(x)) for x in t['dims'])}}}}},")
    L.append("};")
    L.append("inline const grader_desc::Instruction kInstructions[] = {")
    for t in d["instructions"]:
        L.append(f"    {{{cstr(t['name'])}, {cstr(t['kernel'])}, {cstr(t['op'])}, {t['width']}, "
                 f"{{{', '.join(cstr(str(x)) for x in t['dims'])}}}, {cstr(t['what'])}}},")
    L.append("};")
    L.append("inline const grader_desc::Launch kLaunches[] = {")
    for t in d["launches"]:
        sizes = ", ".join("{" + ", ".join(str(n) for n in s) + "}" for s in t["sizes"])
        roles = ", ".join(cstr(r) for r in t.get("roles", []))
        L.append(f"    {{{cstr(t['launcher'])}, {cstr(t['kernel'])}, {{{sizes}}}, {{{roles}}}}},")
    L.append("};")
    L.append(f"// The questions are in lab{d['lab']}_questions_test.cpp, which only the judge compiles.\n")
    L.append("/// The size of launcher `launcher` that has role `role` (\"correct\", \"traced\", \"timing\", \"perf\").")
    L.append("inline const std::vector<long long>& size(const char* launcher, const char* role) {")
    L.append("  return grader_desc::size_of(kLaunches, launcher, role);")
    L.append("}\n")
    L.append(f"}}  // namespace {ns}\n")
    return "\n".join(L) + "\n"


def probe_header(d, toml_name):
    """grader/labNN_probe.hpp: the probe's part of the description, the declarations of the
    functions labs/NN_name/judge/probe.cu defines and the probe's main(). banklab-judge compiles it
    AFTER the student's file (it names the student's constants, predictions and kernels), so it
    includes nothing: every name in it must mean what the judge wrote (grader/judge/build.cpp
    #undefs each of them after the student's file). Each launch's sizes are plain arrays here."""
    ns = f"lab{d['lab']}_desc"
    L = []
    L.append(f"// Generated by tools/lablib/banklab_gen.py from {toml_name} at build time: do not edit.")
    L.append(f"// The probe's main(): compiled after grader/probe.hpp and the student's kernel.cu (namespace")
    L.append(f"// {d['namespace']}). {d.get('judge_dir', 'labs/' + d['folder'] + '/judge')}/probe.cu defines each function declared here: the only")
    L.append("// code of the probe that calls the student's functions. No #include: see grader/judge/build.cpp.")
    L.append("#pragma once\n")
    L.append(f"namespace {ns} {{")
    for t in d["tables"]:
        L.append(f"long long table_{t['name']}(const int* i);")
    for t in d["instructions"]:
        L.append(f"long long access_{t['name']}(const int* i, int lane);")
    for t in d["launches"]:
        L.append(f"void launch_{t['launcher']}(const probe::Call& call);")
    for n, t in enumerate(d["launches"]):
        dims = len(t["sizes"][0])
        sizes = ", ".join("{" + ", ".join(str(x) for x in s) + "}" for s in t["sizes"])
        L.append(f"inline constexpr long long kProbeSizes{n}[][{dims}] = {{{sizes}}};")
    L.append(f"}}  // namespace {ns}\n")
    L.append("int main(int argc, char** argv) {")
    L.append(f"  using namespace {d['namespace']};")
    L.append(f"  probe::Writer w(argc, argv, {cstr(d['lab'])});")
    for c in d["constants"]:
        L.append(f"  w.value({cstr(c)}, {c});")
    for t in d["tables"]:
        L.append(f"  w.table({cstr(t['name'])}, {{{', '.join(str(x) for x in t['dims'])}}}, {ns}::table_{t['name']});")
    for t in d["instructions"]:
        L.append(f"  w.access({cstr(t['name'])}, {cstr(t['op'])}, {t['width']}, {{{', '.join(str(x) for x in t['dims'])}}}, "
                 f"{ns}::access_{t['name']});")
    for q in d["questions"]:
        L.append(f"  w.predict({cstr(q['name'])}, predict::{q['name']});")
    for n, t in enumerate(d["launches"]):
        dims = len(t["sizes"][0])
        L.append(f"  probe::kernel({t['kernel']});")
        L.append(f"  for (const auto& s : {ns}::kProbeSizes{n})")
        L.append(f"    if (!probe::Call(w, {cstr(t['launcher'])}, s, {dims}).run({ns}::launch_{t['launcher']})) return 5;")
    L.append("  return 0;")
    L.append("}")
    return "\n".join(L) + "\n"


def question_table(d):
    L = []
    L.append("/// The handout's questions, in the order of kernel.cu's namespace predict.")
    L.append("const grader_desc::Question kQuestions[] = {")
    for q in d["questions"]:
        has_x = "x_range" in q
        f = ["    {"]
        f.append(f"        {cstr(q['name'])}, {cstr(q['test'])}, grader_desc::Asks::{q['asks'].title().replace('_', '')},")
        f.append(f"        {'true' if d['answers'] else 'false'},")
        if "access" in q:
            op, width, expr = split_access(q["access"])
            mask = q.get("mask", "0xffffffff")
            used = {v for k, v in tokenize(expr) if k == "var"}
            params = ", ".join(f"long long{' ' + v if v in used else ''}" for v in ("lane", "x"))
            f.append(f"        {cstr(q['access'])}, {cstr(op)}, {width}, {mask}u,")
            f.append(f"        []({params}) -> long long {{ return {cexpr(expr)}; }},")
        else:
            f.append('        "", "", 0, 0u, nullptr,')
        f.append(f"        {q['_value'] if 'value' in q else 0}LL, {cstr(q.get('value', ''))},")
        if "what" in q:
            parts = what_parts(q["what"], has_x)
            body = " + ".join(f"std::to_string({p[1]})" if isinstance(p, tuple) else f"std::string({cstr(p)})"
                              for p in parts)
            f.append(f"        [](long long{' x' if has_x else ''}) -> std::string {{ return {body}; }},")
        else:
            f.append("        nullptr,")
        f.append(f"        {cstr(q['hint'])},")
        r = q.get("x_range", [0, 0, 1])
        lo, hi, step, words = prediction_range(q)
        f.append(f"        {cstr(q.get('x', q['name'] if q['asks'] == 'smallest' else ''))}, {r[0]}, {r[1]}, {r[2]}, "
                 f"{cstr(q.get('yours', ''))}, {cstr(q.get('yours_works', ''))},")
        value_of = f"[]() -> long long {{ return {q['_value_of']}; }}" if "_value_of" in q else "nullptr"
        f.append(f"        {lo}LL, {hi}LL, {step}LL, {cstr(words)}, {cstr(q.get('tma_swizzle', ''))}, {value_of}}},")
        L += f
    L.append("};")
    return L


def questions_test(d, toml_name):
    answers = ("its answers (solutions/" + d["folder"] + "/answers.toml), each checked against the bank model"
               if d["answers"] else "no answers (the student release): each prediction checked for form only, then "
               "skipped as graded by the instructor")
    L = [f"// Generated by tools/lablib/banklab_gen.py from {toml_name} at build time: do not edit. The handout's",
         f"// questions of lab {d['lab']}, with {answers}, by grader::AnswersQuestion.",
         "// The questions live here, not in the description's header: the probe's sandbox sees that one.",
         "#include <string>\n",
         '#include "grader/grader.hpp"',
         '#include "grader/lab_description.hpp"',
         f'#include "grader/lab{d["lab"]}_judge.hpp"\n',
         "namespace {\n"]
    L += question_table(d)
    L.append("\n}  // namespace\n")
    L.append(f"// The at_minimum tests of the description's instructions (lab{d['lab']}_judge.hpp names their warp")
    L.append("// instructions): every warp instruction valid and at the model's minimum.\n")
    L += instruction_tests(d)
    by_test = []
    for i, q in enumerate(d["questions"]):
        if by_test and by_test[-1][0] == q["test"]:
            by_test[-1][1].append(i)
        else:
            by_test.append((q["test"], [i]))
    for test, idx in by_test:
        L.append(f"TEST(Lab{d['lab']}Predictions, {test}) {{")
        for i in idx:
            L.append(f"  BANKLAB_EXPECT(grader::AnswersQuestion(kQuestions[{i}]));")
        if not d["answers"]:
            L.append("  if (!::testing::Test::HasFailure()) GTEST_SKIP() << grader::kGradedByTheInstructor;")
        L.append("}\n")
    return "\n".join(L)


def check_probe(d, probe_path):
    ns = f"lab{d['lab']}_desc"
    text = open(probe_path, encoding="utf-8").read()
    defined = re.findall(r"\b" + ns + r"::((?:table|access|launch)_[A-Za-z0-9_]+)\s*\(", text)
    want = [f"table_{t['name']}" for t in d["tables"]] + [f"access_{t['name']}" for t in d["instructions"]] + \
           [f"launch_{t['launcher']}" for t in d["launches"]]
    missing = [f for f in want if f not in defined]
    extra = [f for f in defined if f not in want]
    dup = sorted({f for f in defined if defined.count(f) > 1})
    problems = []
    if missing:
        problems.append("defines no " + ", ".join(f"{ns}::{f}" for f in missing))
    if extra:
        problems.append("defines " + ", ".join(f"{ns}::{f}" for f in extra) + ", which the description does not have")
    if dup:
        problems.append("defines " + ", ".join(dup) + " twice")
    if problems:
        raise DescriptionError(f"{os.path.basename(probe_path)} " + "; ".join(problems) +
                               " (one function per table, instruction and launch of the description)")


def write_if_changed(path, text):
    try:
        if open(path, encoding="utf-8").read() == text:
            return
    except OSError:
        pass
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


# ---- the trace driver's lab table (tools/trace/tests/lab_driver_labs.inc) ---------------------------

DRIVER_TABLE = os.path.join("tools", "trace", "tests", "lab_driver_labs.inc")


def driver_size(launch):
    """The size the driver launches with: the one with role "traced" (the launch the judge
    traces), else the first."""
    roles = launch.get("roles", [])
    return launch["sizes"][roles.index("traced")] if "traced" in roles else launch["sizes"][0]


def driver_table(root):
    """tools/trace/tests/lab_driver_labs.inc: every lab's kernel.cu, and every launch of every
    description, for tools/trace/tests/lab_driver.cu."""
    from banklab.lab import labs as banklab_labs
    L = ["// Generated by tools/lablib/banklab_gen.py --driver from every labs/NN_name/judge/lab.toml: do not edit",
         "// (a new lab's launches come in by running it again). Included by lab_driver.cu, which defines",
         "// Driver: each row launches a launcher of a description through Driver::run with the size the",
         "// judge traces (role \"traced\", else the first), every dimension times the driver's scale.", ""]
    labs = banklab_labs.find_labs(root)
    for n, lab in labs.items():
        L.append(f'#include "{lab.folder}/kernel.cu"')
    L.append("")
    L.append("inline void drive_labs(const Driver& d) {")
    for n, lab in labs.items():
        d = lab.description
        for t in d.get("launches", []):
            size = ", ".join(str(x) for x in driver_size(t))
            L.append(f'  if (d.want("{n}")) d.run("{d["namespace"]}::{t["launcher"]}", &{d["namespace"]}::{t["launcher"]}, {{{size}}});')
    L.append("}")
    return "\n".join(L) + "\n"


def driver_main(args):
    """banklab_gen.py --driver [--check]: writes (or, with --check, compares) the driver's table."""
    root = str(banklab_labs.repo_root())
    path = os.path.join(root, DRIVER_TABLE)
    try:
        text = driver_table(root)
    except Exception as e:   # a broken description: banklab_labs says which
        print(f"banklab_gen.py --driver: {e}", file=sys.stderr)
        return 1
    if "--check" in args:
        try:
            old = open(path, encoding="utf-8").read()
        except OSError:
            old = None
        if old != text:
            print(f"{DRIVER_TABLE} does not match the labs' descriptions (a launch added, renamed or resized?). "
                  f"Write it again:\n    python3 tools/lablib/banklab_gen.py --driver", file=sys.stderr)
            return 1
        return 0
    write_if_changed(path, text)
    return 0


def main(argv):
    args = argv[1:]
    if args[:1] == ["--mangle"]:
        if len(args) != 4:
            print(__doc__, file=sys.stderr)
            return 2
        try:
            print(mangle(*args[1:]))
        except DescriptionError as e:
            print(f"banklab_gen.py --mangle: {e}", file=sys.stderr)
            return 1
        return 0
    if args[:1] == ["--driver"]:
        return driver_main(args[1:])
    if args[:1] == ["--batch"]:
        # --batch OUTDIR (TOML PROBE ANSWERS)...: every lab in one process (CMake's configure step
        # asks once for all labs; a Python start costs 0.2 s). Stops at the first broken description.
        if len(args) < 2 or (len(args) - 2) % 3:
            print(__doc__, file=sys.stderr)
            return 2
        for k in range(2, len(args), 3):
            rc = main([argv[0], args[k], args[1], "--probe", args[k + 1], "--answers", args[k + 2]])
            if rc:
                return rc
        return 0
    if args[:1] == ["--list-tests"]:
        if len(args) != 2:
            print(__doc__, file=sys.stderr)
            return 2
        folder = banklab_labs.folder_of(args[1])
        try:
            with open(args[1], "rb") as f:
                d = tomllib.load(f)
            check(d)
        except (DescriptionError, tomllib.TOMLDecodeError, OSError) as e:
            print(f"{args[1]}: {e}", file=sys.stderr)
            return 1
        d["lab"] = folder[:2]
        print("\n".join(test_names(d)))
        return 0
    opts = {}
    for flag in ("--probe", "--answers"):
        if flag in args:
            k = args.index(flag)
            opts[flag] = args[k + 1]
            del args[k:k + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    toml_path, outdir = args
    probe, answers_path = opts.get("--probe"), opts.get("--answers")
    folder = banklab_labs.folder_of(toml_path)
    jdir = os.path.dirname(os.path.abspath(toml_path))
    rel_dir = f"labs/{folder}/judge" if os.path.basename(jdir) == banklab_labs.JUDGE else f"{banklab_labs.RELEASE_JUDGE}/{folder}"
    name = f"{rel_dir}/{os.path.basename(toml_path)}"
    try:
        m = re.fullmatch(r"(\d\d)_[a-z0-9_]+", folder)
        if not m:
            raise DescriptionError(f"the description's folder {folder!r} is not named NN_name")
        try:
            with open(toml_path, "rb") as f:
                d = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise DescriptionError(f"not valid TOML: {e}") from None
        answers = None
        if answers_path and os.path.exists(answers_path):
            try:
                with open(answers_path, "rb") as f:
                    answers = tomllib.load(f)
            except tomllib.TOMLDecodeError as e:
                raise DescriptionError(f"{answers_path}: not valid TOML: {e}") from None
        check(d, answers)
        d["lab"], d["folder"], d["judge_dir"] = m.group(1), folder, rel_dir
        if probe:
            check_probe(d, probe)
    except DescriptionError as e:
        print(f"{toml_path}: {e}", file=sys.stderr)
        return 1
    os.makedirs(os.path.join(outdir, "grader"), exist_ok=True)
    write_if_changed(os.path.join(outdir, "grader", f"lab{d['lab']}_description.hpp"), header(d, name))
    write_if_changed(os.path.join(outdir, "grader", f"lab{d['lab']}_probe.hpp"), probe_header(d, name))
    write_if_changed(os.path.join(outdir, "grader", f"lab{d['lab']}_judge.hpp"), judge_header(d, name))
    write_if_changed(os.path.join(outdir, f"lab{d['lab']}_questions_test.cpp"), questions_test(d, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
