"""A lab's description (labs/NN_name/judge/lab.toml) checked: its keys, types, ops, widths,
expressions, names and questions (docs/dev/LAB_CONTRACT.md, "The lab's description"). A broken
one raises DescriptionError naming the file and the key. banklab.lab.gen writes the C++ from a
checked description."""
import re
import sys

if sys.version_info < (3, 11):  # tomllib, which the labs' descriptions need
    sys.exit("python/banklab/lab/gen.py needs Python 3.11 or newer (tomllib) to read the labs' descriptions")

# The lane-expression language and the op table: banklab/lab/expr.py.
from banklab.lab import expr as banklab_expr  # noqa: E402
# The description's keys as data, their one check of shape and the one error class: banklab/lab/schema.py.
from banklab.lab.schema import (  # noqa: E402
    DescriptionError, ANSWER, ASKS, NEEDS, ANSWER_NEEDS, ROLES, check_keys, check_shape, at_minimum_tests)
# The GPU tier's keys (timing, [gpu]), what they say: banklab/lab/gpu_tier.py.
from banklab.lab import gpu_tier  # noqa: E402
from banklab.lab.predictions import check_question_keys, prediction_range, table_value  # noqa: E402

OPS = banklab_expr.OPS   # op -> its widths, read from the model (common/include/banklab/model.hpp)


# ---- the lane-expression language: python/banklab/lab/expr.py, the C++ evaluator's twin ---------
# (its grammar, C semantics and messages; tested against tools/lib/src/expr.cpp by the CTest
# cli.ExprPythonAgreesWithCpp). The ops and their widths are the model's (banklab.lab.expr.OPS).

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

def unique(where, names, what):
    seen = set()
    for n in names:
        if n in seen:
            raise DescriptionError(f"{where}: two {what} named {n!r}")
        seen.add(n)


def check(d, answers=None):
    """The one validator of a description: checks description `d` (parsed; its shape against
    banklab.lab.schema, then what its keys say) and, when given (the instructor's tree), its answers
    {name: {...}}, which it merges into the questions (d["answers"] says whether there were any).
    Adds what the generator needs (d["constants"], d["kernels"] with each symbol, d["_hints"], ...)."""
    check_shape(d)
    d["constants"] = d["probe"]["constants"]
    unique("[probe] constants", d["constants"], "constants")
    unique("[[tables]]", [t["name"] for t in d["tables"]], "tables")
    for n, t in enumerate(d["instructions"], 1):
        check_op(f"[[instructions]] #{n} ({t['name']})", t)
    unique("[[instructions]]", [t["name"] for t in d["instructions"]], "instructions")
    check_instruction_tests(d)
    check_kernels(d)
    for n, t in enumerate(d["launches"], 1):
        check_launch(f"[[launches]] #{n} ({t['launcher']})", t)
    unique("[[launches]]", [t["launcher"] for t in d["launches"]], "launches of the launcher")
    gpu_tier.check(d)
    check_questions(d, answers)
    check_asked(d)


def check_op(w, t):
    """An instruction's op is the model's, and its width one the op takes."""
    if t["op"] not in OPS:
        raise DescriptionError(f"{w}: key 'op' = {t['op']!r} is not one of {', '.join(OPS)}")
    if t["width"] not in OPS[t["op"]]:
        raise DescriptionError(f"{w}: key 'width' = {t['width']}: {t['op']} takes {', '.join(map(str, OPS[t['op']]))}")


def check_kernels(d):
    """[[kernels]]: each one's symbol (d["kernels"][i]["symbol"]); every instruction and launch names one of them."""
    d["kernels"] = d.get("kernels", [])
    for n, k in enumerate(d["kernels"], 1):
        try:
            k["symbol"] = mangle(d["namespace"], k["name"], k["params"])
        except DescriptionError as e:
            raise DescriptionError(f"[[kernels]] #{n} ({k['name']}): key 'params': {e}") from None
    unique("[[kernels]]", [k["name"] for k in d["kernels"]], "kernels")
    known = {k["name"] for k in d["kernels"]}
    if known:
        for t in d["instructions"] + d["launches"]:
            if t["kernel"] not in known:
                raise DescriptionError(f"kernel {t['kernel']!r} (of {t.get('name', t.get('launcher'))}) has no [[kernels]] "
                                       f"entry: add one with name = {t['kernel']!r} and its params as kernel.cu declares them")


