#!/usr/bin/env python3
"""The two lane-expression evaluators agree: python/banklab/lab/expr.py (Python) and
tools/lib/src/expr.cpp (C++, the reference; through tools/tests/expr_driver.cpp).

On the same expressions, for lanes 0..31, both must give the same value or the same error (column
and message), and both must build the same access (op, width, mask, offsets) or refuse it with the
same message. The expressions:
  - CORPUS below: every operator, precedence and associativity corners, C's negative division and
    remainder, shifts, overflow at the 64-bit edges, numbers, spaces, and syntax errors;
  - every access line of the labs and the docs: the descriptions' questions (`access`, with each x
    of their `x_range`, and `value`), the `@explore` lines of the labs' figures.txt and each
    `banklab explain OP WIDTH "EXPR"` of the handouts and the docs;
  - the fuzzer's regression inputs that are lane expressions (tools/fuzz/regressions);
  - seeded random expressions (--seed, --count): well-formed ones and mutated ones.
An expression with x (a question's unknown) is compared with x written as a number, "(x)", since
the C++ language has only `lane`; and Python's own x gives the same values.
The op table: banklab.lab.expr.OPS (read from the model's C++ source) equals the compiled model's.

  expr_differential.py --driver build/.../banklab_expr_driver --root . [--seed 22] [--count 3000]
"""
import argparse
import glob
import html
import os
import random
import re
import shlex
import subprocess
import sys

try:
    import tomllib
except ImportError:  # before Python 3.11
    sys.exit("expr_differential.py needs Python 3.11 or newer (tomllib)")

