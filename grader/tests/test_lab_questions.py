#!/usr/bin/env python3
"""The questions of every lab description (labs/NN_name/judge/lab.toml) as `banklab explain` reads them.

For each question answered by an `access` line (solutions/NN_name/answers.toml), `banklab explain OP WIDTH "EXPRESSION" [--mask M]` (the
line as the description prints it; a question's x is put in as a number) must draw exactly what
`banklab explain --line` draws for the offsets the description means (the expression evaluated
here with C's operators, as python/banklab/lab/gen.py emits it for the judge). So the expression language
and the judge's C++ agree on every question, and a student can paste the line as printed.

  test_lab_questions.py --banklab build/dev/tools/banklab --root . [--expect DIR]

--expect DIR: also compare the offsets with the `explain --line` lines found in the judge's
messages of DIR/labs_NN.json (banklab-judge grade of the stubs, whose placeholders fail every
prediction): a check that a description says what an older judge's C++ said.
"""
import argparse
from pathlib import Path
import json
import os
import re
import subprocess
import sys
import tomllib

from banklab.lab import description as banklab_description  # noqa: E402


def offsets(q, x):
    op, width, expr = banklab_description.split_access(q["access"])
    mask = int(q.get("mask", "0xffffffff"), 16)
    offs = [banklab_description.eval_expr(expr, lane=l, x=x) if (mask >> l) & 1 else 0 for l in range(32)]
    return op, width, mask, offs


def explain(banklab, args):
    r = subprocess.run([banklab, "explain", "--color", "never", *args], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--banklab", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--expect")
    a = ap.parse_args()
    bad = 0
    checked = 0
    from banklab.lab import labs as banklab_labs  # the one rule of what a lab is
    for lab_record in banklab_labs.find_labs(Path(a.root)).values():
        lab = lab_record.number
        path = os.path.relpath(lab_record.answers_path, a.root)
        if not lab_record.answers_path.is_file():
            print(f"{path}: missing (the student release has no answers: nothing to check for lab {lab})")
            continue
        answers = tomllib.loads(lab_record.answers_path.read_text())
        expected = {}
        if a.expect:
            j = json.load(open(os.path.join(a.expect, f"labs_{lab}.json")))
            for v in j["verdicts"]:
                m = re.search(r'explain --line "([^"]*)"', v.get("message", ""))
                if m:
                    expected[v["test"].split(".", 1)[1]] = m.group(1)
        for q in lab_record.questions:
            q = {**q, **answers.get(q["name"], {})}     # the question and its answer
            if "access" not in q:
                continue
            lo, hi, step = q.get("x_range", [0, 0, 1])
            for x in sorted({lo, hi, lo + step, (lo + hi) // 2 // step * step}):
                op, width, mask, offs = offsets(q, x)
                _, _, expr = banklab_description.split_access(q["access"])
                expr_x = re.sub(r"\bx\b", f"({x})", expr)
                line = f"{op} {width} {mask:08x} " + " ".join(str(o) for o in offs)
                rc1, by_expr = explain(a.banklab, [op, str(width), expr_x, "--mask", f"{mask:x}"])
                rc2, by_line = explain(a.banklab, ["--line", line])
                checked += 1
                if rc1 != 0 and rc2 != 0:  # an invalid access (x off the alignment): both must say why alike
                    by_expr = re.sub(r'^banklab: [^:]*:1: | in "[^"]*"', "", by_expr.strip())
                    by_line = re.sub(r'^banklab: [^:]*:1: ', "", by_line.strip())
                    rc1 = rc2 = 0
                if rc1 != 0 or rc2 != 0 or by_expr != by_line:
                    bad += 1
                    print(f"{path}: question {q['name']} (x = {x}): banklab explain of the expression "
                          f"differs from the offsets the judge uses\n  {expr_x}\n  {line}\n{by_expr}\n{by_line}")
                # the stub's kDoublePad (-1) puts x at 0 in the question that uses it
                if a.expect and q["test"] in expected and x == lo and q.get("asks") != "smallest":
                    if expected[q["test"]] != line:
                        bad += 1
                        print(f"{path}: question {q['name']}: offsets differ from {a.expect}\n"
                              f"  described: {line}\n  expected:  {expected[q['test']]}")
    print(f"{checked} access lines checked, {bad} problem(s)")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
