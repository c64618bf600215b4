#!/usr/bin/env python3
"""Run selftest cases through banklab-judge and check each one's expectation.

    run_cases.py --judge build/dev/grader/banklab-judge [--kind cheat|alternative|bad]...
                 [--lab 05]... [--case FILE]... [--tier cpu|gpu|all] [--graded] [--gpu]
                 [--skip-slow] [--work DIR] [--timeout 900] [--variant K --lab NN]

For each case and each lab it applies to: materialize the kernel.cu (materialize.py), run
`banklab-judge grade --lab NN --source kernel.cu --work W --json grade.json`, and check the
result with expect.py (cheats against the plain stub's own grade, graded first). Prints one line
per case (OK / FAILED with the reasons / SKIPPED) and a summary; exits 1 if any expectation does
not hold, 0 otherwise. Every case runs in a folder of its own under --work; cases marked
`// SLOW: yes` (a hang, a flood, a compile that never ends) run last, or not at all with
--skip-slow. With --variant K (one --lab): each case's file is rendered as the lab's variant K
(variant_case.py: a patch of the solution as that variant's solved file is, a cheat of the stub as
its stub is), the plain stub is variant K's and every grade is `--variant K`; a case's expectations
are its own (a GPU_EVIDENCE count holds where the variant's kernels do the lab's work in other
shapes: lab 05's variant 4 moves the same bytes through 32-chunk rows). A case that edits a text the
variant replaces is NOT APPLICABLE (counted apart, never OK). Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import functools
import glob
import hashlib
import io
import os
import subprocess
import sys
import tempfile
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

import expect  # noqa: E402
import materialize  # noqa: E402
import variant_case  # noqa: E402  (sets banklab's path, as materialize does)
from banklab.lab import variants as banklab_variants  # noqa: E402


def lab_dirs() -> dict[str, str]:
    """{"05": "05_swizzle"}: the labs python/banklab/lab/labs.py finds."""
    return materialize.banklab_labs.lab_folders(ROOT)


def all_cases(kinds: list[str]) -> list[str]:
    """The course's cheats (grader/selftest/cheats/) and every lab's cases (solutions/NN_name/cases/)."""
    found = []
    labs = materialize.banklab_labs.find_labs(ROOT).values()
    for kind, sub in (("bad", "bad"), ("alternative", "alternatives")):
        if kind in kinds:
            found += [str(c) for lab in labs for c in lab.cases(sub)]
    if "cheat" in kinds:
        found += [str(c) for lab in labs for c in lab.cases("cheats")]
    if "cheat" in kinds:
        found += sorted(glob.glob(os.path.join(HERE, "cheats", "*.cu")))
    return found


def grade(judge: str, lab: str, source: str, work: str, out_json: str, tier: str, graded: bool,
          timeout: int, variant: int | None = None) -> tuple[int | None, str]:
    cmd = [judge, "grade", "--lab", lab, "--source", source, "--work", work, "--json", out_json]
    if variant is not None:
        cmd += ["--variant", str(variant)]
    if tier != "all":
        cmd += ["--tier", tier]
    if graded:
        cmd.append("--graded")
    try:
        # A session of its own: a cheat that forks a daemon must not take this runner down with it.
        p = subprocess.run(cmd, cwd=os.path.dirname(work), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, start_new_session=True)
        return p.returncode, p.stdout.decode("utf-8", "replace")[-4000:]
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")[-4000:]
        return None, f"banklab-judge grade ran past {timeout} s\n{out}"


def sha256_of(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run_expect(argv: list[str]) -> tuple[int, str]:
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = expect.main(argv)
    return code, buf.getvalue()


def arguments() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--judge", required=True, help="the banklab-judge executable")
    ap.add_argument("--kind", action="append", choices=["cheat", "alternative", "bad"])
    ap.add_argument("--lab", action="append", help="only these labs (00 ... 05)")
    ap.add_argument("--case", action="append", help="only these case files")
    ap.add_argument("--tier", default="all", choices=["cpu", "gpu", "all"])
    ap.add_argument("--graded", action="store_true")
    ap.add_argument("--gpu", action="store_true", help="this machine has a GPU: a skipped gpu test counts against")
    ap.add_argument("--skip-slow", action="store_true")
    ap.add_argument("--work", help="where the case folders go (default: a new temporary folder)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per banklab-judge grade")
    ap.add_argument("--stub-verdicts", help="the plain stub's grade.json (with one --lab): not graded again")
    ap.add_argument("--variant", type=int, help="judge every case as this variant of the one --lab")
    return ap


def plan(cases: list[str], labs: dict[str, str], wanted: set[str], skip_slow: bool) -> list[tuple[bool, str, str]]:
    """(slow, case, lab) for each case and each wanted lab it applies to, slow ones last."""
    jobs = []  # (slow, case, lab)
    for c in cases:
        case = materialize.load_case(c)
        slow = (case.first("SLOW") or "").lower() == "yes"
        if slow and skip_slow:
            print(f"NOT RUN {os.path.relpath(c, ROOT)}: SLOW (--skip-slow)")
            continue
        for lab in sorted(wanted):
            if lab in labs and case.applies_to(lab):
                jobs.append((slow, c, lab))
    jobs.sort(key=lambda j: j[0])  # slow ones last
    return jobs


@dataclass
class Run:
    args: argparse.Namespace
    judge: str
    judge_sha: str
    labs: dict[str, str]
    work: str
    stub_grades: dict[str, str]


def stub_grade(run: Run, lab: str) -> str:
    """The plain stub's grade.json for lab, graded once (the cheats of that lab are judged against it)."""
    args = run.args
    if lab not in run.stub_grades:
        sd = os.path.join(run.work, f"stub-{lab}")
        os.makedirs(sd, exist_ok=True)
        ssrc = os.path.join(sd, "kernel.cu")
        with open(ssrc, "w", encoding="utf-8") as f_out:
            f_out.write(banklab_variants.stub(lab_of(lab), args.variant or 0))
        sj = os.path.join(sd, "grade.json")
        grade(run.judge, lab, ssrc, os.path.join(sd, "work"), sj, args.tier, args.graded, args.timeout, args.variant)
        run.stub_grades[lab] = sj
    return run.stub_grades[lab]