# Every operator, each precedence pair, associativity, C's division, edges and errors. The x-free
# cases are evaluated for lanes 0..31 by both; "x" cases for the x values of X_VALUES.
CORPUS = [
    # numbers and the variable
    "0", "7", "007", "42", "0x0", "0x1f", "0X1F", "0xFFFFFFFF", "0x7fffffffffffffff", "9223372036854775807",
    "lane", " lane ", "\tlane\t", "lane*4", "lane * 4", "lane*17*4", "(lane*32+5)*4", "lane*128+3*16",
    # each operator
    "lane+1", "lane-1", "lane*3", "lane/3", "lane%3", "lane&5", "lane|5", "lane^5", "lane<<2", "lane>>1",
    "-lane", "+lane", "~lane", "--lane", "-+-lane", "~~lane", "~-lane", "-~lane", "+(+lane)",
    # precedence: each level against the next
    "1|2^3", "1^2|3", "6^3&5", "6&3^5", "1&2<<1", "1<<2&4", "1<<2+1", "1+2<<1", "2+3*4", "2*3+4",
    "2-3*4", "10-4/2", "10/4-2", "7%4+1", "1+7%4", "lane+1<<2", "lane*2|1", "lane|1*2", "lane^lane&1",
    "-lane*2", "-lane%3", "~lane&31", "-2*-3", "-(2*3)", "~0<<1", "1|2|4|8", "1^3^7", "256>>2>>1",
    "1<<2<<3", "100-10-1", "100/10/2", "100%7%3", "2*3%4", "2%3*4", "lane<<1>>1", "lane-(-1)",
    # parentheses
    "(lane)", "((lane))", "(((((lane+1)))))", "(lane+1)*(lane+2)", "((lane&7)^3)<<4",
    "lane*64 + ((1 ^ (lane & 3)) << 4)", "(lane%16)*128+(lane/16)*16", "(lane/8)*32*4",
    "((lane >> 3) * 32 + (lane & 7)) * 16", "lane * (16 + 3) * 4",
    # C's truncating division and remainder (Python's // and % floor instead)
    "-7/2", "-7%2", "7/-2", "7%-2", "-7/-2", "-7%-2", "(lane-16)/3", "(lane-16)%3", "(16-lane)/-5",
    "(16-lane)%-5", "-lane/4", "-lane%4", "(lane-31)/32", "(lane-31)%32", "-1/2", "-1%2", "0/-1", "0%-1",
    "(-9223372036854775807-1)/1", "(-9223372036854775807-1)%-1", "(-9223372036854775807-1)/-1",
    # shifts at the edges
    "1<<62", "1<<63", "1<<-1", "lane<<62", "2<<61", "3<<61", "-1<<1", "-lane<<1", "-8>>1", "-1>>62",
    "-1>>63", "lane>>62", "lane>>-1", "lane<<(lane-1)", "1<<lane", "0x7fffffffffffffff>>62",
    "0x3fffffffffffffff<<1", "0x4000000000000000<<1", "0<<62",
    # overflow at the 64-bit edges
    "9223372036854775807+1", "9223372036854775807+lane", "-9223372036854775807-1", "-9223372036854775807-2",
    "-(-9223372036854775807-1)", "-9223372036854775807-1-lane", "4611686018427387904*2", "3037000500*3037000500",
    "3037000499*3037000499", "(-9223372036854775807-1)*-1", "-9223372036854775807*lane", "~9223372036854775807",
    "9223372036854775808", "99999999999999999999", "0x8000000000000000", "0xffffffffffffffffff",
    # division by zero, per lane
    "1/0", "1%0", "lane/0", "32/lane", "32%lane", "1/(lane-3)", "1%(lane&1)", "(1/0)+(1%0)", "(1%0)+(1/0)",
    # spaces
    "  1 +  2 ", "1\t+\t2", "lane *4", "lane* 4", "- 1", "~ 1", "1 < < 2", "1 << 2", "( lane )",
    # syntax errors: what the C++ refuses, Python refuses, with the same column and message
    "", " ", "\t", "(", ")", "()", "(1", "1)", "((1)", "(1))", "1+", "+", "-", "~", "*1", "1*", "1**2",
    "1//2", "1 2", "lane lane", "1 lane", "lane(1)", "2(lane)", "1 < 2", "1 > 2", "1<2", "1>>>2", "1<<<2",
    "1||2", "1&&2", "1^^2", "!1", "1 == 2", "1,2", "1.5", "1e3", "0x", "0xg", "0x1g", "12ab", "0b101",
    "1_000", "x", "X", "Lane", "LANE", "lane2", "_", "lane_", "row*32", "lane*S*4", "EXPR", "lane*",
    "lane+(", "lane+()", "(lane", "lane)", "[lane]", "{lane}", "lane;", "lane\n", "\nlane", "lane\r",
    "lane$", "lane @ 2", "'lane'", '"lane"', "lane\x00", "lane\x7f", "la ne", "l\u00e9ne", "\u00e9",
    "lane*4 # comment", "0x-1", "-0x1", "0x 1", "1 0", "(((((((((((((((((((((lane",
    "1 +", "(1 +", "(1 + 2", "(1 + 2))", ")1(", "a+b", "lane*x", "x*lane",
    # depth and length limits
    "(" * 199 + "1" + ")" * 199, "(" * 200 + "1" + ")" * 200, "(" * 201 + "1" + ")" * 201,
    "-" * 199 + "1", "-" * 200 + "1", "~" * 200 + "lane", "+" * 250 + "1", "(" * 300,
    "1" + "+1" * 2047, "1" + "+1" * 2048, "lane" + " " * 4092, "lane" + " " * 4093,
    "+".join(["lane"] * 800),
]

