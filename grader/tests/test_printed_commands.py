#!/usr/bin/env python3
"""Every command the project prints runs as printed, and answers are read as written (issue 32).

  test_printed_commands.py --judge BANKLAB_JUDGE --banklab BANKLAB --root ROOT   (CTest: judge.PrintedCommandsRun)

Grades every lab's stub on the CPU tier with banklab-judge (and every variant's stub as its variant,
--variant K), and a few wrong predictions (labs 05
and 07: every prediction 3; lab 05 also `constexpr float kBytesSavedOverPadding = 128.5f` and a
column of 40 in a 32-column question), collects every command the messages print (See it:,
Check yourself: with `<your expression of lane>` put in, Try: lines, git checkout of a stub) and
the `banklab explain` commands of the handouts (labs/*/README.md, and each variant's as its release
has it, its "Your numbers" section rendered in: banklab.release.per_student; their placeholders put in; each
names build/dev/tools/banklab, what the lab presets build, put here for the built CLI), and
runs each in a shell as printed: exit 0 and a drawing expected. Also: the untouched lab 05 stub's
messages name no part of its answer, 128.5f is refused as not an integer (never read as 128), and
a value outside a question's range is refused without being echoed.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve()
from banklab.lab import labs as banklab_labs  # noqa: E402
from banklab.lab import variants as banklab_variants  # noqa: E402
from banklab.release import per_student  # noqa: E402

CLI_CMD = re.compile(r"((?:cmake --build \S+ --target banklab && )?\S*banklab'? "
                     r"(?:explain|compare|predict)\b[^\n]*)")
# (single-quoted in a message; double-quoted in a release's "Your numbers", for Doxygen: markdown_text)
TEMPLATE = re.compile(r"(\b(?:ld|st|ldsm|stsm|cpasync|atom)\s+(\d+)\s+)(?:'<your expression of lane>'|\"<your expression of lane>\")")
HANDOUT_CMD = re.compile(r"`((?:\S*/)?banklab (?:explain|compare|predict) [^`]*)`"
                         r"|^((?:\S*/)?banklab (?:explain|compare|predict) .*)$", re.M)
#: The banklab command as a handout prints it (the lab presets' build of it, from the repository's
#: root); a bare `banklab` is no command in a release.
HANDOUT_CLI = banklab_labs.BANKLAB_CLI
# Lab 05's answers (its solution's swizzles), in any words a message could use.
LAB05_ANSWER = re.compile(r"col \^ row|\^ \(?i % 8\)?|5 \^ i|Swizzle<3, ?4, ?3>|\(lane/8\)\^\(lane%8\)")


def with_predictions(stub: str, value: str, special: dict[str, str] | None = None) -> str:
    """The stub with every `constexpr int kX = -1;` of namespace predict set to `value` (or to the
    declaration `special` gives)."""
    special = special or {}

    def put(m: re.Match) -> str:
        return special.get(m.group(1), f"constexpr int {m.group(1)} = {value};")
    return re.sub(r"constexpr int (k\w+) = -1;", put, stub)


def grade(judge: str, lab: str, source: Path, work: Path, variant: int | None = None) -> list[dict]:
    out = work / "grade.json"
    r = subprocess.run([judge, "grade", "--lab", lab, "--source", str(source), "--work", str(work / "w"),
                        "--json", str(out), "--tier", "cpu"] + ([] if variant is None else ["--variant", str(variant)]),
                       capture_output=True, text=True, timeout=900)
    if not out.is_file():
        raise SystemExit(f"lab {lab}: banklab-judge grade wrote no grade ({r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    data = json.loads(out.read_text())
    return [v for v in data.get("verdicts", data.get("tests", [])) if isinstance(v, dict)]


def commands_in(message: str) -> list[str]:
    cmds = []
    for line in message.splitlines():
        for m in CLI_CMD.finditer(line):
            cmd = TEMPLATE.sub(lambda t: f"{t.group(1)}'lane*{t.group(2)}'", m.group(1).rstrip(" .)"))
            cmds.append(cmd)
    return cmds


def handout_commands(root: Path, banklab: str, fails: list[str]) -> list[tuple[str, str]]:
    out = []
    for lab in banklab_labs.find_labs(root).values():
        v = banklab_variants.read(lab)
        # every variant's handout as its release has it (its "Your numbers" section rendered in)
        text = "\n".join([lab.handout.read_text()] + [per_student.readme_with_numbers(lab.handout.read_text(), lab, k)
                                                      for k in range(1, v.count if v else 1)])
        for m in HANDOUT_CMD.finditer(text):
            cmd = (m.group(1) or m.group(2)).strip()
            cmd = TEMPLATE.sub(lambda t: f"{t.group(1)}'lane*{t.group(2)}'", cmd)
            cmd = cmd.replace('"EXPR"', '"lane*16"').replace("MODE", "128").replace('"lane*S*4"', '"lane*2*4"')
            where = f"{lab.handout.relative_to(root)}"
            if not cmd.startswith(HANDOUT_CLI + " "):   # in a release: "command not found"
                fails.append(f"{where}: `{cmd}` does not run as printed: it names no {HANDOUT_CLI}")
                continue
            out.append((where, banklab + cmd[len(HANDOUT_CLI):]))
    return out


def run_command(cmd: str, root: Path) -> str | None:
    """Why `cmd`, run in a shell as printed, is not fine (None: it is)."""
    r = subprocess.run(["bash", "-c", cmd], cwd=root, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return f"exit {r.returncode}: {(r.stderr or r.stdout).strip()[:300]}"
    if "explain" in cmd and not re.search(r"wavefront", r.stdout, re.I):
        return "no drawing (no 'wavefront' in its output)"
    return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--banklab", required=True)
    ap.add_argument("--root", type=Path, required=True)
    a = ap.parse_args()
    root = a.root.resolve()
    labs = banklab_labs.find_labs(root)
    fails: list[str] = []
    with tempfile.TemporaryDirectory(prefix="banklab_cmds_") as tmp:
        cases: list[tuple[str, str, Path, int | None]] = []   # (name, lab, source, variant)
        for n, lab in labs.items():
            cases.append((f"lab {n} stub", n, lab.stub, None))
            v = banklab_variants.read(lab)
            for k in range(1, v.count if v else 1):   # every variant's stub, graded as its variant
                p = Path(tmp) / f"stub{n}v{k}" / "kernel.cu"
                p.parent.mkdir(parents=True)
                p.write_text(banklab_variants.stub(lab, k))
                cases.append((f"lab {n} variant {k} stub", n, p, k))
        for n, special in (("05", {"kBytesSavedOverPadding": "constexpr float kBytesSavedOverPadding = 128.5f;",
                                   "kStoredColumnOfRow5Col3": "constexpr int kStoredColumnOfRow5Col3 = 40;"}),
                           ("07", {})):
            if n in labs:
                p = Path(tmp) / f"wrong{n}" / "kernel.cu"
                p.parent.mkdir(parents=True)
                p.write_text(with_predictions(labs[n].stub.read_text(), "3", special))
                cases.append((f"lab {n} with wrong predictions", n, p, None))
        grades: dict[str, list[dict]] = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            futs = {pool.submit(grade, a.judge, lab, src, Path(tmp) / f"g{i}", k): name
                    for i, (name, lab, src, k) in enumerate(cases)}
            for f in concurrent.futures.as_completed(futs):
                grades[futs[f]] = f.result()

        printed: dict[str, str] = {}   # command -> where it was printed
        for name, verdicts in grades.items():
            for v in verdicts:
                msg = str(v.get("message", ""))
                for cmd in commands_in(msg):
                    printed.setdefault(cmd, f"{name}, {v.get('test')}")
                for m in re.finditer(r"git checkout (\S+)", msg):
                    if not (root / m.group(1)).is_file():
                        fails.append(f"{name}, {v.get('test')}: `git checkout {m.group(1)}` names no file of the course")
                if "'<your expression of lane>'" in msg and not TEMPLATE.search(msg):
                    fails.append(f"{name}, {v.get('test')}: a self-check template that is not `OP WIDTH '<expression>'`")
        for where, cmd in handout_commands(root, shlex.quote(a.banklab), fails):
            printed.setdefault(cmd, where)
        if len(printed) < 10:
            fails.append(f"only {len(printed)} printed commands found: the collector is broken")
        for cmd, where in sorted(printed.items(), key=lambda kv: kv[1]):
            why = run_command(cmd, root)
            if why:
                fails.append(f"{where}: `{cmd}` does not run as printed: {why}")

        # What the messages say, besides their commands.
        stub05 = "\n".join(str(v.get("message", "")) for v in grades.get("lab 05 stub", []))
        for m in LAB05_ANSWER.finditer(stub05):
            fails.append(f"lab 05 stub: a message names part of the lab's answer: {m.group(0)!r}")
        # ... nor any solution line or answer, by the release check's rules (banklab.release.answers)
        if (root / "solutions").is_dir():
            from banklab.release import answers as release_answers  # noqa: PLC0415
            empty = Path(tmp) / "empty"
            empty.mkdir()
            extra = [(f"(messages of {name})", "\n".join(str(v.get("message", "")) for v in vs))
                     for name, vs in grades.items() if name.endswith("stub")]
            hits, problems, _ = release_answers.check(empty, root, extra)
            fails += [f"a stub's messages give an answer away: {h}" for h in hits] + problems
        wrong05 = {v.get("test"): str(v.get("message", "")) for v in grades.get("lab 05 with wrong predictions", [])}
        saved = wrong05.get("Lab05Predictions.BytesSavedOverPaddingArePredicted", "")
        if "not an integer" not in saved or "128" in saved:
            fails.append(f"lab 05: 128.5f must be refused as not an integer, without a value read from it: {saved!r}")
        column = wrong05.get("Lab05Predictions.StoredColumnOfRow5Col3IsPredicted", "")
        if "outside what the question allows" not in column or re.search(r"\b40\b", column):
            fails.append(f"lab 05: a column of 40 must be refused as outside 0 to 31, never echoed: {column!r}")
        wrong07 = "\n".join(str(v.get("message", "")) for v in grades.get("lab 07 with wrong predictions", []))
        if "07" in labs and "--tma-swizzle 128" not in wrong07:
            fails.append("lab 07: the self-check of a question through the 128-byte mode lacks --tma-swizzle 128")
        print(f"{len(cases)} grades, {len(printed)} printed commands run")
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