@functools.lru_cache(maxsize=None)
def lab_of(lab: str) -> "materialize.banklab.lab.labs.Lab":
    """Lab `lab` as python/banklab/lab/labs.py reads it (once a run: its variants render every case)."""
    return materialize.banklab_labs.find_labs(Path(ROOT))[lab]


def run_case(run: Run, n: int, c: str, lab: str) -> str:
    """Case file c on lab: materialize, grade, check with expect.py and print its line. Returns the
    count it adds to (OK, FAILED, SKIPPED, ERROR), or STOP when the case replaced the judge."""
    args, judge = run.args, run.judge
    case = materialize.load_case(c)
    rel = os.path.relpath(c, ROOT)
    base = "solutions" if case.kind in ("bad", "alternative") else "labs"
    d = os.path.join(run.work, f"{n:03d}-{lab}-{os.path.splitext(os.path.basename(c))[0]}")
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "kernel.cu")
    try:
        text = materialize.materialize(case, os.path.join(ROOT, base, run.labs[lab]))
    except materialize.CaseError as e:
        print(f"ERROR {rel} lab {lab}: {e}")
        return "ERROR"
    if args.variant:
        try:
            text, _ = variant_case.render_case(lab_of(lab), args.variant, case, text)
        except variant_case.DescriptionError as e:
            print(f"NOT APPLICABLE {rel} lab {lab} variant {args.variant}: {e}")
            return "NOT APPLICABLE"
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
    expect_argv = ["--case", c, "--source", src]
    if args.graded:
        expect_argv.append("--graded")
    if args.gpu:
        expect_argv.append("--gpu")
    if case.kind == "cheat":
        expect_argv += ["--stub-verdicts", stub_grade(run, lab)]
    out_json = os.path.join(d, "grade.json")
    rc, output = grade(judge, lab, src, os.path.join(d, "work"), out_json, args.tier, args.graded, args.timeout,
                       args.variant)
    if not os.path.exists(judge) or sha256_of(judge) != run.judge_sha:
        print(f"FAILED {rel} lab {lab}: the case replaced or removed the judge ({judge}); every later grade "
              f"would be the student's. Stopping: rebuild the judge.")
        return "STOP"
    if rc is None or not os.path.exists(out_json):
        why = "timed out" if rc is None else f"exit {rc}, no {out_json}"
        if case.kind == "cheat":
            print(f"FAILED {rel} lab {lab}: banklab-judge grade {why}: a cheat must get verdicts, not stop the "
                  f"grader\n  {output[-600:]}")
        else:
            print(f"FAILED {rel} lab {lab}: banklab-judge grade {why}\n  {output[-600:]}")
        return "FAILED"
    if rc not in (0, 1):
        print(f"NOTE {rel} lab {lab}: banklab-judge grade exited {rc} (killed? signal {-rc if rc < 0 else '-'}); "
              f"its grade.json may not be its own")
    code, text = run_expect(expect_argv + ["--verdicts", out_json, "--probe-log",
                                           os.path.join(d, "work", "probe.log")])
    text = text.strip().replace(c, rel)
    if code == 0:
        print(f"{text} [lab {lab}]")
        return "OK"
    if code == expect.SKIP:
        print(f"{text} [lab {lab}]")
        return "SKIPPED"
    print(f"{text} [lab {lab}]\n  verdicts: {out_json}")
    return "FAILED" if code == 1 else "ERROR"