# (op, width, mask, expression): the access as a whole (op, width, mask and the model's checks).
ACCESS_CORPUS = [
    ("ld", "4", "ffffffff", "lane*4"), ("ld", "4", "0xffffffff", "lane*17*4"), ("st", "8", "0000ffff", "lane*8"),
    ("ld", "4", "1", "lane*4"), ("ld", "4", "0", "lane*4"), ("ld", "4", "0x0000ffff", "(lane-16)*4"),
    ("ld", "4", "ffff0000", "(lane-16)*4"), ("ld", "4", "ffffffff", "(lane-16)*4"), ("ld", "4", "ffffffff", "lane*2"),
    ("ld", "16", "ffffffff", "lane*8"), ("ld", "4", "ffffffff", "232448-lane*4"), ("ld", "4", "ffffffff", "232444"),
    ("ld", "4", "ffffffff", "232448"), ("ld", "1", "ffffffff", "232448"), ("ld", "1", "ffffffff", "232447"),
    ("ld", "4", "ffffffff", "232452"), ("ld", "4", "ffffffff", "lane*1000000"), ("ld", "4", "ffffffff", "1/(lane-5)"),
    ("ld", "4", "ffffffdf", "4/(lane-5)*4"), ("ld", "4", "ffffffff", "x"), ("ld", "4", "ffffffff", ""),
    ("ldsm", "16", "ffffffff", "(lane%16)*128+(lane/16)*16"), ("ldsm", "8", "ffffffff", "lane*8"),
    ("stsm", "16", "000000ff", "lane*16"), ("cpasync", "4", "ffffffff", "lane*4"), ("cpasync", "2", "ffffffff", "lane*2"),
    ("atom", "8", "ffffffff", "lane*8"), ("atom", "16", "ffffffff", "lane*16"), ("atominc", "4", "ffffffff", "0"),
    ("atominc", "8", "ffffffff", "0"), ("atomcas", "8", "ffffffff", "lane*8"), ("atomexch", "4", "ffffffff", "lane*4"),
    ("atomloop", "8", "ffffffff", "lane*8"), ("atomloop", "1", "ffffffff", "lane"),
    ("lds", "4", "ffffffff", "lane*4"), ("LD", "4", "ffffffff", "lane*4"), ("", "4", "ffffffff", "lane*4"),
    ("ld", "3", "ffffffff", "lane*4"), ("ld", "32", "ffffffff", "lane*4"), ("ld", "-4", "ffffffff", "lane*4"),
    ("ld", "+4", "ffffffff", "lane*4"), ("ld", "04", "ffffffff", "lane*4"), ("ld", "4.0", "ffffffff", "lane*4"),
    ("ld", "", "ffffffff", "lane*4"), ("ld", "99999999999", "ffffffff", "lane*4"), ("ld", "four", "ffffffff", "lane*4"),
    ("ld", "4", "", "lane*4"), ("ld", "4", "0x", "lane*4"), ("ld", "4", "0x1ffffffff", "lane*4"), ("ld", "4", "fffffffff", "lane*4"),
    ("ld", "4", "-1", "lane*4"), ("ld", "4", "0xg", "lane*4"), ("ld", "4", "0X0000FFFF", "lane*4"),
    ("ld", "4", "ffffffff", "lane*\u00e9"),
]

X_VALUES = (-3, 0, 1, 2, 7, 32)
X_WORD = re.compile(r"\bx\b")


def hexed(s):
    return s.encode("utf-8", "surrogateescape").hex() or "."


def python_expr_line(banklab_expr, text):
    try:
        e = banklab_expr.Expr(text)
    except banklab_expr.ExprError as err:
        return f"E\t{err.column}\t{err}"
    out = ["V"]
    for lane in range(32):
        try:
            out.append(str(e.eval(lane=lane)))
        except banklab_expr.ExprError as err:
            out.append(f"!{err.column}!{err}")
    return "\t".join(out)


def python_access_line(banklab_expr, op, width, mask, text):
    try:
        o = banklab_expr.parse_op(op)
        w = banklab_expr.parse_width(width)
        banklab_expr.check_width(o, w)
        m = banklab_expr.parse_mask(mask)
        a = banklab_expr.access(o, w, m, text)
    except banklab_expr.ExprError as err:
        return f"E\t{err.column}\t{err}"
    return "\t".join(["A", a.op, str(a.width), str(a.mask)] + [str(v) for v in a.offsets])


# ---- the access lines of the labs and the docs ---------------------------------------------------

