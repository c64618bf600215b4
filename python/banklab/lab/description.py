"""A lab's description (labs/NN_name/judge/lab.toml) checked: its keys, types, ops, widths,
expressions, names and questions (docs/dev/LAB_CONTRACT.md, "The lab's description"). A broken
one raises DescriptionError naming the file and the key. banklab.lab.gen writes the C++ from a
checked description."""
import os
import re
import sys

try:
    import tomllib
except ImportError:  # before Python 3.11
    sys.exit("python/banklab/lab/gen.py needs Python 3.11 or newer (tomllib) to read the labs' descriptions")

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
       "kernels": ("tables", False),
       "variants": (dict, False)}   # variants: per-student variants, checked by banklab.lab.variants (docs/dev/VARIANTS.md)
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


# One error for a broken description or answers file, wherever it is found (labs.py reads and
# validates the files; this module checks what they say).
DescriptionError = banklab_labs.DescriptionError


# ---- the lane-expression language: python/banklab/lab/expr.py, the C++ evaluator's twin ---------
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




def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