def check_launch(w, t):
    """A launch's sizes have as many numbers each, and its roles are one per size, each once."""
    if len({len(s) for s in t["sizes"]}) != 1:
        raise DescriptionError(f"{w}: key 'sizes': every size must have as many numbers")
    if "roles" in t:
        if len(t["roles"]) != len(t["sizes"]):
            raise DescriptionError(f"{w}: key 'roles' must have one role per size")
        for r in t["roles"]:
            if r not in ROLES:
                raise DescriptionError(f"{w}: key 'roles': {r!r} is not one of {', '.join(ROLES)}")
        unique(f"{w} roles", t["roles"], "sizes with the role")


def check_questions(d, answers):
    """[[questions]], in order, each with its answer when there are answers; every answer a question's."""
    names, tests = [], []
    for n, q in enumerate(d["questions"], 1):
        w = f"[[questions]] #{n} ({q['name']})"
        check_question(w, q, answers, names, d)
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


def needed_keys(w, table, asks, need, may, always=()):
    """The keys a question (or its answer) must and may have for its kind `asks`."""
    for k in need:
        if k not in table:
            raise DescriptionError(f"{w}: missing key {k!r} (asks = {asks!r} needs {', '.join(sorted(need))})")
    for k in set(table) - need - may - set(always):
        raise DescriptionError(f"{w}: key {k!r} does not go with asks = {asks!r}")


def check_question(w, q, answers, names, d):
    """One question (`names`: the questions before it), its answer merged in where there are answers."""
    if q["asks"] not in ASKS:
        raise DescriptionError(f"{w}: key 'asks' = {q['asks']!r} is not one of {', '.join(ASKS)}")
    need, may = NEEDS[q["asks"]]
    needed_keys(w, q, q["asks"], need, may, ("name", "test", "asks", "hint"))
    if answers is not None:
        a = answers.get(q["name"])
        if not isinstance(a, dict):
            raise DescriptionError(f"{w}: no answer: add a table [{q['name']}] to solutions/<lab>/answers.toml")
        aw = f"answers.toml [{q['name']}]"
        check_keys(aw, a, ANSWER)
        needed_keys(aw, a, q["asks"], *ANSWER_NEEDS[q["asks"]])
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
    if "access" in q:
        in_key(w, "access", check_access, q["access"], q.get("x_range"))
    if "mask" in q:
        if not re.fullmatch(r"0x[0-9a-fA-F]{1,8}", q["mask"]) or int(q["mask"], 16) == 0:
            raise DescriptionError(f"{w}: key 'mask' = {q['mask']!r} is not a non-zero hexadecimal mask (\"0x0000ffff\")")
    if "value" in q:
        check_value(w, q, d)
    if "what" in q:
        in_key(w, "what", what_parts, q["what"], has_x)


def in_key(w, key, fn, *args):
    """fn(*args), its DescriptionError named by the entry `w` and key `key`."""
    try:
        return fn(*args)
    except DescriptionError as e:
        raise DescriptionError(f"{w}: key {key!r}: {e}") from None


def check_access(line, x_range):
    """An access line parses (over lane, and x where there is an x_range), and gives every lane an
    offset inside shared memory for every x."""
    op, width, expr = split_access(line)
    e = parse_expr(expr, ("lane", "x") if x_range else ("lane",))
    for x in (range(x_range[0], x_range[1] + 1, x_range[2]) if x_range else [0]):
        for lane in range(32):
            try:
                off = e.eval(lane=lane, x=x)
            except banklab_expr.ExprError as err:
                raise DescriptionError(str(err)) from None
            if not 0 <= off <= 0xffffffff:
                raise DescriptionError(f"lane {lane}{f', x = {x}' if x_range else ''}: offset {off} is outside shared memory")