def tables_with_access(node):
    """Every table of a description (at any depth) with an `access` or a `value` key."""
    if isinstance(node, dict):
        if "access" in node or "value" in node:
            yield node
        for v in node.values():
            yield from tables_with_access(v)
    elif isinstance(node, list):
        for v in node:
            yield from tables_with_access(v)


def description_lines(root):
    """(where, op, width, mask, expression, x values or None) of every question's access, and
    (where, expression) of every `value`, in the labs' descriptions, old layout and new."""
    accesses, values = [], []
    files = sorted(glob.glob(os.path.join(root, "grader", "lab*.toml")) +
                   glob.glob(os.path.join(root, "labs", "*", "lab.toml")) +
                   glob.glob(os.path.join(root, "labs", "*", "judge", "lab.toml")) +
                   glob.glob(os.path.join(root, "solutions", "*", "answers.toml")))
    for path in files:
        with open(path, "rb") as f:
            d = tomllib.load(f)
        rel = os.path.relpath(path, root)
        for q in tables_with_access(d):
            acc = q.get("access")
            r = q.get("x_range")
            xs = list(range(r[0], r[1] + 1, r[2])) if isinstance(r, list) and len(r) == 3 and r[2] > 0 else None
            for line in ([] if acc is None else acc if isinstance(acc, list) else [acc]):
                parts = line.split(None, 2) if isinstance(line, str) else []
                if len(parts) == 3:
                    accesses.append((f"{rel} {q.get('name')}", parts[0], parts[1], q.get("mask", "ffffffff"),
                                     parts[2], xs))
            if isinstance(q.get("value"), str) and not re.search(r"[A-Za-z_]\w*\s*\(", q["value"]):  # not one reading a table
                values.append((f"{rel} {q.get('name')} value", q["value"]))
    return accesses, values, len(files)


def doc_lines(root):
    """(where, op, width, mask, expression) of each `@explore` line and each `banklab explain`."""
    out = []
    for path in sorted(glob.glob(os.path.join(root, "**", "figures.txt"), recursive=True)):
        if "/build" in path:
            continue
        for n, raw in enumerate(open(path, encoding="utf-8"), 1):
            if raw.startswith("@explore "):
                parts = [p.strip() for p in raw[len("@explore "):].split("|")]
                spec = parts[0].split(None, 2)
                if len(spec) == 3:
                    out.append((f"{os.path.relpath(path, root)}:{n}", spec[0], spec[1],
                                parts[1] if len(parts) > 1 and parts[1] else "ffffffff", spec[2]))
    pat = re.compile(r'banklab explain ([a-z]+) (\d+) "([^"\n]*)"')
    sources = [os.path.join(root, "README.md")]
    for top in ("docs", "labs", "solutions", "grader", "tools", "instructor"):
        for ext in ("md", "txt", "html", "toml", "py", "cpp", "hpp", "cu"):
            sources += glob.glob(os.path.join(root, top, "**", f"*.{ext}"), recursive=True)
    for path in sorted(set(sources)):
        if os.path.abspath(path) == os.path.abspath(__file__) or not os.path.isfile(path):
            continue
        text = html.unescape(open(path, encoding="utf-8", errors="replace").read())
        for m in pat.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((f"{os.path.relpath(path, root)}:{line}", m.group(1), m.group(2), "ffffffff", m.group(3)))
    return out


# ---- random expressions --------------------------------------------------------------------------

def random_expr(rng, depth=0):
    r = rng.random()
    if depth > 6 or r < 0.3:
        k = rng.random()
        if k < 0.35:
            return "lane"
        if k < 0.75:
            return str(rng.choice([0, 1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 62, 63, 64, 127, 128, 1024]))
        if k < 0.85:
            return hex(rng.choice([0, 1, 15, 0x1F, 0x80, 0xFFFF, 0x7FFFFFFFFFFFFFFF]))
        return str(rng.choice([2**31, 2**32, 2**62, 2**63 - 1, 3037000499, 3037000500]))
    if r < 0.45:
        return rng.choice(["-", "+", "~"]) + random_expr(rng, depth + 1)
    if r < 0.55:
        return "(" + random_expr(rng, depth + 1) + ")"
    op = rng.choice(["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"])
    sp = rng.choice(["", "", " ", "\t"])
    return random_expr(rng, depth + 1) + sp + op + sp + random_expr(rng, depth + 1)


