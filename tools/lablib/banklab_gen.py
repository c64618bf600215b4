#!/usr/bin/env python3
"""Generates a lab's C++ from its description (docs/dev/LAB_CONTRACT.md, "The lab's description").

    banklab_gen.py labs/05_swizzle/lab.toml OUTDIR [--probe labs/05_swizzle/probe.cu]
                   [--answers solutions/05_swizzle/answers.toml]

writes, only when their text changes:
  OUTDIR/lab05_description.hpp   the description as C++ data (standard library only: the judge's
                                 header snapshot gives it to the probe's compile), and, under
                                 BANKLAB_PROBE (defined by grader/probe.hpp), the probe's main():
                                 every constant, table, instruction, prediction and launcher call,
                                 each calling a function that labs/05_swizzle/probe.cu defines
  OUTDIR/lab05_questions_test.cpp one TEST(Lab05Predictions, <test>) per question, each calling
                                 grader::AnswersQuestion (grader/judge/checks.cpp)

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

# The lane-expression language and the op table: tools/lablib/banklab_expr.py (found next to this
# file, or in tools/lablib from grader/).
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, next((d for d in (_HERE, os.path.join(_HERE, "..", "tools", "lablib"))
                         if os.path.isfile(os.path.join(d, "banklab_expr.py"))), _HERE))
import banklab_expr  # noqa: E402

OPS = banklab_expr.OPS   # op -> its widths, read from the model (common/include/banklab/model.hpp)
ASKS = ("wavefronts", "value", "excess_wavefronts", "smallest")
ROLES = ("correct", "traced", "timing", "perf")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# key: (type, required). Types: str, int, list-of-str, ...
TOP = {"title": (str, True), "summary": (str, True),
       "namespace": (str, True), "points": (dict, True), "selftest": (dict, False), "probe": (dict, True), "tables": ("tables", True),
       "instructions": ("tables", True), "launches": ("tables", True), "questions": ("tables", True)}
PROBE = {"constants": ("strs", True)}
TABLE = {"name": (str, True), "dims": ("dims", True)}
INSTRUCTION = {"name": (str, True), "kernel": (str, True), "op": (str, True), "width": (int, True),
               "dims": ("dims", True), "what": (str, True)}
LAUNCH = {"launcher": (str, True), "kernel": (str, True), "sizes": ("sizes", True), "roles": ("strs", False)}
QUESTION = {"name": (str, True), "test": (str, True), "asks": (str, True), "what": (str, False), "hint": (str, True),
            "x": (str, False), "x_range": ("ints", False), "yours": (str, False), "yours_works": (str, False)}
# A question's answer (solutions/NN_name/answers.toml, a table named by the question).
ANSWER = {"access": (str, False), "mask": (str, False), "value": (str, False)}
# What each kind of question needs (besides name, test, asks, hint) and may have: in the
# description, and in its answer.
NEEDS = {"wavefronts": ({"what"}, {"x", "x_range"}),
         "value": (set(), set()),
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
              "tables": lambda v: isinstance(v, list)}[typ](v)
        if not ok:
            what = {str: "a string", int: "an integer", dict: "a table", "strs": "a list of strings",
                    "ints": "a list of integers", "dims": "a non-empty list of C++ expressions (strings)",
                    "sizes": "a non-empty list of lists of positive integers", "tables": "an array of tables"}[typ]
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
            try:
                q["_value"] = eval_expr(q["value"])
            except DescriptionError as e:
                raise DescriptionError(f"{w}: key 'value': {e}") from None
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
    # The probe's part.
    L.append("#ifdef BANKLAB_PROBE")
    L.append(f"// The probe's main(): compiled after the student's kernel.cu (namespace {d['namespace']}) and")
    L.append(f"// grader/probe.hpp. labs/{d['folder']}/probe.cu defines each function declared here: the only")
    L.append("// code of the probe that calls the student's functions.")
    L.append(f"namespace {ns} {{")
    for t in d["tables"]:
        L.append(f"long long table_{t['name']}(const int* i);")
    for t in d["instructions"]:
        L.append(f"long long access_{t['name']}(const int* i, int lane);")
    for t in d["launches"]:
        L.append(f"void launch_{t['launcher']}(const probe::Call& call);")
    L.append(f"}}  // namespace {ns}\n")
    L.append("int main(int argc, char** argv) {")
    L.append(f"  using namespace {d['namespace']};")
    L.append(f"  probe::Writer w(argc, argv, {ns}::kLab);")
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
        L.append(f"  probe::kernel({t['kernel']});")
        L.append(f"  for (const auto& s : {ns}::kLaunches[{n}].sizes)")
        L.append(f"    if (!probe::Call(w, {cstr(t['launcher'])}, s).run({ns}::launch_{t['launcher']})) return 5;")
    L.append("  return 0;")
    L.append("}")
    L.append("#endif  // BANKLAB_PROBE")
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
        f.append(f"        {cstr(q.get('x', q['name'] if q['asks'] == 'smallest' else ''))}, {r[0]}, {r[1]}, {r[2]}, "
                 f"{cstr(q.get('yours', ''))}, {cstr(q.get('yours_works', ''))}}},")
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
         '#include "grader/lab_description.hpp"\n',
         "namespace {\n"]
    L += question_table(d)
    L.append("\n}  // namespace\n")
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
            L.append("  GTEST_SKIP() << grader::kGradedByTheInstructor;")
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


def main(argv):
    args = argv[1:]
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
    folder = os.path.basename(os.path.dirname(os.path.abspath(toml_path)))
    name = f"labs/{folder}/{os.path.basename(toml_path)}"
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
        d["lab"], d["folder"] = m.group(1), folder
        if probe:
            check_probe(d, probe)
    except DescriptionError as e:
        print(f"{toml_path}: {e}", file=sys.stderr)
        return 1
    os.makedirs(os.path.join(outdir, "grader"), exist_ok=True)
    write_if_changed(os.path.join(outdir, "grader", f"lab{d['lab']}_description.hpp"), header(d, name))
    write_if_changed(os.path.join(outdir, f"lab{d['lab']}_questions_test.cpp"), questions_test(d, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