def main(argv: list[str] | None = None) -> int:
    ap = arguments()
    args = ap.parse_args(argv)

    judge = os.path.abspath(args.judge)
    kinds = args.kind or ["bad", "alternative", "cheat"]
    cases = [os.path.abspath(c) for c in args.case] if args.case else all_cases(kinds)
    labs = lab_dirs()
    wanted = set(args.lab or labs)
    work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="banklab-selftest-"))
    os.makedirs(work, exist_ok=True)
    jobs = plan(cases, labs, wanted, args.skip_slow)
    if args.variant is not None and (not args.lab or len(args.lab) != 1):
        ap.error("--variant needs exactly one --lab")

    judge_sha = sha256_of(judge)  # a case that rewrites the judge poisons every later grade
    stub_grades: dict[str, str] = {}
    if args.stub_verdicts:
        if not args.lab or len(args.lab) != 1:
            ap.error("--stub-verdicts needs exactly one --lab")
        stub_grades[args.lab[0]] = os.path.abspath(args.stub_verdicts)
    run = Run(args, judge, judge_sha, labs, work, stub_grades)
    counts = {"OK": 0, "FAILED": 0, "SKIPPED": 0, "ERROR": 0, "NOT APPLICABLE": 0}
    for n, (_, c, lab) in enumerate(jobs):
        got = run_case(run, n, c, lab)
        counts["FAILED" if got == "STOP" else got] += 1
        if got == "STOP":
            break
    print(f"selftest cases: {counts['OK']} ok, {counts['FAILED']} failed, {counts['SKIPPED']} skipped, "
          f"{counts['ERROR']} errors" + (f", {counts['NOT APPLICABLE']} not applicable to variant {args.variant}"
                                         if args.variant else "") + f" (work in {work})")
    if counts["FAILED"] or counts["ERROR"]:
        return 1
    if counts["SKIPPED"] and not counts["OK"]:
        return expect.SKIP  # nothing could be judged here (no GPU): CTest's SKIP_RETURN_CODE
    return 0

if __name__ == "__main__":
    sys.exit(main())