def check_value(w, q, d):
    """A value answer: its number (q["_value"]) within the question's range, or the C++ that reads
    the student's own layout (q["_value_of"]; banklab.lab.predictions.table_value)."""
    plain, value_of = table_value(q["value"], {t["name"] for t in d.get("tables", [])}, cstr)
    q["_value"] = in_key(w, "value", eval_expr, plain)
    if value_of:
        q["_value_of"] = value_of
    else:
        lo, hi, step, _ = prediction_range(q)
        if not (lo <= q["_value"] <= hi and (q["_value"] - lo) % step == 0):
            raise DescriptionError(f"{w}: the answer is outside the question's range {q['range']}")


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


def check_instruction_tests(d):
    """index, label and at_minimum of each instruction (see the description's format comment);
    d["_hints"]: each at_minimum test's own hint."""
    tests, hints = {}, {}
    for n, t in enumerate(d["instructions"], 1):
        w = f"[[instructions]] #{n} ({t['name']})"
        check_index_and_label(w, t, d["constants"])
        ams = at_minimum_tests(t)
        if ams and "label" not in t:
            raise DescriptionError(f"{w}: key 'at_minimum' needs key 'label': a failure names the worst warp "
                                   "instruction by its label")
        for k, am in enumerate(ams, 1):
            check_at_minimum(f"{w} at_minimum #{k}", am, t, tests, hints)
    d["_hints"] = hints


def check_asked(d):
    """Each at_minimum's `asked` names questions of the lab (after the questions' own checks)."""
    names = {q["name"] for q in d["questions"]}
    for n, t in enumerate(d["instructions"], 1):
        for k, am in enumerate(at_minimum_tests(t), 1):
            for name in am.get("asked", []):
                if name not in names:
                    raise DescriptionError(f"[[instructions]] #{n} ({t['name']}) at_minimum #{k}: key 'asked': "
                                           f"{name!r} is not a question of the lab (a [[questions]] name)")


def check_index_and_label(w, t, consts):
    """An instruction's index names (one per dim, none a constant's) and its label (t["_label"])."""
    index = t.get("index")
    if index is not None:
        if len(index) != len(t["dims"]):
            raise DescriptionError(f"{w}: key 'index' names {len(index)} indices for {len(t['dims'])} dims: "
                                   "one name per dimension, in the order of dims")
        for v in index:
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


def check_at_minimum(aw, am, t, tests, hints):
    """One at_minimum test `am` of instruction `t` (`tests`, `hints`: those above, this one added)."""
    index = t.get("index") or []
    if ("hint" in am) == ("hint_of" in am):
        raise DescriptionError(f"{aw}: give either 'hint' (what to try, never the answer) or 'hint_of' "
                               "(an instruction above whose hint fits this one too)")
    if "hint_of" in am and am["hint_of"] not in hints:
        raise DescriptionError(f"{aw}: key 'hint_of' = {am['hint_of']!r} names no at_minimum test above with "
                               "a hint of its own")
    for v, x in am.get("only", {}).items():
        if v not in index:
            raise DescriptionError(f"{aw}: key 'only': {v!r} is not one of key 'index' [{', '.join(index)}]")
        if type(x) is not int or x < 0:
            raise DescriptionError(f"{aw}: key 'only': {v} = {x!r} must be an index (an integer >= 0)")
    if am["test"] in tests:
        raise DescriptionError(f"{aw}: key 'test' = {am['test']!r} is already the test of "
                               f"{tests[am['test']]}: one test per at_minimum")
    tests[am["test"]] = t["name"]
    if "hint" in am:
        hints[am["test"]] = am["hint"]


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
