#!/usr/bin/env python3
"""Answers read as written (issue 44): the judge refuses a prediction whose initializer holds a
floating-point literal or conversion, quoting its text, welcomes integer expressions, and checks
the constraint a question's description implies (lab 06's chunk offset: range step 16).

  test_answers_as_written.py --judge BANKLAB_JUDGE --root ROOT   (CTest: judge.AnswersReadAsWritten)

Grades lab 06's stub twice on the CPU tier, its predictions filled in: once with floating forms and
an offset that is no multiple of 16, once with integer expressions only. The values are not the
lab's answers (only the form is asserted).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from banklab.lab import labs as banklab_labs  # noqa: E402

REFUSED = "is not read as an integer"
OUTSIDE = "outside what the question allows"
FLOATING = {  # prediction -> (its initializer, the part the message must name)
    "kRowMajorX4Wavefronts": ("1.5", "1.5"),
    "kRowMajorX1Wavefronts": ("3.0 / 2", "3.0"),
    "kSwizzledX4Wavefronts": ("int(1.5f)", "1.5f"),
    "kSwizzledX2Wavefronts": ("static_cast<int>(2.0)", "2.0"),
    "kPadded144X4Wavefronts": ("kHalfOfFour * 2", "kHalfOfFour"),
}
INTEGER = {
    "kRowMajorX4Wavefronts": "3 ^ 5",
    "kRowMajorX1Wavefronts": "(1 << 5)",
    "kSwizzledX4Wavefronts": "sizeof(float) * 2",
    "kSwizzledX2Wavefronts": "0x3",
    "kSwizzledOffsetOfRow5Chunk3": "32 * 4",
    "kPadded144X4Wavefronts": "kRowsOfFour / 2",
    "kPadded160X4Wavefronts": "(kRowsOfFour + 1) * 3",
}


def filled(stub: str, decls: dict[str, str], before: str) -> str:
    for name, init in decls.items():
        old = f"constexpr int {name} = -1;"
        if old not in stub:
            raise SystemExit(f"lab 06's stub has no `{old}`: the test needs updating")
        stub = stub.replace(old, f"constexpr int {name} = {init};")
    return stub.replace("namespace predict {", before + "\nnamespace predict {", 1)


def grade(judge: str, source: Path, work: Path) -> dict[str, str]:
    out = work / "grade.json"
    r = subprocess.run([judge, "grade", "--lab", "06", "--source", str(source), "--work", str(work / "w"),
                        "--json", str(out), "--tier", "cpu"], capture_output=True, text=True, timeout=900)
    if not out.is_file():
        raise SystemExit(f"banklab-judge grade wrote no grade ({r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    data = json.loads(out.read_text())
    return {str(v.get("test")): str(v.get("message", "")) for v in data.get("verdicts", data.get("tests", []))
            if isinstance(v, dict)}


def message_of(verdicts: dict[str, str], questions: dict[str, dict], name: str) -> str:
    return verdicts.get(f"Lab06Predictions.{questions[name]['test']}", "")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--root", type=Path, required=True)
    a = ap.parse_args()
    lab = banklab_labs.find_labs(a.root.resolve())["06"]
    questions = {q["name"]: q for q in lab.questions}
    stub = lab.stub.read_text()
    fails: list[str] = []
    with tempfile.TemporaryDirectory(prefix="banklab_as_written_") as tmp:
        floating = Path(tmp) / "floating" / "kernel.cu"
        floating.parent.mkdir()
        decls = {n: init for n, (init, _) in FLOATING.items()} | {"kSwizzledOffsetOfRow5Chunk3": "6"}
        floating.write_text(filled(stub, decls, "constexpr double kHalfOfFour = 2;"))
        integer = Path(tmp) / "integer" / "kernel.cu"
        integer.parent.mkdir()
        integer.write_text(filled(stub, INTEGER, "constexpr int kRowsOfFour = 4;"))
        got_floating = grade(a.judge, floating, Path(tmp) / "gf")
        got_integer = grade(a.judge, integer, Path(tmp) / "gi")

    for name, (init, part) in FLOATING.items():
        msg = message_of(got_floating, questions, name)
        if REFUSED not in msg or f"{name} = {init}" not in msg or f"holds {part}," not in msg:
            fails.append(f"{name} = {init} must be refused, its text quoted and {part} named: {msg!r}")
    msg = message_of(got_floating, questions, "kSwizzledOffsetOfRow5Chunk3")
    if OUTSIDE not in msg or "in steps of 16" not in msg or " = 6" in msg:
        fails.append(f"an offset of 6 must be refused as no multiple of 16, never echoed: {msg!r}")
    for name, init in INTEGER.items():
        msg = message_of(got_integer, questions, name)
        if REFUSED in msg or OUTSIDE in msg or "not an integer" in msg or "placeholder" in msg:
            fails.append(f"{name} = {init} is an integer expression the question allows, refused: {msg!r}")
    if not got_integer or not got_floating:
        fails.append("no verdicts")
    print(f"{len(FLOATING) + 1} refusals and {len(INTEGER)} integer expressions checked")
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