def mutate(rng, text):
    pieces = ["(", ")", "+", "-", "<", ">", "x", "0x", "9", " ", "lane", "**", "|", "#", "\u00e9", ""]
    i = rng.randrange(len(text) + 1)
    j = min(len(text), i + rng.randrange(3))
    return text[:i] + rng.choice(pieces) + text[j:]


# ---- the comparison ------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--count", type=int, default=3000)
    a = ap.parse_args()
    from banklab.lab import expr as banklab_expr  # noqa: E402

    exprs = []        # (where, text)
    accesses = []     # (where, op, width, mask, text)
    x_checks = []     # (where, op, width, mask, text, x): Python's x against the C++ with x written in
    exprs += [("corpus", t) for t in CORPUS]
    accesses += [("access corpus", *c) for c in ACCESS_CORPUS]
    desc, values, n_files = description_lines(a.root)
    for where, op, width, mask, text, xs in desc:
        exprs.append((where, text))
        if re.search(r"\bx\b", text):
            for x in (xs or []) + list(X_VALUES):
                sub = re.sub(r"\bx\b", f"({x})", text)
                exprs.append((f"{where}, x = {x}", sub))
                accesses.append((f"{where}, x = {x}", op, width, mask, sub))
                x_checks.append((f"{where}, x = {x}", op, width, mask, text, x))
        else:
            accesses.append((where, op, width, mask, text))
    exprs += values
    # The fuzzer's lane-expression inputs (tools/fuzz/fuzz_target.cpp: kind byte 2, then op, width
    # and mask bytes, then the expression).
    for path in sorted(glob.glob(os.path.join(a.root, "tools", "fuzz", "regressions", "*"))):
        data = open(path, "rb").read()
        if len(data) >= 4 and data[0] == 2:
            exprs.append((f"fuzz regression {os.path.basename(path)}", data[4:].decode("utf-8", "surrogateescape")))
    docs = doc_lines(a.root)
    for where, op, width, mask, text in docs:
        exprs.append((where, text))
        accesses.append((where, op, width, mask, text))
    for t in ("lane*x", "x*lane", "(lane+x)*4", "x", "lane*(32+x)*4", "x/2", "x%3", "lane<<x", "-x"):
        for x in X_VALUES:
            x_checks.append(("x corpus", "ld", "4", "ffffffff", t, x))
    rng = random.Random(a.seed)
    for n in range(a.count):
        t = random_expr(rng)
        exprs.append((f"random #{n} (seed {a.seed})", t))
        exprs.append((f"random #{n} mutated (seed {a.seed})", mutate(rng, t)))
        if n % 10 == 0:
            accesses.append((f"random #{n} (seed {a.seed})", rng.choice(list(banklab_expr.OPS)),
                             str(rng.choice([1, 2, 4, 8, 16])), rng.choice(["ffffffff", "0000ffff", "1"]), t))

    requests = ["ops"] + [f"expr {hexed(t)}" for _, t in exprs] + \
               [f"access {hexed(o)} {hexed(w)} {hexed(m)} {hexed(t)}" for _, o, w, m, t in accesses]
    p = subprocess.run([a.driver], input="\n".join(requests) + "\n", capture_output=True, text=True,
                       errors="surrogateescape")
    if p.returncode != 0:
        print(f"FAIL: the C++ driver exited with {p.returncode}: {p.stderr}")
        return 1
    lines = p.stdout.split("\n")
    n_ops = len(banklab_expr.OPS) + 2
    cpp_ops, rest = lines[:n_ops], lines[n_ops:]
    bad = 0

    py_ops = [f"op {op} " + " ".join(map(str, ws)) for op, ws in banklab_expr.OPS.items()] + \
             ["legal " + " ".join(map(str, banklab_expr.LEGAL_WIDTHS)), f"max_shared {banklab_expr.MAX_SHARED_BYTES}"]
    if cpp_ops != py_ops or not rest[0:1] or rest[0].startswith("op "):
        bad += 1
        print("FAIL: the op table Python reads (common/data/ops.toml) differs from the compiled model's:")
        print("  C++:    " + "\n          ".join(cpp_ops))
        print("  Python: " + "\n          ".join(py_ops))
        print("  (common/include/banklab/model_table.hpp is generated from ops.toml: python3 python/banklab_run.py -m banklab.lab.model_table --write, then rebuild)")
        return 1

    def report(kind, where, text, cpp, py):
        nonlocal bad
        bad += 1
        if bad <= 20:
            print(f"FAIL ({kind}, {where}): {text!r}\n  C++:    {cpp[:300]}\n  Python: {py[:300]}")

    n_err = 0
    for (where, text), cpp in zip(exprs, rest):
        py = python_expr_line(banklab_expr, text)
        n_err += cpp.startswith("E") or "!" in cpp
        if cpp != py:
            report("expression", where, text, cpp, py)
    for (where, op, w, m, text), cpp in zip(accesses, rest[len(exprs):]):
        py = python_access_line(banklab_expr, op, w, m, text)
        if cpp != py:
            report("access", where, f"{op} {w} {text} mask {m}", cpp, py)
    if len(rest) < len(exprs) + len(accesses):
        print(f"FAIL: the C++ driver answered {len(rest)} of {len(exprs) + len(accesses)} requests")
        return 1
    # x: Python evaluates the question's own text with x; the C++ had x written in as a number.
    for where, op, w, m, text, x in x_checks:
        sub = re.sub(r"\bx\b", f"({x})", text)
        want = python_access_line(banklab_expr, op, w, m, sub)   # equal to the C++ (compared above / below)
        try:
            got = banklab_expr.parse_access(f"{op} {w} {text}", m, x=x)
            got = "\t".join(["A", got.op, str(got.width), str(got.mask)] + [str(v) for v in got.offsets])
        except banklab_expr.ExprError:
            got = "E"
        if (got if want.startswith("A") else got[:1]) != (want if want.startswith("A") else "E"):
            report("x", where, f"{op} {w} {text} with x = {x}", want, got)
    # The x corpus against the C++ too.
    xreq = [f"access {hexed(o)} {hexed(w)} {hexed(m)} {hexed(X_WORD.sub(f'({x})', t))}"
            for _, o, w, m, t, x in x_checks]
    p = subprocess.run([a.driver], input="\n".join(xreq) + "\n", capture_output=True, text=True, errors="surrogateescape")
    for (where, op, w, m, text, x), cpp in zip(x_checks, p.stdout.split("\n")):
        sub = re.sub(r"\bx\b", f"({x})", text)
        py = python_access_line(banklab_expr, op, w, m, sub)
        if cpp != py:
            report("x written in", where, f"{op} {w} {sub}", cpp, py)

    print(f"{len(exprs)} expressions ({len(CORPUS)} of the corpus, {2 * a.count} random with seed {a.seed}, "
          f"the rest from {n_files} lab descriptions ({len(desc)} access lines, {len(values)} values) and "
          f"{len(docs)} access lines of the docs; "
          f"{n_err} with an error in the parse or some lane), {len(accesses)} accesses and "
          f"{len(x_checks)} expressions with x, lanes 0..31; op table of {len(banklab_expr.OPS)} ops")
    if bad:
        print(f"FAIL: {bad} difference(s) between python/banklab/lab/expr.py and the C++ evaluator "
              "(tools/lib/src/expr.cpp): make the Python evaluator do what the C++ does, then run again:")
        print("  " + " ".join(shlex.quote(x) for x in [sys.executable, *sys.argv]))
        return 1
    print("OK: the Python and C++ evaluators agree on every one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
